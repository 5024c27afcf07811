// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.ReadBound;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreKeys;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link Store} over an S3 bucket, or a Google Cloud Storage bucket through its S3-compatible XML
 * API: key {@code t2m/c/0/3/1} is the object {@code <prefix>/t2m/c/0/3/1}.
 *
 * <h2>Reads</h2>
 * One {@code GetObject} per {@link #get}, with a {@code Range} for partial reads ({@code bytes=a-b},
 * a suffix {@code bytes=-n}, an open end {@code bytes=a-}); the answer's {@code Content-Range} is
 * checked against the range asked for, and a range that does not fit the object fails naming the
 * object's length. The body is copied from the connection into the caller's segment on the calling
 * thread (confined arenas work), allocated only once the length is known and checked against a
 * {@link ReadBound}. {@link #size} sends {@code HeadObject}.
 *
 * <p>A whole object larger than the read part ({@value #DEFAULT_READ_PART} bytes) is fetched as
 * concurrent ranged GETs: the first asks for one part and learns the length from its
 * {@code Content-Range}; the rest are sent at once from virtual threads, each with the first
 * answer's {@code ETag} in {@code If-Match}, so that an object replaced during the read fails
 * (HTTP 412) instead of mixing two versions. One connection delivers a few hundred MB/s, so a chunk
 * of tens of MB read in one stream made the reader wait on the wire rather than decode. The parts
 * are written into the caller's segment from those threads while the caller waits; a segment that
 * other threads cannot write (on the Java heap) gets the rest in one more GET instead.
 *
 * <h2>Concurrency, retries, timeouts</h2>
 * At most {@link S3Config#maxRequests} requests are in flight per store (the HTTP client's
 * connection pool is as large); callers beyond it wait. Each attempt is bounded by the request
 * timeout (and a stall of the body by the same socket timeout). Throttling, {@code 5xx}, timeouts
 * and broken connections are retried with backoff by {@link Retrier}; a body cut off mid-way is read
 * again from its start into the same segment.
 *
 * <h2>Writes</h2>
 * {@link #set} puts the value whole: one {@code PutObject}, or above the multipart threshold a
 * multipart upload completed only once every part is stored (and aborted on failure), so a reader
 * sees the old object or the new one, never part of one. Values are sent as
 * {@code application/octet-stream}.
 *
 * <h2>Listing</h2>
 * {@code ListObjectsV2}, page by page; {@link #listDir} with the delimiter {@code /}. Objects whose
 * names are not valid keys (directory markers ending in {@code /}, empty segments) are skipped.
 *
 * <h2>Errors</h2>
 * A missing object reads as empty. A missing bucket, refused access (with what to change: the
 * credentials' source, {@code --no-sign-request}), a wrong key or region fail with a
 * {@link StoreException} naming the store and the key.
 *
 * <h2>Threads and lifetime</h2>
 * Safe for concurrent use. {@link #close()} closes the client; closing twice is harmless, and any
 * other call after close throws {@link IllegalStateException}.
 */
final class S3Store implements Store {

    /** Values above this are uploaded in parts. */
    static final long DEFAULT_MULTIPART_THRESHOLD = 64L << 20;
    /** The size of each part but the last; S3 wants at least 5 MiB and at most 10,000 parts. */
    static final long DEFAULT_PART_SIZE = 16L << 20;
    /** Whole objects larger than this are read as concurrent ranged GETs of this size. */
    static final long DEFAULT_READ_PART = 8L << 20;
    private static final int COPY_BUFFER = 1 << 16;
    private static final Pattern CONTENT_RANGE = Pattern.compile(
            "^\\s*bytes\\s+(\\d+)-(\\d+)/(\\d+|\\*)\\s*$", Pattern.CASE_INSENSITIVE);
    private static final String CONTENT_TYPE = "application/octet-stream";

    private final S3Config config;
    private final CloudLocation location;
    private final S3Client s3;
    private final String description;
    private final Retrier retrier;
    private final long multipartThreshold;
    private final long partSize;
    private final long readPart;
    /** Sends the parts of a whole-object read after its first; the store's request bound still holds. */
    private final ExecutorService partReaders = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("zd-s3-part-", 0).factory());
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean bucketSeen = new AtomicBoolean();

    S3Store(S3Config config, S3Client s3, long multipartThreshold, long partSize, long baseDelayMillis) {
        this(config, s3, multipartThreshold, partSize, baseDelayMillis, DEFAULT_READ_PART);
    }

    S3Store(S3Config config, S3Client s3, long multipartThreshold, long partSize, long baseDelayMillis,
            long readPart) {
        if (readPart < 1) {
            throw new IllegalArgumentException("read part of " + readPart + " bytes");
        }
        this.readPart = readPart;
        this.config = config;
        this.location = config.location;
        this.s3 = s3;
        this.description = config.describeStore();
        this.multipartThreshold = multipartThreshold;
        this.partSize = partSize;
        this.retrier = new Retrier(description, config.maxRequests, config.maxAttempts, baseDelayMillis,
                10_000, this::ensureOpen);
    }

    /** A store with the client and defaults of {@code config}. */
    static S3Store open(S3Config config) {
        return new S3Store(config, config.newClient(), DEFAULT_MULTIPART_THRESHOLD, DEFAULT_PART_SIZE, 100);
    }

    // ---- reads ----

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(allocator, "allocator");
        StoreKeys.validate(description, key);
        ensureOpen();
        boolean empty = range.length() == 0;
        boolean overflows = !range.isSuffix() && range.length() > 0 && range.offset() > Long.MAX_VALUE - range.length();
        if (empty || overflows) {
            // "bytes=a-(a-1)" and "bytes=-0" cannot be sent: the size decides.
            long size = size(key);
            if (size < 0) {
                return Optional.empty();
            }
            checkFits(key, range, size, "HeadObject");
            return Optional.of(allocator.allocate(0));
        }
        if (range.isAll()) {
            return getWhole(key, allocator);
        }
        String rangeHeader = rangeHeader(range);
        String what = "GET " + location.url() + "/" + key + " (" + range + ")";
        GetObjectRequest request = GetObjectRequest.builder().bucket(location.bucket()).key(location.objectKey(key))
                .range(rangeHeader).build();
        MemorySegment[] slot = new MemorySegment[1];
        try {
            ResponseTransformer<GetObjectResponse, MemorySegment> reader = (response, body) ->
                    readBody(key, what, range, response, body, allocator, slot);
            MemorySegment got = retrier.run(key, what, () -> s3.getObject(request, reader));
            bucketSeen.set(true);
            return Optional.of(got);
        } catch (S3Exception e) {
            if (absentKey(e)) {
                return Optional.empty();
            }
            if (e.statusCode() == 416) {
                return unsatisfiable(key, range, allocator);
            }
            throw failure(e, key, what);
        } catch (SdkException e) {
            throw failure(e, key, what);
        }
    }

    /** The first answer of a whole-object read: the destination, the bytes it filled, its ETag. */
    private record Head(MemorySegment dst, long filled, String etag) {
    }

    /**
     * A whole object: one ranged GET of the first {@link #readPart} bytes, which tells the length,
     * then the rest as concurrent parts (see the class comment).
     */
    private Optional<MemorySegment> getWhole(String key, SegmentAllocator allocator) {
        String what = "GET " + location.url() + "/" + key;
        GetObjectRequest first = GetObjectRequest.builder().bucket(location.bucket()).key(location.objectKey(key))
                .range("bytes=0-" + (readPart - 1)).build();
        MemorySegment[] slot = new MemorySegment[1];
        Head head;
        try {
            head = retrier.run(key, what, () -> s3.getObject(first,
                    (response, body) -> readHead(key, what, response, body, allocator, slot)));
            bucketSeen.set(true);
        } catch (S3Exception e) {
            if (absentKey(e)) {
                return Optional.empty();
            }
            if (e.statusCode() == 416) { // an empty object has no byte 0
                return unsatisfiable(key, ByteRange.ALL, allocator);
            }
            throw failure(e, key, what);
        } catch (SdkException e) {
            throw failure(e, key, what);
        }
        MemorySegment dst = head.dst();
        if (head.filled() < dst.byteSize()) {
            readRest(key, what, dst, head.filled(), head.etag());
        }
        return Optional.of(dst);
    }

    private Head readHead(String key, String what, GetObjectResponse response, InputStream body,
            SegmentAllocator allocator, MemorySegment[] slot) throws IOException {
        String contentRange = response.contentRange();
        if (contentRange == null) { // a server that ignores Range sends the whole object
            long contentLength = contentLength(key, what, response);
            ReadBound.check(allocator, contentLength, what + " declares a Content-Length that");
            MemorySegment dst = allocateOnce(allocator, slot, contentLength);
            readFully(body, dst);
            return new Head(dst, contentLength, null);
        }
        ContentRange cr = ContentRange.parse(contentRange);
        if (cr == null || cr.total() < 0) {
            throw new StoreException(description, key, what + " in " + description + " answered with Content-Range \""
                    + contentRange + "\"; expected \"bytes first-last/total\"");
        }
        long firstByte = cr.first();
        long last = cr.last();
        long total = cr.total();
        if (firstByte != 0 || last < 0 || last >= total || last + 1 != Math.min(readPart, total)) {
            throw new StoreException(description, key, what + " in " + description + " returned bytes " + firstByte
                    + "-" + last + " of " + total + " (Content-Range \"" + contentRange + "\") but bytes 0-"
                    + (Math.min(readPart, total) - 1) + " were asked for; the server's range support is broken");
        }
        ReadBound.check(allocator, total, what + " declares a Content-Range that");
        MemorySegment dst = allocateOnce(allocator, slot, total);
        readFully(body, dst.asSlice(0, last + 1));
        return new Head(dst, last + 1, response.eTag());
    }

    /**
     * Bytes {@code [from, end)} of the object into {@code dst}: concurrent parts where other threads
     * may write it. Returns or throws only once no part is running: the caller's segment must not be
     * written after that. After a failure the parts not yet sent are skipped, and those on the wire
     * end within their request timeout.
     */
    private void readRest(String key, String what, MemorySegment dst, long from, String etag) {
        MemorySegment shared = sharedAlias(dst);
        if (shared == null) {
            readPart(key, what, dst, from, dst.byteSize() - from, etag);
            return;
        }
        int count = (int) ((dst.byteSize() - from + readPart - 1) / readPart);
        CountDownLatch done = new CountDownLatch(count);
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        int submitted = 0;
        try {
            for (long off = from; off < dst.byteSize(); off += readPart) {
                long at = off;
                long len = Math.min(readPart, dst.byteSize() - off);
                partReaders.execute(() -> {
                    try {
                        if (failure.get() == null) {
                            readPart(key, what, shared, at, len, etag);
                        }
                    } catch (RuntimeException e) {
                        if (!failure.compareAndSet(null, e)) {
                            failure.get().addSuppressed(e);
                        }
                    } finally {
                        done.countDown();
                    }
                });
                submitted++;
            }
        } catch (RejectedExecutionException e) { // the store closed
            failure.compareAndSet(null, new StoreException(description, key, what + " in " + description
                    + " was cut short: the store was closed", e));
        } finally {
            for (int i = submitted; i < count; i++) {
                done.countDown(); // parts never submitted
            }
            boolean interrupted = false;
            while (true) {
                try {
                    done.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the parts write into the caller's memory: wait for them
                    failure.compareAndSet(null, new StoreException(description, key, "interrupted while reading "
                            + what + " in " + description, e));
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        RuntimeException e = failure.get();
        if (e != null) {
            throw e;
        }
    }

    /**
     * The caller's native segment seen from any thread (its confinement lifted: the owner waits in
     * {@link #readRest} until every writer is done), or null for a heap segment or without native access.
     */
    private static MemorySegment sharedAlias(MemorySegment dst) {
        if (!dst.isNative()) {
            return null;
        }
        try {
            return MemorySegment.ofAddress(dst.address()).reinterpret(dst.byteSize());
        } catch (IllegalCallerException e) {
            return null;
        }
    }

    /** One ranged GET of bytes {@code [at, at + len)} into {@code dst} at the same offset, the object unchanged. */
    private void readPart(String key, String what, MemorySegment dst, long at, long len, String etag) {
        String header = "bytes=" + at + "-" + (at + len - 1);
        String partWhat = what + " (bytes " + at + "-" + (at + len - 1) + ")";
        GetObjectRequest.Builder b = GetObjectRequest.builder().bucket(location.bucket()).key(location.objectKey(key))
                .range(header);
        if (etag != null) {
            b.ifMatch(etag);
        }
        GetObjectRequest request = b.build();
        try {
            retrier.run(key, partWhat, () -> s3.getObject(request, (response, body) -> {
                String contentRange = response.contentRange();
                ContentRange cr = ContentRange.parse(contentRange);
                if (cr == null || cr.first() != at || cr.last() != at + len - 1
                        || (cr.total() >= 0 && cr.total() != dst.byteSize())) {
                    throw new StoreException(description, key, partWhat + " in " + description + " answered with"
                            + " Content-Range \"" + contentRange + "\": not the range asked for of an object of "
                            + dst.byteSize() + " bytes (was it replaced during the read?)");
                }
                readFully(body, dst.asSlice(at, len));
                return null;
            }));
        } catch (S3Exception e) {
            if (e.statusCode() == 412 || e.statusCode() == 404) {
                throw new StoreException(description, key, what + " in " + description + ": the object was "
                        + (e.statusCode() == 412 ? "replaced" : "deleted") + " while it was read (HTTP "
                        + e.statusCode() + " for bytes " + at + "-" + (at + len - 1) + "); read it again", e);
            }
            throw failure(e, key, partWhat);
        } catch (SdkException e) {
            throw failure(e, key, partWhat);
        }
    }

    /** A 416 answer: a range past the end, or the empty read at the very end that servers refuse. */
    private Optional<MemorySegment> unsatisfiable(String key, ByteRange range, SegmentAllocator allocator) {
        long size = size(key);
        if (size < 0) {
            return Optional.empty();
        }
        checkFits(key, range, size, "GetObject (HTTP 416)");
        if (range.lengthIn(size) != 0) {
            throw new StoreException(description, key, "GET of key \"" + key + "\" (" + range + ") in " + description
                    + " answered 416 Range Not Satisfiable, but the object has " + size + " bytes, which hold the"
                    + " range; the server's range support is broken");
        }
        return Optional.of(allocator.allocate(0));
    }

    /** A ranged GET's answer (whole objects are {@link #getWhole}'s). */
    private MemorySegment readBody(String key, String what, ByteRange range, GetObjectResponse response,
            InputStream body, SegmentAllocator allocator, MemorySegment[] slot) throws IOException {
        String contentRange = response.contentRange();
        if (contentRange == null) {
            long total = contentLength(key, what, response);
            // A server that ignores Range sends the whole object: cut the range out of it.
            checkFits(key, range, total, "GetObject");
            body.skipNBytes(range.start(total));
            MemorySegment dst = allocateOnce(allocator, slot, range.lengthIn(total));
            readFully(body, dst);
            return dst;
        }
        ContentRange cr = ContentRange.parse(contentRange);
        if (cr == null) {
            throw new StoreException(description, key, what + " in " + description + " answered with Content-Range \""
                    + contentRange + "\"; expected \"bytes first-last/total\"");
        }
        long first = cr.first();
        long last = cr.last();
        long total = cr.total();
        if (total >= 0) {
            checkFits(key, range, total, "GetObject (Content-Range " + contentRange + ")");
        }
        long start = range.isSuffix() ? (total >= 0 ? total - range.length() : last + 1 - range.length())
                : range.offset();
        long length = total >= 0 ? range.lengthIn(total) : range.length() >= 0 ? range.length() : last + 1 - first;
        if (first != start || last - first + 1 != length) {
            throw new StoreException(description, key, what + " in " + description + " returned bytes " + first + "-"
                    + last + " (Content-Range \"" + contentRange + "\") but bytes " + start + "-" + (start + length - 1)
                    + " were asked for; the server's range support is broken");
        }
        ReadBound.check(allocator, length, what + " declares a Content-Range that");
        MemorySegment dst = allocateOnce(allocator, slot, length);
        readFully(body, dst);
        return dst;
    }

    /** The {@code Range} header of a partial read. */
    private static String rangeHeader(ByteRange range) {
        if (range.isSuffix()) {
            return "bytes=-" + range.length();
        }
        if (range.length() < 0) {
            return "bytes=" + range.offset() + "-";
        }
        return "bytes=" + range.offset() + "-" + (range.offset() + range.length() - 1);
    }

    @Override
    public long size(String key) {
        StoreKeys.validate(description, key);
        ensureOpen();
        String what = "HEAD " + location.url() + "/" + key;
        try {
            long size = retrier.run(key, what, () -> s3.headObject(b -> b.bucket(location.bucket())
                    .key(location.objectKey(key))).contentLength());
            bucketSeen.set(true);
            return size;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                // A HEAD answer has no body, so a missing bucket looks like a missing key: ask once.
                confirmBucket(key);
                return -1;
            }
            throw failure(e, key, what);
        } catch (SdkException e) {
            throw failure(e, key, what);
        }
    }

    /** Fails naming the bucket when it does not exist; once it has been seen, nothing is sent. */
    private void confirmBucket(String key) {
        if (bucketSeen.get()) {
            return;
        }
        String what = "LIST " + location.url() + " (to tell a missing bucket from a missing key)";
        try {
            retrier.run(key, what, () -> s3.listObjectsV2(b -> b.bucket(location.bucket()).prefix(location.root())
                    .maxKeys(1)));
            bucketSeen.set(true);
        } catch (S3Exception e) {
            if ("NoSuchBucket".equals(code(e))) {
                throw failure(e, key, what);
            }
            // Listing refused: the bucket may exist; the key is reported missing.
        }
    }

    // ---- writes ----

    @Override
    public void set(String key, MemorySegment value) {
        Objects.requireNonNull(value, "value");
        StoreKeys.validate(description, key);
        ensureOpen();
        String objectKey = location.objectKey(key);
        long n = value.byteSize();
        if (n <= multipartThreshold) {
            byte[] bytes = value.toArray(ValueLayout.JAVA_BYTE);
            String what = "PUT " + location.url() + "/" + key + " (" + n + " bytes)";
            call(key, what, () -> s3.putObject(b -> b.bucket(location.bucket()).key(objectKey).contentType(CONTENT_TYPE)
                    .contentLength(n), RequestBody.fromContentProvider(ContentStreamProvider.fromByteArrayUnsafe(bytes),
                    n, CONTENT_TYPE)));
            bucketSeen.set(true);
            return;
        }
        putMultipart(key, objectKey, value);
    }

    /** Parts in order; the object appears only when the upload completes, and a failed upload is aborted. */
    private void putMultipart(String key, String objectKey, MemorySegment value) {
        long n = value.byteSize();
        long part = Math.max(partSize, (n + 9_999) / 10_000);
        String what = "multipart PUT " + location.url() + "/" + key + " (" + n + " bytes)";
        String uploadId = call(key, what + ": CreateMultipartUpload", () -> s3.createMultipartUpload(b -> b
                .bucket(location.bucket()).key(objectKey).contentType(CONTENT_TYPE))).uploadId();
        boolean done = false;
        try {
            List<CompletedPart> parts = new ArrayList<>();
            int number = 1;
            for (long off = 0; off < n; off += part, number++) {
                int len = (int) Math.min(part, n - off);
                byte[] bytes = value.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
                int partNumber = number;
                String etag = call(key, what + ": part " + partNumber, () -> s3.uploadPart(b -> b
                        .bucket(location.bucket()).key(objectKey).uploadId(uploadId).partNumber(partNumber)
                        .contentLength((long) len), RequestBody.fromContentProvider(
                        ContentStreamProvider.fromByteArrayUnsafe(bytes), len, CONTENT_TYPE))).eTag();
                parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag).build());
            }
            call(key, what + ": CompleteMultipartUpload", () -> s3.completeMultipartUpload(b -> b
                    .bucket(location.bucket()).key(objectKey).uploadId(uploadId)
                    .multipartUpload(CompletedMultipartUpload.builder().parts(parts).build())));
            done = true;
            bucketSeen.set(true);
        } finally {
            if (!done) {
                abort(objectKey, uploadId);
            }
        }
    }

    private void abort(String objectKey, String uploadId) {
        try {
            s3.abortMultipartUpload(AbortMultipartUploadRequest.builder().bucket(location.bucket()).key(objectKey)
                    .uploadId(uploadId).build());
        } catch (SdkException e) {
            // The upload is invisible either way; a lifecycle rule removes abandoned parts.
        }
    }

    @Override
    public void delete(String key) {
        StoreKeys.validate(description, key);
        ensureOpen();
        String what = "DELETE " + location.url() + "/" + key;
        try {
            retrier.run(key, what, () -> s3.deleteObject(b -> b.bucket(location.bucket()).key(location.objectKey(key))));
        } catch (S3Exception e) {
            if (e.statusCode() == 404 && !"NoSuchBucket".equals(code(e))) {
                return;
            }
            throw failure(e, key, what);
        } catch (SdkException e) {
            throw failure(e, key, what);
        }
    }

    // ---- listing ----

    @Override
    public List<String> list(String prefix) {
        StoreKeys.validatePrefix(description, prefix);
        ensureOpen();
        TreeSet<String> keys = new TreeSet<>();
        listPages(prefix, false, keys);
        return List.copyOf(keys);
    }

    @Override
    public List<String> listDir(String prefix) {
        String dir = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
        StoreKeys.validatePrefix(description, dir);
        ensureOpen();
        TreeSet<String> keys = new TreeSet<>();
        listPages(dir, true, keys);
        return List.copyOf(keys);
    }

    private void listPages(String prefix, boolean delimited, TreeSet<String> out) {
        String what = "LIST " + location.url() + "/" + prefix + (delimited ? " (delimiter /)" : "");
        String token = null;
        do {
            String continuation = token;
            ListObjectsV2Request.Builder b = ListObjectsV2Request.builder().bucket(location.bucket())
                    .prefix(location.objectKey(prefix)).continuationToken(continuation);
            if (delimited) {
                b.delimiter("/");
            }
            ListObjectsV2Request request = b.build();
            ListObjectsV2Response page = call(prefix, what, () -> s3.listObjectsV2(request));
            for (S3Object o : page.contents()) {
                addKey(o.key(), false, out);
            }
            for (CommonPrefix p : page.commonPrefixes()) {
                addKey(p.prefix(), true, out);
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        bucketSeen.set(true);
    }

    /** Adds the store key of an object name, or of a common prefix ending in {@code /}; skips others. */
    private void addKey(String objectName, boolean directory, TreeSet<String> out) {
        if (!objectName.startsWith(location.root())) {
            return;
        }
        String key = objectName.substring(location.root().length());
        String bare = directory && key.endsWith("/") ? key.substring(0, key.length() - 1) : key;
        if (bare.isEmpty() || (!directory && key.endsWith("/"))) {
            return; // a directory marker, not a value
        }
        try {
            StoreKeys.validate(description, bare);
        } catch (dev.zarrdirect.api.InvalidKeyException e) {
            return; // an object name no key can reach ("a//b")
        }
        out.add(directory ? bare + "/" : key);
    }

    // ---- errors ----

    /** Runs a request through the retrier, turning what the SDK throws into a StoreException. */
    private <T> T call(String key, String what, java.util.function.Supplier<T> request) {
        try {
            return retrier.run(key, what, request);
        } catch (SdkException e) {
            throw failure(e, key, what);
        }
    }

    private static String code(S3Exception e) {
        return e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    }

    /** The exception for a failure that is not a missing key: what failed, why, and what to change. */
    StoreException failure(SdkException e, String key, String what) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StoreException s) {
                return s;
            }
        }
        String where = what + " in " + description;
        if (e instanceof S3Exception s3e) {
            String code = code(s3e);
            String status = "HTTP " + s3e.statusCode() + (code == null || code.isEmpty() ? "" : " " + code);
            String message = s3e.awsErrorDetails() == null || s3e.awsErrorDetails().errorMessage() == null ? ""
                    : " (" + s3e.awsErrorDetails().errorMessage() + ")";
            String hint = switch (code == null ? "" : code) {
                case "NoSuchBucket" -> "the bucket \"" + location.bucket() + "\" does not exist at "
                        + endpointText() + "; check the bucket's name and the endpoint";
                case "InvalidAccessKeyId" -> "the server does not know the access key ID (credentials: "
                        + config.credentialsSource + "); check the key, or pass --no-sign-request for a public bucket";
                case "SignatureDoesNotMatch" -> "the secret key does not match the access key ID (credentials: "
                        + config.credentialsSource + ")";
                case "PermanentRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException" ->
                        "the bucket is in another region than " + config.region.id() + " (" + config.regionSource
                        + ")" + s3e.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("x-amz-bucket-region")
                                .map(r -> ": it is in " + r + "; set AWS_REGION=" + r + " or --region " + r).orElse(
                                "; set AWS_REGION or --region to the bucket's region");
                default -> s3e.statusCode() == 403 ? accessDeniedHint()
                        : s3e.statusCode() == 404 ? "the bucket \"" + location.bucket() + "\" or the path does not exist"
                        : "";
            };
            return new StoreException(description, key, status + message + " for " + where
                    + (hint.isEmpty() ? "" : ": " + hint), e);
        }
        if (e instanceof SdkClientException && e.getMessage() != null
                && e.getMessage().contains("Unable to load credentials")) {
            return new StoreException(description, key, "no credentials for " + where + ": " + config.credentialsSource
                    + "; configure AWS credentials (aws configure, AWS_PROFILE, AWS_ACCESS_KEY_ID), or pass"
                    + " --no-sign-request (StoreOptions.withAnonymous(true)) for a public bucket", e);
        }
        return new StoreException(description, key, where + " failed: " + Retrier.describe(e), e);
    }

    private String accessDeniedHint() {
        if (config.anonymous) {
            return "the bucket refuses anonymous requests for this; drop --no-sign-request and configure credentials"
                    + " (without list permission, S3 also answers 403 for a missing key)";
        }
        return "access denied to the credentials of " + config.credentialsSource + "; check their permissions, or pass"
                + " --no-sign-request for a public bucket (without list permission, S3 also answers 403 for a"
                + " missing key)";
    }

    private String endpointText() {
        return config.endpoint == null ? "AWS S3 (region " + config.region.id() + ")" : config.endpoint.toString();
    }

    private void checkFits(String key, ByteRange range, long size, String how) {
        if (!range.fits(size)) {
            throw new StoreException(description, key, "range " + range + " does not fit in key \"" + key
                    + "\" (length " + size + ") in " + description + " (" + how + ")");
        }
    }

    // ---- helpers ----

    /** A {@code Content-Range: bytes first-last/total} header; {@code total} is -1 for {@code *}. */
    private record ContentRange(long first, long last, long total) {
        /** The header parsed, or null when it is absent or not of that form. */
        static ContentRange parse(String header) {
            Matcher m = header == null ? null : CONTENT_RANGE.matcher(header);
            if (m == null || !m.matches()) {
                return null;
            }
            return new ContentRange(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)),
                    m.group(3).equals("*") ? -1 : Long.parseLong(m.group(3)));
        }
    }

    /** A 404 for the key rather than the bucket: the key is absent, and the bucket is there. */
    private boolean absentKey(S3Exception e) {
        if (e.statusCode() == 404 && !"NoSuchBucket".equals(code(e))) {
            bucketSeen.set(true);
            return true;
        }
        return false;
    }

    /** The answer's {@code Content-Length}, which S3 always sends; without it the endpoint is not S3. */
    private long contentLength(String key, String what, GetObjectResponse response) {
        Long length = response.contentLength();
        if (length == null) {
            throw new StoreException(description, key, what + " in " + description + " answered without a"
                    + " Content-Length; S3 always sends one, so the endpoint is not an S3 server");
        }
        return length;
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

    /** The client, for tests that prepare a server (create buckets). */
    S3Client client() {
        return s3;
    }

    /** The resolved configuration, for tests and doctor. */
    S3Config config() {
        return config;
    }

    @Override
    public boolean isReadOnly() {
        return false;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            partReaders.shutdownNow();
            s3.close();
        }
    }

    @Override
    public String toString() {
        return description;
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException(description + " is closed");
        }
    }
}
