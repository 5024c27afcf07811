// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Serves a directory on 127.0.0.1 with single byte ranges, for reading a store over http. */
final class StaticHttpServer implements AutoCloseable {

    private static final Pattern RANGE = Pattern.compile("^bytes=(\\d*)-(\\d*)$");

    private final Path root;
    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(4);

    StaticHttpServer(Path root) throws IOException {
        this.root = root.toAbsolutePath();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(pool);
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            Path file = root.resolve(ex.getRequestURI().getPath().substring(1)).normalize();
            if (!file.startsWith(root) || !Files.isRegularFile(file)) {
                ex.sendResponseHeaders(404, -1);
                return;
            }
            byte[] all = Files.readAllBytes(file);
            int from = 0;
            int to = all.length;
            String range = ex.getRequestHeaders().getFirst("Range");
            Matcher m = range == null ? null : RANGE.matcher(range);
            if (m != null && m.matches()) {
                if (m.group(1).isEmpty()) {
                    from = Math.max(0, all.length - Integer.parseInt(m.group(2)));
                } else {
                    from = Integer.parseInt(m.group(1));
                    to = m.group(2).isEmpty() ? all.length : Math.min(all.length, Integer.parseInt(m.group(2)) + 1);
                }
                ex.getResponseHeaders().add("Content-Range", "bytes " + from + "-" + (to - 1) + "/" + all.length);
            }
            boolean head = ex.getRequestMethod().equals("HEAD");
            ex.sendResponseHeaders(m != null && m.matches() ? 206 : 200, head ? -1 : to - from);
            if (!head) {
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(all, from, to - from);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
