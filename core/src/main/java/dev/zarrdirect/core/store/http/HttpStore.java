// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store.http;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.ReadBound;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreKeys;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A read-only {@link Store} over HTTP(S): key {@code t2m/c/0/3/1} is the URL
 * {@code <base>/t2m/c/0/3/1}, as static file servers, object stores' public endpoints and CDNs
 * serve Zarr hierarchies.
 *
 * <h2>Reads</h2>
 * {@link #get} sends one {@code GET} per call, with a {@code Range} header for partial reads
 * ({@code bytes=a-b}, a suffix {@code bytes=-n}, or an open end {@code bytes=a-}). A {@code 206}
 * answer is checked against its {@code Content-Range}; a server that ignores {@code Range} and
 * answers {@code 200} with the whole value still works (the range is cut out of the body as it
 * streams past), and the store logs a warning once, since each read then costs the whole value.
 * Bodies are copied from the connection into the caller's segment in 64 KiB steps on the calling
 * thread, so that confined arenas work as allocators. A bounded read
 * ({@link Store#get(String, ByteRange, long, SegmentAllocator)}) refuses a larger
 * {@code Content-Length} before reading the body, and stops reading a body without one at the
 * limit: a server that streams without end fails at once rather than filling the heap.
 * {@link #size} sends {@code HEAD}, falling back
 * to {@code GET} of one byte where a server refuses {@code HEAD}.
 *
 * <h2>Status codes</h2>
 * <ul>
 *   <li>{@code 404} and {@code 410}: the key is missing ({@link #get} returns empty, {@link #size}
 *       -1). A URL that redirects to the same path with a trailing {@code /} is a directory, also
 *       missing.</li>
 *   <li>{@code 416}: the range does not fit, reported as the {@link Store} contract says.</li>
 *   <li>{@code 401} and {@code 403}: {@link StoreException} naming the URL and the status, with a
 *       hint on credentials (object stores answer 403 for missing keys when listing is not
 *       allowed).</li>
 *   <li>{@code 408}, {@code 429}, {@code 5xx} (but 501 and 505), timeouts and I/O errors: retried
 *       with exponential backoff and jitter, honouring {@code Retry-After} up to the largest delay;
 *       once the attempts are spent, a {@link StoreException} names the URL, the number of attempts
 *       and what each one got.</li>
 *   <li>Any other status: {@link StoreException} with the status and the start of the body.</li>
 * </ul>
 *
 * <h2>Timeouts and concurrency</h2>
 * {@link Builder#requestTimeout} bounds a whole exchange, headers and body, per attempt: set it to
 * cover the largest value at the slowest rate you accept. At most
 * {@link Builder#maxConcurrentRequests} requests are in flight per store; callers beyond that wait.
 *
 * <h2>What HTTP cannot do</h2>
 * HTTP has no listing: {@link #list} and {@link #listDir} throw {@link StoreException} saying so;
 * arrays and groups are opened by path, and a hierarchy with consolidated metadata still describes
 * its members. {@link #set} and {@link #delete} are refused: the store is read-only.
 *
 * <h2>Threads and lifetime</h2>
 * Safe for concurrent use. {@link #close()} stops the client (aborting requests in flight); closing
 * twice is harmless, and any other call after close throws {@link IllegalStateException}.
 *
 * {@snippet :
 * try (HttpStore store = HttpStore.builder(URI.create("https://example.org/era5.zarr"))
 *         .maxConcurrentRequests(16).requestTimeout(Duration.ofMinutes(2)).build();
 *      ZarrGroup root = Zarr.openGroup(store, "")) {
 *     root.members(); // needs consolidated metadata: HTTP cannot list
 * }
 * }
 */
public final class HttpStore implements Store {

    private static final System.Logger LOG = System.getLogger(HttpStore.class.getName());
    private static final Pattern CONTENT_RANGE = Pattern.compile(
            "^\\s*bytes\\s+(?:(\\d+)-(\\d+)|\\*)/(\\d+|\\*)\\s*$", Pattern.CASE_INSENSITIVE);
    private static final int COPY_BUFFER = 1 << 16;
    private static final int ERROR_BODY_PREFIX = 300;

    private final URI base;
    private final HttpClient client;
    private final Map<String, String> headers;
    private final int maxAttempts;
    private final Duration baseDelay;
    private final Duration maxDelay;
    private final Duration requestTimeout;
    private final Semaphore permits;
    private final ScheduledThreadPoolExecutor timer;
    private final String description;
    private final AtomicBoolean warnedAboutRanges = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    private HttpStore(Builder b) {
        this.base = b.base;
        this.headers = Map.copyOf(b.headers);
        this.maxAttempts = b.maxAttempts;
        this.baseDelay = b.baseDelay;
        this.maxDelay = b.maxDelay;
        this.requestTimeout = b.requestTimeout;
        this.permits = new Semaphore(b.maxConcurrentRequests);
        this.description = "HttpStore(url=" + base + ")";
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "zarr-direct-http-timeouts");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        this.client = HttpClient.newBuilder()
                .connectTimeout(b.connectTimeout)
                .followRedirects(HttpClient.Redirect.NORMAL)
                .proxy(ProxySelector.getDefault())
                .build();
    }

    /**
     * A store over {@code base} with the default settings of {@link Builder}. Nothing is sent until
     * the first read. The caller closes the store.
     *
     * @param base an absolute {@code http} or {@code https} URL without query, fragment or user
     *             info; a missing trailing {@code /} is added
     * @return the store
     * @throws IllegalArgumentException for any other URL
     * @throws NullPointerException when {@code base} is null
     */
    public static HttpStore open(URI base) {
        return builder(base).build();
    }

    /**
     * Settings for a store over {@code base}, an absolute {@code http} or {@code https} URL without
     * query, fragment or user info.
     *
     * @param base the base URL; a missing trailing {@code /} is added
     * @return a builder with every setting at its default
     * @throws IllegalArgumentException for any other URL
     * @throws NullPointerException when {@code base} is null
     */
    public static Builder builder(URI base) {
        return new Builder(base);
    }

    /**
     * Settings of an {@link HttpStore}; every one has a default, and each setter checks its value at
     * once. Not thread-safe; one builder can build any number of stores.
     */
    public static final class Builder {
        private final URI base;
        private int maxAttempts = 5;
        private Duration baseDelay = Duration.ofMillis(100);
        private Duration maxDelay = Duration.ofSeconds(10);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private Duration connectTimeout = Duration.ofSeconds(10);
        private int maxConcurrentRequests = 64;
        private final Map<String, String> headers = new LinkedHashMap<>();

        private Builder(URI base) {
            this.base = normalizeBase(base);
        }

        /**
         * Attempts per request, the first included (default 5).
         *
         * @param attempts at least 1; 1 means no retry
         * @return this builder
         * @throws IllegalArgumentException when {@code attempts} is below 1
         */
        public Builder maxAttempts(int attempts) {
            if (attempts < 1) {
                throw new IllegalArgumentException("maxAttempts is at least 1, got " + attempts);
            }
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * The delay before the second attempt, doubling for each later one, with jitter (default 100 ms).
         *
         * @param delay zero or more
         * @return this builder
         * @throws IllegalArgumentException when {@code delay} is negative
         */
        public Builder baseDelay(Duration delay) {
            this.baseDelay = nonNegative("baseDelay", delay);
            return this;
        }

        /**
         * The longest delay between attempts, {@code Retry-After} included (default 10 s).
         *
         * @param delay zero or more
         * @return this builder
         * @throws IllegalArgumentException when {@code delay} is negative
         */
        public Builder maxDelay(Duration delay) {
            this.maxDelay = nonNegative("maxDelay", delay);
            return this;
        }

        /**
         * The limit for one attempt, from sending the request to the last byte of the body (default 30 s).
         *
         * @param timeout positive
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive("requestTimeout", timeout);
            return this;
        }

        /**
         * The limit for opening a connection (default 10 s).
         *
         * @param timeout positive
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive("connectTimeout", timeout);
            return this;
        }

        /**
         * Requests in flight at once through this store (default 64); callers beyond it wait.
         *
         * @param requests at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code requests} is below 1
         */
        public Builder maxConcurrentRequests(int requests) {
            if (requests < 1) {
                throw new IllegalArgumentException("maxConcurrentRequests is at least 1, got " + requests);
            }
            this.maxConcurrentRequests = requests;
            return this;
        }

        /**
         * A header sent with every request, such as {@code Authorization}; setting a name again
         * replaces its value. Header values never appear in error messages.
         *
         * @param name  the header's name
         * @param value its value
         * @return this builder
         * @throws NullPointerException when {@code name} or {@code value} is null
         */
        public Builder header(String name, String value) {
            headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * A store with these settings. It starts an HTTP client and a daemon timer thread, which
         * {@link HttpStore#close()} stops: the caller closes the store. Nothing is sent yet.
         *
         * @return the store
         */
        public HttpStore build() {
            return new HttpStore(this);
        }

        private static Duration nonNegative(String what, Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException(what + " is negative: " + d);
            }
            return d;
        }

        private static Duration positive(String what, Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + d);
            }
            return d;
        }
    }

    private static URI normalizeBase(URI base) {
        Objects.requireNonNull(base, "base");
        String scheme = base.getScheme() == null ? "" : base.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("HttpStore needs an http:// or https:// URL, got \"" + base + "\"");
        }
        if (base.getRawAuthority() == null || base.getHost() == null) {
            throw new IllegalArgumentException("URL \"" + base + "\" names no host");
        }
        if (base.getRawUserInfo() != null) {
            throw new IllegalArgumentException("URL \"" + base + "\" carries user info; pass credentials with"
                    + " HttpStore.builder(url).header(\"Authorization\", ...) so that they stay out of messages");
        }
        if (base.getRawQuery() != null || base.getRawFragment() != null) {
            throw new IllegalArgumentException("URL \"" + base + "\" has a query or fragment; HttpStore appends"
                    + " keys to the path, so the base URL must end at its path");
        }
        String path = base.getRawPath() == null || base.getRawPath().isEmpty() ? "/" : base.getRawPath();
        if (!path.endsWith("/")) {
            path += "/";
        }
        return URI.create(scheme + "://" + base.getRawAuthority() + path);
    }

    /**
     * The base URL every key is appended to.
     *
     * @return the normalised base URL, ending in {@code /}
     */
    public URI baseUri() {
        return base;
    }

    /**
     * The URL of {@code key}: the base followed by the key, each segment percent-encoded. Sends
     * nothing.
     *
     * @param key a store key
     * @return the key's URL
     * @throws dev.zarrdirect.api.InvalidKeyException when the key is invalid
     */
    public URI uriOf(String key) {
        StoreKeys.validate(description, key);
        StringBuilder sb = new StringBuilder(base.toString());
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c == '/' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return URI.create(sb.toString());
    }

    /**
     * Whether the server ignores {@code Range} headers.
     *
     * @return true once a server answered a range request with the whole value (see the class notes)
     */
    public boolean serverIgnoresRanges() {
        return warnedAboutRanges.get();
    }

    // ---- reads ----

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(allocator, "allocator");
        URI uri = uriOf(key);
        ensureOpen();
        boolean empty = range.length() == 0 && (range.isSuffix() || range.offset() >= 0);
        boolean overflows = !range.isSuffix() && range.length() > 0 && range.offset() > Long.MAX_VALUE - range.length();
        if (empty || overflows) {
            // "bytes=a-(a-1)" and "bytes=-0" cannot be sent: the size decides.
            long size = size(key);
            if (size < 0) {
                return Optional.empty();
            }
            checkFits(key, range, size, uri, "HEAD");
            return Optional.of(allocator.allocate(0));
        }
        String rangeHeader = rangeHeader(range);
        MemorySegment[] slot = new MemorySegment[1];
        try {
            return withRetries("GET", uri, key, range, () -> getOnce(key, uri, range, rangeHeader, allocator, slot));
        } catch (Unsatisfiable u) {
            long size = u.total >= 0 ? u.total : size(key);
            if (size < 0) {
                return Optional.empty();
            }
            checkFits(key, range, size, uri, "GET (HTTP 416)");
            if (range.lengthIn(size) != 0) {
                throw new StoreException(description, key, "GET " + uri + " (key \"" + key + "\", " + range + ") in "
                        + description + " answered 416 Range Not Satisfiable, but the value has " + size
                        + " bytes, which hold the range; the server's range support is broken");
            }
            // A read starting exactly at the end: empty, though servers answer 416 for it.
            return Optional.of(allocator.allocate(0));
        }
    }

    private static String rangeHeader(ByteRange range) {
        if (range.isAll()) {
            return null;
        }
        if (range.isSuffix()) {
            return "bytes=-" + range.length();
        }
        if (range.length() < 0) {
            return "bytes=" + range.offset() + "-";
        }
        return "bytes=" + range.offset() + "-" + (range.offset() + range.length() - 1);
    }

    private Optional<MemorySegment> getOnce(String key, URI uri, ByteRange range, String rangeHeader,
            SegmentAllocator allocator, MemorySegment[] slot) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + requestTimeout.toNanos();
        HttpRequest.Builder request = request(uri).GET();
        if (rangeHeader != null) {
            request.header("Range", rangeHeader);
        }
        HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        InputStream body = response.body();
        AtomicBoolean expired = new AtomicBoolean();
        long left = Math.max(0, deadline - System.nanoTime());
        ScheduledFuture<?> watchdog = timer.schedule(() -> {
            expired.set(true);
            closeQuietly(body);
        }, left, TimeUnit.NANOSECONDS);
        try {
            int status = response.statusCode();
            HttpHeaders h = response.headers();
            String what = "GET " + uri + (rangeHeader == null ? "" : " (Range: " + rangeHeader + ")");
            switch (status) {
                case 200 -> {
                    if (isDirectory(uri, response)) {
                        return Optional.empty();
                    }
                    checkIdentityEncoding(key, uri, range, h);
                    OptionalLong contentLength = h.firstValueAsLong("Content-Length");
                    if (contentLength.isPresent() && rangeHeader == null) {
                        // Refused here, before a byte of a 50 GB body is read or a byte allocated.
                        ReadBound.check(allocator, contentLength.getAsLong(), what + " declares a Content-Length that");
                    }
                    if (rangeHeader == null) {
                        if (contentLength.isPresent()) {
                            MemorySegment dst = allocateOnce(allocator, slot, contentLength.getAsLong());
                            readFully(body, dst);
                            return Optional.of(dst);
                        }
                        byte[] all = readAtMost(key, what, body, ReadBound.maxBytesOf(allocator));
                        MemorySegment dst = allocateOnce(allocator, slot, all.length);
                        MemorySegment.copy(all, 0, dst, ValueLayout.JAVA_BYTE, 0, all.length);
                        return Optional.of(dst);
                    }
                    warnRangesIgnored(what);
                    return Optional.of(sliceWholeBody(key, uri, what, range, body, contentLength, allocator, slot));
                }
                case 206 -> {
                    checkIdentityEncoding(key, uri, range, h);
                    return Optional.of(readPartial(key, uri, range, what, h, body, allocator, slot));
                }
                case 404, 410 -> {
                    return Optional.empty();
                }
                case 416 -> {
                    long total = h.firstValue("Content-Range").map(HttpStore::totalOf).orElse(-1L);
                    throw new Unsatisfiable(total);
                }
                default -> throw failure(status, "GET", uri, key, range, h, body);
            }
        } catch (IOException e) {
            if (expired.get()) {
                throw new HttpTimeoutException("no complete response within " + millis(requestTimeout));
            }
            throw e;
        } finally {
            watchdog.cancel(false);
            closeQuietly(body);
        }
    }

    private MemorySegment readPartial(String key, URI uri, ByteRange range, String what, HttpHeaders h,
            InputStream body, SegmentAllocator allocator, MemorySegment[] slot) throws IOException {
        String contentRange = h.firstValue("Content-Range").orElse(null);
        Matcher m = contentRange == null ? null : CONTENT_RANGE.matcher(contentRange);
        if (m == null || !m.matches() || m.group(1) == null) {
            throw new StoreException(description, key, what + " for key \"" + key + "\" in " + description
                    + " answered 206 with Content-Range " + (contentRange == null ? "missing" : "\"" + contentRange
                    + "\"") + "; expected \"bytes first-last/total\"");
        }
        long first = Long.parseLong(m.group(1));
        long last = Long.parseLong(m.group(2));
        long total = m.group(3).equals("*") ? -1 : Long.parseLong(m.group(3));
        if (total >= 0) {
            checkFits(key, range, total, uri, "GET (Content-Range " + contentRange + ")");
        }
        long start = range.isSuffix() ? (total >= 0 ? total - range.length() : last + 1 - range.length())
                : range.offset();
        long length = total >= 0 ? range.lengthIn(total) : range.length() >= 0 ? range.length() : last + 1 - first;
        if (first != start || last - first + 1 != length) {
            if (total < 0 && last - first + 1 < length) {
                throw new StoreException(description, key, "range " + range + " does not fit in key \"" + key
                        + "\" (length unknown, at least " + (last + 1) + ") in " + description + ": " + what
                        + " answered Content-Range " + contentRange);
            }
            throw new StoreException(description, key, what + " for key \"" + key + "\" in " + description
                    + " returned a different range than the one asked for: asked for bytes " + start + "-"
                    + (start + length - 1) + " (" + range + "), the server returned bytes " + first + "-" + last
                    + " (Content-Range \"" + contentRange + "\"); the server's range support is broken");
        }
        MemorySegment dst = allocateOnce(allocator, slot, length);
        readFully(body, dst);
        return dst;
    }

    /** A {@code 200} answer to a range request: cut the range out of the whole value. */
    private MemorySegment sliceWholeBody(String key, URI uri, String what, ByteRange range, InputStream body,
            OptionalLong contentLength, SegmentAllocator allocator, MemorySegment[] slot) throws IOException {
        if (contentLength.isEmpty() && !range.isSuffix()) {
            // The bytes before the range are dropped as they pass, and the range read up to the
            // limit: a server streaming without end costs no memory here, only time, which the
            // request timeout bounds.
            long skipped = discard(body, range.offset());
            if (skipped < range.offset()) {
                checkFits(key, range, skipped, uri, "GET");
            }
            if (range.length() < 0) {
                byte[] rest = readAtMost(key, what, body, ReadBound.maxBytesOf(allocator));
                MemorySegment dst = allocateOnce(allocator, slot, rest.length);
                MemorySegment.copy(rest, 0, dst, ValueLayout.JAVA_BYTE, 0, rest.length);
                return dst;
            }
            MemorySegment dst = allocateOnce(allocator, slot, range.length());
            long got = readUpTo(body, dst);
            if (got < range.length()) {
                checkFits(key, range, range.offset() + got, uri, "GET");
            }
            return dst;
        }
        if (contentLength.isEmpty()) {
            // A suffix needs the whole value, which must then fit in the limit.
            byte[] all = readAtMost(key, what, body, ReadBound.maxBytesOf(allocator));
            checkFits(key, range, all.length, uri, "GET");
            long length = range.lengthIn(all.length);
            MemorySegment dst = allocateOnce(allocator, slot, length);
            MemorySegment.copy(all, (int) range.start(all.length), dst, ValueLayout.JAVA_BYTE, 0, (int) length);
            return dst;
        }
        long total = contentLength.getAsLong();
        checkFits(key, range, total, uri, "GET");
        body.skipNBytes(range.start(total));
        MemorySegment dst = allocateOnce(allocator, slot, range.lengthIn(total));
        readFully(body, dst);
        return dst;
    }

    private void warnRangesIgnored(String what) {
        if (warnedAboutRanges.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, "{0}: the server ignores Range requests ({1} answered 200 with the"
                    + " whole value); partial reads download whole values and cut them, which costs bandwidth",
                    description, what);
        }
    }

    @Override
    public long size(String key) {
        URI uri = uriOf(key);
        ensureOpen();
        OptionalLong head = withRetries("HEAD", uri, key, null, () -> headOnce(key, uri));
        if (head.isPresent()) {
            return head.getAsLong();
        }
        // No HEAD (or no Content-Length): a one-byte GET tells the size through Content-Range.
        return withRetries("GET", uri, key, ByteRange.of(0, 1), () -> sizeByRangeOnce(key, uri));
    }

    private OptionalLong headOnce(String key, URI uri) throws IOException, InterruptedException {
        HttpResponse<Void> response = client.send(request(uri).method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.discarding());
        int status = response.statusCode();
        return switch (status) {
            case 200 -> isDirectory(uri, response) ? OptionalLong.of(-1)
                    : response.headers().firstValueAsLong("Content-Length");
            case 404, 410 -> OptionalLong.of(-1);
            case 405, 501 -> OptionalLong.empty();
            default -> throw failure(status, "HEAD", uri, key, null, response.headers(), null);
        };
    }

    private long sizeByRangeOnce(String key, URI uri) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + requestTimeout.toNanos();
        HttpResponse<InputStream> response = client.send(request(uri).GET().header("Range", "bytes=0-0").build(),
                HttpResponse.BodyHandlers.ofInputStream());
        // The request's timeout ends with the headers: a body counted below that never ends would
        // hang this call, so the body is closed at the deadline, as for get.
        AtomicBoolean expired = new AtomicBoolean();
        ScheduledFuture<?> watchdog = timer.schedule(() -> {
            expired.set(true);
            closeQuietly(response.body());
        }, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        try (InputStream body = response.body()) {
            int status = response.statusCode();
            HttpHeaders h = response.headers();
            switch (status) {
                case 206, 416 -> {
                    long total = h.firstValue("Content-Range").map(HttpStore::totalOf).orElse(-1L);
                    if (total < 0) {
                        throw new StoreException(description, key, "cannot tell the size of key \"" + key + "\" in "
                                + description + ": GET " + uri + " (Range: bytes=0-0) answered " + status
                                + " without a total length in Content-Range, and HEAD gave no Content-Length");
                    }
                    return total;
                }
                case 200 -> {
                    if (isDirectory(uri, response)) {
                        return -1;
                    }
                    OptionalLong length = h.firstValueAsLong("Content-Length");
                    return length.isPresent() ? length.getAsLong() : body.transferTo(DiscardingStream.INSTANCE);
                }
                case 404, 410 -> {
                    return -1;
                }
                default -> throw failure(status, "GET", uri, key, ByteRange.of(0, 1), h, body);
            }
        } catch (IOException e) {
            if (expired.get()) {
                throw new HttpTimeoutException("no complete response within " + millis(requestTimeout));
            }
            throw e;
        } finally {
            watchdog.cancel(false);
        }
    }

    /** Counts what is written to it and drops it. */
    private static final class DiscardingStream extends java.io.OutputStream {
        static final DiscardingStream INSTANCE = new DiscardingStream();

        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b, int off, int len) {
        }
    }

    // ---- what HTTP cannot do ----

    @Override
    public void set(String key, MemorySegment value) {
        Objects.requireNonNull(value, "value");
        StoreKeys.validate(description, key);
        ensureOpen();
        throw readOnly(key, "set");
    }

    @Override
    public void delete(String key) {
        StoreKeys.validate(description, key);
        ensureOpen();
        throw readOnly(key, "delete");
    }

    private StoreException readOnly(String key, String operation) {
        return new StoreException(description, key, "cannot " + operation + " key \"" + key + "\": " + description
                + " is read-only; write to a FileSystemStore or ZipStore and publish that instead");
    }

    @Override
    public List<String> list(String prefix) {
        StoreKeys.validatePrefix(description, prefix);
        ensureOpen();
        throw noListing(prefix, "list keys under");
    }

    @Override
    public List<String> listDir(String prefix) {
        String dirPrefix = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
        StoreKeys.validatePrefix(description, dirPrefix);
        ensureOpen();
        throw noListing(dirPrefix, "list the directory");
    }

    private StoreException noListing(String prefix, String operation) {
        return new StoreException(description, prefix, "cannot " + operation + " \"" + prefix + "\" in "
                + description + ": HTTP has no listing operation (listing is unsupported by HttpStore); open arrays"
                + " and groups by their path, or use a hierarchy with consolidated metadata (.zmetadata), which"
                + " describes its members without a listing");
    }

    @Override
    public boolean isReadOnly() {
        return true;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            client.shutdownNow();
            timer.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return description;
    }

    // ---- the retry loop ----

    private interface Exchange<T> {
        T run() throws IOException, InterruptedException;
    }

    /** An answer worth another attempt: a status such as 503, with the server's Retry-After if any. */
    private static final class RetryableStatus extends IOException {
        private static final long serialVersionUID = 1L;
        final long retryAfterMillis;

        RetryableStatus(String message, long retryAfterMillis) {
            super(message);
            this.retryAfterMillis = retryAfterMillis;
        }
    }

    /** A 416 answer, with the value's length when the server gave it (else -1). */
    private static final class Unsatisfiable extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final long total;

        Unsatisfiable(long total) {
            super(null, null, false, false);
            this.total = total;
        }
    }

    private <T> T withRetries(String method, URI uri, String key, ByteRange range, Exchange<T> exchange) {
        List<String> failures = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            long retryAfter = -1;
            try {
                permits.acquire();
                try {
                    return exchange.run();
                } finally {
                    permits.release();
                }
            } catch (RetryableStatus e) {
                failures.add(e.getMessage());
                retryAfter = e.retryAfterMillis;
            } catch (HttpConnectTimeoutException e) {
                failures.add("connect timed out (" + e.getMessage() + ")");
            } catch (HttpTimeoutException e) {
                failures.add("timed out after " + millis(requestTimeout));
            } catch (IOException e) {
                ensureOpen();
                failures.add(describeFailure(e, uri));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StoreException(description, key, "interrupted during " + method + " " + uri
                        + " (key \"" + key + "\"" + (range == null ? "" : ", " + range) + ") in " + description
                        + " after " + attempt + " attempt(s)", e);
            }
            if (attempt >= maxAttempts) {
                throw new StoreException(description, key, method + " " + uri + " (key \"" + key + "\""
                        + (range == null ? "" : ", " + range) + ") in " + description + " failed after " + attempt
                        + (attempt == 1 ? " attempt" : " attempts") + ": " + summarize(failures));
            }
            sleep(backoff(attempt, retryAfter), method, uri, key);
        }
    }

    /**
     * What went wrong with one attempt, in words: the JDK's connection failures often carry no
     * message ("java.net.ConnectException"), which says nothing about which server or why.
     */
    static String describeFailure(IOException e, URI uri) {
        String where = uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : "");
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (e instanceof java.net.ConnectException || root instanceof java.net.ConnectException) {
            return "connection refused by " + where + " (is the server running, and is the port right?)";
        }
        if (root instanceof java.net.UnknownHostException) {
            return "unknown host " + uri.getHost() + " (check the URL and the network)";
        }
        String msg = e.getMessage() != null ? e.getMessage() : root.getMessage();
        return e.getClass().getSimpleName() + (msg == null ? "" : ": " + msg) + " (" + where + ")";
    }

    /** The failures of every attempt, identical ones counted once: "x (5 times)" or "a; then b". */
    static String summarize(List<String> failures) {
        if (failures.stream().distinct().count() == 1) {
            return failures.getFirst() + (failures.size() > 1 ? " (all " + failures.size() + " attempts)" : "");
        }
        return "last: " + failures.getLast() + "; all: " + String.join("; ", failures);
    }

    /** Full delay doubling from the base, capped, then jittered into its upper half. */
    private long backoff(int attempt, long retryAfterMillis) {
        long base = baseDelay.toMillis();
        long max = maxDelay.toMillis();
        long delay = attempt - 1 >= 62 || base > (max >> Math.min(62, attempt - 1))
                ? max : Math.min(max, base << (attempt - 1));
        long jittered = delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
        return retryAfterMillis > jittered ? Math.min(retryAfterMillis, max) : jittered;
    }

    private void sleep(long millis, String method, URI uri, String key) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(description, key, "interrupted while waiting to retry " + method + " " + uri
                    + " in " + description, e);
        }
        ensureOpen();
    }

    /** The exception for a status that is not success, missing or 416: retryable or final. */
    private IOException failure(int status, String method, URI uri, String key, ByteRange range, HttpHeaders h,
            InputStream body) {
        String statusText = "HTTP " + status + reason(status);
        String where = method + " " + uri + " (key \"" + key + "\"" + (range == null ? "" : ", " + range) + ") in "
                + description;
        if (status == 408 || status == 429 || (status >= 500 && status != 501 && status != 505)) {
            long retryAfter = h.firstValueAsLong("Retry-After").orElse(-1);
            return new RetryableStatus(statusText, retryAfter < 0 ? -1 : retryAfter * 1000);
        }
        String detail = bodyPrefix(body);
        if (status == 401 || status == 403) {
            throw new StoreException(description, key, statusText + " for " + where + ": the server refuses access;"
                    + " pass credentials with HttpStore.builder(url).header(\"Authorization\", ...), or check that the"
                    + " URL is public (object stores answer 403 rather than 404 for a missing key when listing is"
                    + " not allowed)" + detail);
        }
        throw new StoreException(description, key, statusText + " for " + where + detail);
    }

    private static String bodyPrefix(InputStream body) {
        if (body == null) {
            return "";
        }
        try {
            byte[] bytes = body.readNBytes(ERROR_BODY_PREFIX);
            String text = new String(bytes, StandardCharsets.UTF_8).strip().replaceAll("\\s+", " ");
            return text.isEmpty() ? "" : "; the server said: " + text + (bytes.length == ERROR_BODY_PREFIX ? "…" : "");
        } catch (IOException e) {
            return "";
        }
    }

    private static String reason(int status) {
        String text = switch (status) {
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 501 -> "Not Implemented";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> "";
        };
        return text.isEmpty() ? "" : " " + text;
    }

    // ---- helpers ----

    private HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(requestTimeout).header("Accept-Encoding", "identity");
        headers.forEach(b::header);
        return b;
    }

    /** A redirect from {@code .../name} to {@code .../name/} means a directory, not a value. */
    private static boolean isDirectory(URI requested, HttpResponse<?> response) {
        String path = response.uri().getRawPath();
        return path != null && path.endsWith("/") && !requested.getRawPath().endsWith("/");
    }

    private void checkIdentityEncoding(String key, URI uri, ByteRange range, HttpHeaders h) {
        String encoding = h.firstValue("Content-Encoding").orElse("identity").trim();
        if (!encoding.equalsIgnoreCase("identity")) {
            throw new StoreException(description, key, "GET " + uri + " (key \"" + key + "\", " + range + ") in "
                    + description + " answered with Content-Encoding " + encoding + " although HttpStore asks for"
                    + " identity; the server must serve the stored bytes unchanged");
        }
    }

    private void checkFits(String key, ByteRange range, long size, URI uri, String how) {
        if (!range.fits(size)) {
            throw new StoreException(description, key, "range " + range + " does not fit in key \"" + key
                    + "\" (length " + size + ") in " + description + " (" + how + " " + uri + ")");
        }
    }

    private static long totalOf(String contentRange) {
        Matcher m = CONTENT_RANGE.matcher(contentRange);
        return m.matches() && !m.group(3).equals("*") ? Long.parseLong(m.group(3)) : -1;
    }

    /** Reuses the segment of an earlier attempt of the same length, so that retries do not pile up memory. */
    private static MemorySegment allocateOnce(SegmentAllocator allocator, MemorySegment[] slot, long length) {
        if (slot[0] == null || slot[0].byteSize() != length) {
            slot[0] = allocator.allocate(length);
        }
        return slot[0];
    }

    private static void readFully(InputStream in, MemorySegment dst) throws IOException {
        long length = dst.byteSize();
        byte[] buffer = new byte[(int) Math.clamp(length, 1, COPY_BUFFER)];
        long off = 0;
        while (off < length) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, length - off));
            if (n < 0) {
                throw new EOFException("the response body ended after " + off + " of " + length + " bytes");
            }
            MemorySegment.copy(buffer, 0, dst, ValueLayout.JAVA_BYTE, off, n);
            off += n;
        }
    }

    /**
     * The body, up to {@code maxBytes}: a server that streams without end, or without a
     * {@code Content-Length}, is cut off at the limit instead of filling the heap.
     */
    private byte[] readAtMost(String key, String what, InputStream in, long maxBytes) throws IOException {
        // A Java array holds at most about 2^31 bytes: without a smaller limit, that one applies.
        int cap = (int) Math.min(maxBytes, Integer.MAX_VALUE - 16);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream((int) Math.min(cap, COPY_BUFFER));
        byte[] buffer = new byte[COPY_BUFFER];
        while (true) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, (long) cap - out.size() + 1));
            if (n < 0) {
                return out.toByteArray();
            }
            out.write(buffer, 0, n);
            if (out.size() > cap) {
                throw ReadBound.tooLarge(description, key, out.size(), cap, what + " streamed a body without"
                        + " Content-Length; what arrived before it was cut off");
            }
        }
    }

    /** Reads and drops up to {@code n} bytes; fewer when the body ends first. */
    private static long discard(InputStream in, long n) throws IOException {
        byte[] buffer = new byte[(int) Math.clamp(n, 1, COPY_BUFFER)];
        long done = 0;
        while (done < n) {
            int r = in.read(buffer, 0, (int) Math.min(buffer.length, n - done));
            if (r < 0) {
                break;
            }
            done += r;
        }
        return done;
    }

    /** Fills {@code dst} from the body, or as much of it as the body holds; returns the bytes read. */
    private static long readUpTo(InputStream in, MemorySegment dst) throws IOException {
        long length = dst.byteSize();
        byte[] buffer = new byte[(int) Math.clamp(length, 1, COPY_BUFFER)];
        long off = 0;
        while (off < length) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, length - off));
            if (n < 0) {
                break;
            }
            MemorySegment.copy(buffer, 0, dst, ValueLayout.JAVA_BYTE, off, n);
            off += n;
        }
        return off;
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            // Closing aborts the exchange; there is nothing left to report.
        }
    }

    private static String millis(Duration d) {
        return d.toMillis() + " ms";
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException(description + " is closed");
        }
    }
}
