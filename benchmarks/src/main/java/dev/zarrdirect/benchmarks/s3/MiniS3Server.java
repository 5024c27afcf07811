// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.benchmarks.s3;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A read-only, anonymous S3 endpoint over a local directory, for benchmarks: the bucket
 * {@code BUCKET} is the directory, path style ({@code http://127.0.0.1:PORT/BUCKET/key}). It answers
 * {@code GET} and {@code HEAD} of objects with {@code Range} ({@code a-b}, {@code a-}, {@code -n})
 * and {@code ETag}, {@code HEAD} of the bucket, and {@code ListObjectsV2} (prefix, delimiter, one
 * page of up to 1000 keys with continuation). Anything else is 501. Bodies are copied from the file
 * in 1 MiB steps on a bounded pool of threads; nothing is cached beyond the OS's page cache.
 *
 * <p>Usage: {@code MiniS3Server DIR BUCKET [PORT=0] [THREADS=64]}; prints
 * {@code endpoint http://127.0.0.1:PORT} and serves until killed.
 */
public final class MiniS3Server implements AutoCloseable {

    private static final Pattern RANGE = Pattern.compile("bytes=(\\d*)-(\\d*)");
    private static final int COPY = 1 << 20;

    private final Path root;
    private final String bucket;
    private final HttpServer server;
    private final ExecutorService pool;

    /** Serves {@code root} as {@code bucket} on 127.0.0.1:{@code port} (0: any free port). */
    public MiniS3Server(Path root, String bucket, int port, int threads) throws IOException {
        this.root = root.toAbsolutePath().normalize();
        this.bucket = bucket;
        this.pool = Executors.newFixedThreadPool(threads);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
        server.setExecutor(pool);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The endpoint: {@code http://127.0.0.1:PORT}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: MiniS3Server DIR BUCKET [PORT] [THREADS]");
            System.exit(2);
        }
        MiniS3Server s = new MiniS3Server(Path.of(args[0]), args[1], args.length > 2 ? Integer.parseInt(args[2]) : 0,
                args.length > 3 ? Integer.parseInt(args[3]) : 64);
        System.out.println("endpoint " + s.endpoint());
        System.out.flush();
        Thread.currentThread().join();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            ex.getRequestBody().transferTo(OutputStream.nullOutputStream());
            String method = ex.getRequestMethod();
            String rawPath = ex.getRequestURI().getRawPath();
            String path = URLDecoder.decode(rawPath.replace("+", "%2B"), StandardCharsets.UTF_8);
            String prefix = "/" + bucket;
            if (!path.equals(prefix) && !path.equals(prefix + "/") && !path.startsWith(prefix + "/")) {
                error(ex, 404, "NoSuchBucket", "no bucket " + path);
                return;
            }
            String key = path.length() <= prefix.length() + 1 ? "" : path.substring(prefix.length() + 1);
            if (key.isEmpty()) {
                if (method.equals("HEAD")) {
                    ex.getResponseHeaders().set("x-amz-bucket-region", "us-east-1");
                    ex.sendResponseHeaders(200, -1);
                } else if (method.equals("GET")) {
                    list(ex, query(ex.getRequestURI().getRawQuery()));
                } else {
                    error(ex, 501, "NotImplemented", method + " of a bucket");
                }
                return;
            }
            if (!method.equals("GET") && !method.equals("HEAD")) {
                error(ex, 501, "NotImplemented", "read-only server");
                return;
            }
            Path file = root.resolve(key).normalize();
            if (!file.startsWith(root) || key.contains("\\")) {
                error(ex, 400, "InvalidArgument", "bad key");
                return;
            }
            object(ex, method, file);
        }
    }

    private void object(HttpExchange ex, String method, Path file) throws IOException {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            error(ex, 404, "NoSuchKey", "The specified key does not exist.");
            return;
        }
        if (!attrs.isRegularFile()) {
            error(ex, 404, "NoSuchKey", "The specified key does not exist.");
            return;
        }
        long size = attrs.size();
        long start = 0;
        long end = size; // exclusive
        String range = ex.getRequestHeaders().getFirst("Range");
        boolean partial = false;
        if (range != null) {
            Matcher m = RANGE.matcher(range.strip());
            if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty())) {
                error(ex, 400, "InvalidRange", "bad range " + range);
                return;
            }
            if (m.group(1).isEmpty()) {
                start = Math.max(0, size - Long.parseLong(m.group(2)));
            } else {
                start = Long.parseLong(m.group(1));
                end = m.group(2).isEmpty() ? size : Math.min(size, Long.parseLong(m.group(2)) + 1);
            }
            if (start >= size || start >= end) {
                ex.getResponseHeaders().set("Content-Range", "bytes */" + size);
                error(ex, 416, "InvalidRange", "The requested range is not satisfiable");
                return;
            }
            partial = true;
        }
        var h = ex.getResponseHeaders();
        h.set("ETag", "\"" + Long.toHexString(size) + "-" + Long.toHexString(attrs.lastModifiedTime().toMillis()) + "\"");
        h.set("Last-Modified", java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
                attrs.lastModifiedTime().toInstant().atZone(java.time.ZoneOffset.UTC)));
        h.set("Content-Type", "application/octet-stream");
        h.set("Accept-Ranges", "bytes");
        if (partial) {
            h.set("Content-Range", "bytes " + start + "-" + (end - 1) + "/" + size);
        }
        long length = end - start;
        int status = partial ? 206 : 200;
        if (method.equals("HEAD")) {
            h.set("Content-Length", Long.toString(length));
            ex.sendResponseHeaders(status, -1);
            return;
        }
        ex.sendResponseHeaders(status, length == 0 ? -1 : length);
        if (length == 0) {
            return;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            OutputStream out = ex.getResponseBody();
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(COPY, length));
            long pos = start;
            while (pos < end) {
                buf.clear().limit((int) Math.min(buf.capacity(), end - pos));
                int n = ch.read(buf, pos);
                if (n < 0) {
                    break;
                }
                out.write(buf.array(), 0, n);
                pos += n;
            }
        }
    }

    private void list(HttpExchange ex, Map<String, String> q) throws IOException {
        String prefix = q.getOrDefault("prefix", "");
        String delimiter = q.get("delimiter");
        String after = q.getOrDefault("continuation-token", q.getOrDefault("start-after", ""));
        int max = Math.min(1000, Integer.parseInt(q.getOrDefault("max-keys", "1000")));
        TreeSet<String> keys = new TreeSet<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(Files::isRegularFile).forEach(p -> {
                String k = root.relativize(p).toString().replace(java.io.File.separatorChar, '/');
                if (k.startsWith(prefix)) {
                    keys.add(k);
                }
            });
        }
        List<String> contents = new ArrayList<>();
        TreeSet<String> common = new TreeSet<>();
        String last = null;
        boolean truncated = false;
        for (String k : keys.tailSet(after, false)) {
            String entry = k;
            if (delimiter != null) {
                int i = k.indexOf(delimiter, prefix.length());
                if (i >= 0) {
                    entry = k.substring(0, i + delimiter.length());
                    if (common.contains(entry)) {
                        continue;
                    }
                }
            }
            if (contents.size() + common.size() >= max) {
                truncated = true;
                break;
            }
            if (entry.equals(k)) {
                contents.add(k);
            } else {
                common.add(entry);
            }
            last = k;
        }
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult"
                + " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>").append(esc(bucket)).append("</Name><Prefix>")
                .append(esc(prefix)).append("</Prefix><KeyCount>").append(contents.size() + common.size())
                .append("</KeyCount><MaxKeys>").append(max).append("</MaxKeys><IsTruncated>").append(truncated)
                .append("</IsTruncated>");
        if (truncated) {
            xml.append("<NextContinuationToken>").append(esc(last)).append("</NextContinuationToken>");
        }
        for (String k : contents) {
            long size = Files.size(root.resolve(k));
            xml.append("<Contents><Key>").append(esc(k)).append("</Key><Size>").append(size)
                    .append("</Size><StorageClass>STANDARD</StorageClass></Contents>");
        }
        for (String p : common) {
            xml.append("<CommonPrefixes><Prefix>").append(esc(p)).append("</Prefix></CommonPrefixes>");
        }
        xml.append("</ListBucketResult>");
        byte[] body = xml.toString().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/xml");
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw == null) {
            return q;
        }
        for (String part : raw.split("&")) {
            int eq = part.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
            q.put(k, v);
        }
        return q;
    }

    private static void error(HttpExchange ex, int status, String code, String message) throws IOException {
        byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>"
                + esc(message) + "</Message></Error>").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/xml");
        if (ex.getRequestMethod().equals("HEAD")) {
            ex.sendResponseHeaders(status, -1);
            return;
        }
        ex.sendResponseHeaders(status, body.length);
        ex.getResponseBody().write(body);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
