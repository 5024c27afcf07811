// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The JVM side of the Python loader ({@code docs/loader-protocol.md}): connects to the socket the
 * Python process listens on, reads one JSON request a line, and runs a {@link LoaderSession}.
 * It ends when the socket closes (the Python process closed the loader or died), on {@code close},
 * or when the process that started it is gone; the session's slots and files go with it.
 */
public final class LoaderServer {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final SocketChannel channel;
    private final OutputStream out;
    private final String shmPrefix;
    private LoaderSession session;

    private LoaderServer(SocketChannel channel, String shmPrefix) {
        this.channel = channel;
        this.out = Channels.newOutputStream(channel);
        this.shmPrefix = shmPrefix;
    }

    /**
     * Serves one Python loader on {@code socket} until it goes away; returns the exit status (0 when
     * the consumer closed the loader or the socket ended).
     */
    public static int serve(Path socket, String shmPrefix) throws IOException {
        watchParent();
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        ch.connect(UnixDomainSocketAddress.of(socket));
        LoaderServer server = new LoaderServer(ch, shmPrefix);
        try (ch) {
            return server.loop();
        } finally {
            server.closeSession();
        }
    }

    private int loop() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
                StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode req;
            try {
                req = JSON.readTree(line);
            } catch (IOException e) {
                send(error(new IllegalArgumentException("not a JSON request: " + e.getMessage())));
                continue;
            }
            String op = req.path("op").asText("");
            try {
                switch (op) {
                    case "open" -> {
                        if (session != null) {
                            throw new IllegalStateException("the loader is already open");
                        }
                        session = LoaderSession.open(Requests.spec(req), Requests.options(req), shmPrefix, this::send);
                        send(session.opened());
                    }
                    case "mapped" -> {
                        session().consumerMapped();
                        send(message("ready"));
                    }
                    case "epoch" -> session().startEpoch(req.path("epoch").asInt(0), req.path("position").asInt(0));
                    case "release" -> session().release(req.path("slot").asInt(-1));
                    case "stop" -> {
                        if (session != null) {
                            session.stopEpoch();
                        }
                        send(message("stopped"));
                    }
                    case "close" -> {
                        closeSession();
                        send(message("closed"));
                        return 0;
                    }
                    default -> throw new IllegalArgumentException("unknown request '" + op + "'");
                }
            } catch (RuntimeException e) {
                send(error(e));
            }
        }
        return 0;
    }

    private LoaderSession session() {
        if (session == null) {
            throw new IllegalStateException("the loader is not open: send 'open' first");
        }
        return session;
    }

    private void closeSession() {
        LoaderSession s = session;
        session = null;
        if (s != null) {
            s.close();
        }
    }

    /** Sends one message; called by the request loop and the producer thread. */
    synchronized void send(ObjectNode message) {
        try {
            out.write(JSON.writeValueAsBytes(message));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            // the consumer is gone: the request loop sees end of file and closes everything
            throw new java.io.UncheckedIOException("the loader's consumer went away: " + e.getMessage(), e);
        }
    }

    static ObjectNode message(String op) {
        return JSON.createObjectNode().put("op", op);
    }

    static ObjectNode message(String op, Map<String, ?> fields) {
        ObjectNode n = message(op);
        fields.forEach((k, v) -> n.set(k, JSON.valueToTree(v)));
        return n;
    }

    static ObjectNode error(Throwable e) {
        String msg = e.getMessage() == null ? e.toString() : e.getMessage();
        return message("error").put("message", msg).put("type", e.getClass().getSimpleName());
    }

    /** Ends this process within about a second of the process that started it ending. */
    private static void watchParent() {
        var parent = ProcessHandle.current().parent();
        if (parent.isEmpty()) {
            return;
        }
        ProcessHandle p = parent.get();
        Thread t = Thread.ofPlatform().daemon().name("zd-loader-parent-watch").unstarted(() -> {
            while (true) {
                if (!p.isAlive()) {
                    System.err.println("zarr-direct loader-serve: the process that started it (pid " + p.pid()
                            + ") is gone; exiting");
                    System.exit(3);
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        t.start();
    }
}
