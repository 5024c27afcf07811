// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP proxy in front of an S3 server that spoils some requests: answers {@code 503 SlowDown},
 * stalls without answering, or cuts a body off half-way. Which requests it spoils is decided per
 * distinct request (method, path, query, range), in turn, on the first attempt, and again on the
 * second attempt of every fourth, so that every request succeeds by its third attempt: a test sees
 * retries work without depending on luck. Threads: the JDK's HTTP server on a bounded pool.
 */
final class FaultProxy implements AutoCloseable {

    private static final Set<String> HOP_HEADERS = Set.of("host", "connection", "content-length", "expect",
            "upgrade", "transfer-encoding", "keep-alive", "date");

    private final URI target;
    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(16);
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final AtomicInteger distinct = new AtomicInteger();
    private final Map<String, Integer> turn = new ConcurrentHashMap<>();
    private final long stallMillis;
    private final int maxStalls;
    private final boolean alwaysFail;

    final AtomicInteger failed = new AtomicInteger();
    final AtomicInteger stalled = new AtomicInteger();
    final AtomicInteger cut = new AtomicInteger();
    final AtomicInteger forwarded = new AtomicInteger();

    /**
     * @param stallMillis how long a stalled request waits before its connection is closed
     * @param maxStalls   how many requests stall at most (each costs the client a timeout)
     * @param alwaysFail  answer every request with 503
     */
    FaultProxy(URI target, long stallMillis, int maxStalls, boolean alwaysFail) throws IOException {
        this.target = target;
        this.stallMillis = stallMillis;
        this.maxStalls = maxStalls;
        this.alwaysFail = alwaysFail;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(pool);
        server.createContext("/", this::handle);
        server.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body = ex.getRequestBody().readAllBytes();
            String method = ex.getRequestMethod();
            String id = method + " " + ex.getRequestURI() + " " + ex.getRequestHeaders().getFirst("Range");
            int attempt = attempts.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            int t = turn.computeIfAbsent(id, k -> distinct.getAndIncrement());
            String fault = alwaysFail ? "503" : faultFor(method, t, attempt);
            switch (fault) {
                case "503" -> {
                    failed.incrementAndGet();
                    byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
                            + "<Message>Please reduce your request rate.</Message></Error>").getBytes(StandardCharsets.UTF_8);
                    ex.getResponseHeaders().set("Content-Type", "application/xml");
                    ex.sendResponseHeaders(503, method.equals("HEAD") ? -1 : xml.length);
                    if (!method.equals("HEAD")) {
                        ex.getResponseBody().write(xml);
                    }
                    return;
                }
                case "stall" -> {
                    if (stalled.incrementAndGet() <= maxStalls) {
                        sleep(stallMillis);
                        return; // closed without an answer
                    }
                }
                default -> {
                }
            }
            forward(ex, method, body, fault.equals("cut"));
        }
    }

    /** 503 for turn 0, a stall for 1, a cut body for 2 (GETs), nothing for 3; again 503 for every fourth second attempt. */
    private static String faultFor(String method, int turn, int attempt) {
        if (attempt == 1) {
            return switch (turn % 4) {
                case 0 -> "503";
                case 1 -> method.equals("GET") ? "stall" : "none";
                case 2 -> method.equals("GET") ? "cut" : "none";
                default -> "none";
            };
        }
        return attempt == 2 && turn % 16 == 0 ? "503" : "none";
    }

    private void forward(HttpExchange ex, String method, byte[] body, boolean cutBody) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(target.resolve(ex.getRequestURI().toString()))
                .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        ex.getRequestHeaders().forEach((name, values) -> {
            if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(v -> b.header(name, v));
            }
        });
        HttpResponse<byte[]> r;
        try {
            r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        forwarded.incrementAndGet();
        r.headers().map().forEach((name, values) -> {
            if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT)) || name.equalsIgnoreCase("content-length")
                    && method.equals("HEAD")) {
                ex.getResponseHeaders().put(name, List.copyOf(values));
            }
        });
        byte[] out = r.body();
        boolean noBody = method.equals("HEAD") || out.length == 0 || r.statusCode() == 204 || r.statusCode() == 304;
        ex.sendResponseHeaders(r.statusCode(), noBody ? -1 : out.length);
        if (!noBody) {
            OutputStream os = ex.getResponseBody();
            if (cutBody && out.length > 1) {
                cut.incrementAndGet();
                os.write(out, 0, out.length / 2);
                os.flush();
                // Closing the exchange short of the declared length drops the connection.
                throw new IOException("body cut off on purpose");
            }
            os.write(out);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
        client.close();
    }
}
