// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.core.store.http.HttpStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Servers that lie or never stop (issue #25, items 1 and 7): a bounded read must fail with a
 * message naming the key, the size and the limit, before reading or allocating what the server
 * claims, and a wrong Content-Range must say which range came back and which was asked for.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class HostileHttpStoreTest {

    private static final long LIMIT = 1024;

    private HttpServer server;
    private ExecutorService threads;
    private HttpStore store;

    private HttpStore serve(HttpHandler handler) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "hostile-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        server.createContext("/", handler);
        server.start();
        store = HttpStore.builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/data.zarr"))
                .maxAttempts(1).requestTimeout(Duration.ofSeconds(2)).build();
        return store;
    }

    @AfterEach
    void stop() {
        if (store != null) {
            store.close();
        }
        if (server != null) {
            server.stop(0);
            threads.shutdownNow();
        }
    }

    @Test
    void hugeDeclaredContentLengthIsRefusedBeforeReading() throws IOException {
        HttpStore s = serve(ex -> {
            ex.sendResponseHeaders(200, 50_000_000_000L);
            OutputStream out = ex.getResponseBody();
            try {
                // a server about to send 50 GB: it sends a little and keeps the connection open
                out.write(new byte[4096]);
                out.flush();
                Thread.sleep(10_000);
            } catch (IOException | InterruptedException e) {
                // the client hangs up, as it should, or the test stops the server
            } finally {
                ex.close();
            }
        });
        try (Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class, () -> s.get("c/0", ByteRange.ALL, LIMIT, arena));
            assertTrue(e.getMessage().contains("50000000000"), e.getMessage());
            assertTrue(e.getMessage().contains("limit of 1024"), e.getMessage());
            assertTrue(e.getMessage().contains("\"c/0\""), e.getMessage());
            assertEquals("c/0", e.key());
        }
    }

    @Test
    void endlessStreamIsCutOffAtTheLimit() throws IOException {
        HttpStore s = serve(ex -> {
            ex.sendResponseHeaders(200, 0); // chunked: no Content-Length
            byte[] piece = new byte[8192];
            try (OutputStream out = ex.getResponseBody()) {
                while (!Thread.currentThread().isInterrupted()) {
                    out.write(piece);
                }
            } catch (IOException e) {
                // the client hangs up at the limit
            }
        });
        try (Arena arena = Arena.ofConfined()) {
            long t0 = System.nanoTime();
            StoreException e = assertThrows(StoreException.class, () -> s.get("c/0", ByteRange.ALL, LIMIT, arena));
            assertTrue(e.getMessage().contains("limit of 1024"), e.getMessage());
            assertTrue(e.getMessage().contains("without Content-Length"), e.getMessage());
            // cut off at the limit, not by the two-second timeout
            assertTrue(System.nanoTime() - t0 < 1_500_000_000L, "took " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        }
    }

    @Test
    void endlessStreamToARangeIgnoringServerIsCutOffToo() throws IOException {
        HttpStore s = serve(ex -> {
            ex.sendResponseHeaders(200, 0);
            byte[] piece = new byte[8192];
            try (OutputStream out = ex.getResponseBody()) {
                while (!Thread.currentThread().isInterrupted()) {
                    out.write(piece);
                }
            } catch (IOException e) {
                // the client hangs up at the limit
            }
        });
        try (Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class,
                    () -> s.get("c/0", ByteRange.suffix(16), LIMIT, arena));
            assertTrue(e.getMessage().contains("limit of 1024"), e.getMessage());
        }
    }

    @Test
    void spanFromAnEndlessRangeIgnoringServerDropsTheBytesBeforeIt() throws IOException {
        HttpStore s = serve(ex -> {
            ex.sendResponseHeaders(200, 0);
            byte[] piece = new byte[8192];
            for (int i = 0; i < piece.length; i++) {
                piece[i] = (byte) i;
            }
            try (OutputStream out = ex.getResponseBody()) {
                while (!Thread.currentThread().isInterrupted()) {
                    out.write(piece);
                }
            } catch (IOException e) {
                // the client hangs up once it has the range
            }
        });
        try (Arena arena = Arena.ofConfined()) {
            // 100 000 bytes before the range, far more than the limit: dropped, not held
            MemorySegment got = s.get("c/0", ByteRange.of(100_000, 16), LIMIT, arena).orElseThrow();
            assertEquals(16, got.byteSize());
            assertEquals((byte) (100_000 % 8192), got.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
        }
    }

    @Test
    void rangesFromAShortStreamedBodyThatIgnoresRangesFitOrFailAsTheContractSays() throws IOException {
        HttpStore s = serve(ex -> {
            ex.sendResponseHeaders(200, 0); // no Content-Length, Range ignored
            try (OutputStream out = ex.getResponseBody()) {
                out.write(new byte[]{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
            }
        });
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment got = s.get("c/0", ByteRange.of(4, 3), LIMIT, arena).orElseThrow();
            assertEquals(3, got.byteSize());
            assertEquals(4, got.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
            assertEquals(6, s.get("c/0", ByteRange.from(4), LIMIT, arena).orElseThrow().byteSize());
            assertEquals(2, s.get("c/0", ByteRange.suffix(2), LIMIT, arena).orElseThrow().byteSize());
            for (ByteRange bad : List.of(ByteRange.of(5, 10), ByteRange.of(20, 4))) {
                StoreException e = assertThrows(StoreException.class, () -> s.get("c/0", bad, LIMIT, arena));
                assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
            }
        }
    }

    @Test
    void boundedReadWithinTheLimitStillWorks() throws IOException {
        byte[] value = "{\"zarr_format\":3}".getBytes();
        HttpStore s = serve(ex -> {
            ex.sendResponseHeaders(200, 0); // streamed, but short
            try (OutputStream out = ex.getResponseBody()) {
                out.write(value);
            }
        });
        try (Arena arena = Arena.ofConfined()) {
            Optional<MemorySegment> got = s.get("zarr.json", ByteRange.ALL, value.length, arena);
            assertEquals(value.length, got.orElseThrow().byteSize());
        }
    }

    @Test
    void serverThatStallsMidBodyTimesOut() throws IOException {
        store = null;
        serve(ex -> {
            ex.sendResponseHeaders(200, 100);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(new byte[10]);
                out.flush();
                Thread.sleep(15_000);
            } catch (IOException | InterruptedException e) {
                // stopped by the test
            }
        });
        store.close();
        HttpStore s = HttpStore.builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/data.zarr"))
                .maxAttempts(1).requestTimeout(Duration.ofMillis(300)).build();
        store = s;
        try (Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class, () -> s.get("c/0", ByteRange.ALL, LIMIT, arena));
            assertTrue(e.getMessage().contains("timed out"), e.getMessage());
        }
    }

    @Test
    void sizeOfAnEndlessBodyTimesOutInsteadOfCountingForever() throws IOException {
        serve(ex -> {
            if (ex.getRequestMethod().equals("HEAD")) {
                ex.sendResponseHeaders(405, -1); // no HEAD: the store falls back to a GET it counts
                ex.close();
                return;
            }
            ex.sendResponseHeaders(200, 0);
            byte[] piece = new byte[8192];
            try (OutputStream out = ex.getResponseBody()) {
                while (!Thread.currentThread().isInterrupted()) {
                    out.write(piece);
                }
            } catch (IOException e) {
                // the client hangs up at its deadline
            }
        });
        store.close();
        HttpStore s = HttpStore.builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/data.zarr"))
                .maxAttempts(1).requestTimeout(Duration.ofMillis(500)).build();
        store = s;
        StoreException e = assertThrows(StoreException.class, () -> s.size("c/0"));
        assertTrue(e.getMessage().contains("timed out"), e.getMessage());
    }

    @Test
    void wrongContentRangeNamesBothRanges() throws IOException {
        HttpStore s = serve(ex -> answer206(ex, "bytes 10-19/100"));
        try (Arena arena = Arena.ofConfined()) {
            StoreException e = assertThrows(StoreException.class,
                    () -> s.get("c/0", ByteRange.of(0, 10), LIMIT, arena));
            String m = e.getMessage();
            assertTrue(m.contains("different range than the one asked for"), m);
            assertTrue(m.contains("asked for bytes 0-9"), m);
            assertTrue(m.contains("returned bytes 10-19"), m);
        }
    }

    private static void answer206(HttpExchange ex, String contentRange) throws IOException {
        ex.getResponseHeaders().set("Content-Range", contentRange);
        ex.sendResponseHeaders(206, 10);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(new byte[10]);
        }
    }
}
