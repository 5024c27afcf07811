// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.store;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A static file server on loopback for store tests: serves {@code root} under {@code /data/} with
 * single-range support ({@code bytes=a-b}, {@code a-}, {@code -n}) as RFC 9110 describes, and
 * injects faults on request: N answers of a given status, N hangs, a status for chosen paths,
 * ignored {@code Range} headers, refused {@code HEAD}. Directories redirect to their
 * {@code /}-terminated URL, as common servers do. Hangs end when the server closes.
 */
final class RangeHttpServer implements AutoCloseable {

    private static final Pattern RANGE = Pattern.compile("^bytes=(\\d*)-(\\d*)$");

    private final Path root;
    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(32);
    private final CountDownLatch closing = new CountDownLatch(1);
    private final AtomicInteger failuresLeft = new AtomicInteger();
    private volatile int failureStatus = 503;
    private final AtomicInteger hangsLeft = new AtomicInteger();
    private volatile Predicate<String> statusPaths = p -> false;
    private volatile int pathStatus = 403;
    private final AtomicBoolean ignoreRanges = new AtomicBoolean();
    private final AtomicBoolean refuseHead = new AtomicBoolean();
    private volatile long delayMillis;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    final AtomicInteger requests = new AtomicInteger();
    final List<String> rangeHeaders = new CopyOnWriteArrayList<>();

    RangeHttpServer(Path root) throws IOException {
        this.root = root.toAbsolutePath();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(pool);
        server.createContext("/data/", this::handle);
        server.start();
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/data/");
    }

    RangeHttpServer failNext(int n, int status) {
        failureStatus = status;
        failuresLeft.set(n);
        return this;
    }

    RangeHttpServer hangNext(int n) {
        hangsLeft.set(n);
        return this;
    }

    RangeHttpServer answer(Predicate<String> paths, int status) {
        pathStatus = status;
        statusPaths = paths;
        return this;
    }

    RangeHttpServer ignoreRanges() {
        ignoreRanges.set(true);
        return this;
    }

    RangeHttpServer refuseHead() {
        refuseHead.set(true);
        return this;
    }

    RangeHttpServer delayEach(long millis) {
        delayMillis = millis;
        return this;
    }

    int maxInFlight() {
        return maxInFlight.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        requests.incrementAndGet();
        boolean[] counted = {true};
        try (ex) {
            serve(ex, counted);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (counted[0]) {
                inFlight.decrementAndGet();
            }
        }
    }

    /**
     * Serves one request. A request stops counting as in flight just before its answer is sent:
     * the client may hold on to it until the body is read, so this count never exceeds the
     * client's own.
     */
    private void serve(HttpExchange ex, boolean[] counted) throws IOException, InterruptedException {
        String rel = ex.getRequestURI().getPath().substring("/data/".length());
        String range = ex.getRequestHeaders().getFirst("Range");
        if (range != null) {
            rangeHeaders.add(range);
        }
        if (delayMillis > 0) {
            Thread.sleep(delayMillis);
        }
        inFlight.decrementAndGet();
        counted[0] = false;
        if (hangsLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            closing.await(60, TimeUnit.SECONDS);
            return;
        }
        if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            send(ex, failureStatus, "injected failure");
            return;
        }
        if (statusPaths.test(rel)) {
            send(ex, pathStatus, "<Error><Code>AccessDenied</Code></Error>");
            return;
        }
        boolean head = ex.getRequestMethod().equals("HEAD");
        if (head && refuseHead.get()) {
            send(ex, 405, "");
            return;
        }
        Path file = root.resolve(rel).normalize();
        if (!file.startsWith(root) || !Files.exists(file)) {
            send(ex, 404, "not found");
            return;
        }
        if (Files.isDirectory(file)) {
            if (!rel.isEmpty() && !rel.endsWith("/")) {
                ex.getResponseHeaders().set("Location", "/data/" + rel + "/");
                send(ex, 301, "moved");
            } else {
                send(ex, 200, "<html>directory listing</html>");
            }
            return;
        }
        byte[] bytes = Files.readAllBytes(file);
        long size = bytes.length;
        if (head) {
            ex.getResponseHeaders().set("Content-Length", Long.toString(size));
            ex.sendResponseHeaders(200, -1);
            return;
        }
        if (range == null || ignoreRanges.get()) {
            body(ex, 200, bytes, 0, bytes.length);
            return;
        }
        Matcher m = RANGE.matcher(range);
        if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty())) {
            body(ex, 200, bytes, 0, bytes.length);
            return;
        }
        long first;
        long last;
        if (m.group(1).isEmpty()) {
            long suffix = Long.parseLong(m.group(2));
            if (suffix == 0) {
                unsatisfiable(ex, size);
                return;
            }
            first = Math.max(0, size - suffix);
            last = size - 1;
        } else {
            first = Long.parseLong(m.group(1));
            last = m.group(2).isEmpty() ? size - 1 : Math.min(size - 1, Long.parseLong(m.group(2)));
            if (first >= size || last < first) {
                unsatisfiable(ex, size);
                return;
            }
        }
        ex.getResponseHeaders().set("Content-Range", "bytes " + first + "-" + last + "/" + size);
        body(ex, 206, bytes, (int) first, (int) (last - first + 1));
    }

    private static void unsatisfiable(HttpExchange ex, long size) throws IOException {
        ex.getResponseHeaders().set("Content-Range", "bytes */" + size);
        send(ex, 416, "");
    }

    private static void send(HttpExchange ex, int status, String text) throws IOException {
        body(ex, status, text.getBytes(), 0, text.length());
    }

    private static void body(HttpExchange ex, int status, byte[] bytes, int from, int length) throws IOException {
        if (ex.getRequestMethod().equals("HEAD")) {
            ex.sendResponseHeaders(status, -1);
            return;
        }
        ex.sendResponseHeaders(status, length == 0 ? -1 : length);
        if (length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes, from, length);
            }
        }
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        pool.shutdownNow();
    }
}
