// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Region;
import dev.zarrdirect.api.buffer.StridedCopy;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ArrayToBytesCodec;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The batch executor of resolved codec stages on a device: the encoded bytes of a whole batch land
 * in device memory (through the backend's direct reader, or one pinned staging buffer and one
 * copy), then every codec stage runs once for the batch (one launch per stage on a GPU backend),
 * and one batched region copy places the decoded chunks into the destination. Boxes of chunks never
 * written are filled on the device.
 *
 * <p>A stage whose codec has no implementation on the device runs on the CPU: its inputs are copied
 * to the host and its outputs back ({@link #hostFallbacks()} names them). Chains this decoder cannot
 * run (nested sharding, codecs around sharding) are refused by {@link #supports}; the caller decodes
 * those on the host and copies the result.
 *
 * <p>What to read and where it goes comes from the caller as {@link Task}s; this class knows no
 * plan and no scheduler. Thread-safe: batches may be fetched and decoded on several threads.
 */
public final class DeviceDecoder {

    /** Where one box of a decoded chunk goes: the box {@code [chunkStart, chunkStart+extent)} to {@code at}. */
    public record Place(long[] chunkStart, long[] extent, long[] at) {
    }

    /**
     * One chunk of a batch: its key and byte range ({@code length} -1 for the whole value; {@code key}
     * null for boxes known to hold only the fill value) and the boxes of it the destination needs.
     * A chunk needed by several places is read and decoded once.
     */
    public record Task(String key, long offset, long length, String label, List<Place> places) {
        public Task {
            places = List.copyOf(places);
        }
    }

    /**
     * One read of a batch: bytes {@code [offset, offset+length)} of the value at {@code key}
     * ({@code length} -1: the whole value, which then holds one task) and the tasks whose bytes lie in
     * it, each task's {@code offset} being within the value. A null key holds tasks known to be
     * missing (their boxes are filled).
     */
    public record Range(String key, long offset, long length, List<Task> tasks) {
        public Range {
            tasks = List.copyOf(tasks);
            if (key != null && length < 0 && tasks.size() != 1) {
                throw new IllegalArgumentException("a whole-value read holds one task, not " + tasks.size());
            }
        }

        /** A read of the whole value at {@code task.key()}. */
        public static Range whole(Task task) {
            return new Range(task.key(), 0, -1, List.of(task));
        }
    }

    private final Backend backend;
    private final Device device;
    private final CodecStages stages;
    private final ChunkSpec spec;
    private final List<ArrayToArrayCodec> a2a;
    private final ArrayToBytesCodec a2b;
    private final ChunkSpec a2bSpec;
    private final boolean a2bIdentity;
    private final List<BytesToBytesCodec> b2b;
    private final MemorySegment fill;
    /** The most bytes a stored chunk may take ({@link CodecChain#maxEncodedBytes()}), checked before a read. */
    private final long maxEncoded;
    /** Decodes every chunk on the host during the fetch; null when the device runs every stage. */
    private final CodecChain hostChain;
    /** The chain host decodes run: {@link #hostChain}, or the one a batch of few serial runs takes; may be null. */
    private final CodecChain hostDecodeChain;
    /**
     * Serial device runs per chunk (deflate streams, blosc blocks with zlib inside) when a device stage
     * decodes each as one run, else 0: see {@link dev.zarrdirect.core.ReadSettings#serialRunsPerCore()}.
     */
    private final long serialRunsPerChunk;
    /** The device stages that decode serially, as {@code name@provider}, for {@link #describePath}. */
    private final List<String> serialStages;
    /** Serial runs a batch needs to decode on the device; fewer go to the host. */
    private final long serialMinRuns;
    /**
     * Where the batches with runs enough for the device go, timed both ways: null when the chain has
     * no serial runs (the device always wins there) or no host chain to compare with.
     */
    private final PathChoice pathChoice;
    /**
     * How batches with runs enough for the device are shared with the host when they have two
     * ranges or more ({@code zarrdirect.hostShare}); null: each goes one way, as
     * {@link #pathChoice} says.
     */
    private final HostShare hostShare;
    /** Scratch of the host decodes, one per chunk decoding at once, kept while this decoder lives. */
    private final java.util.concurrent.ConcurrentLinkedQueue<HostScratch> hostScratch =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Host-decoded batches overlap (two at once, copies while decoding); false: the one-batch-then-copy path. */
    private final boolean overlap;
    /**
     * Threads of shared batches' host parts ({@link HostShare}): a host part and its lanes run here,
     * not in the common pool, whose workers the device part's parallel reads need meanwhile (an
     * OpenCL device part reads through that pool; in a trace on an H200 its read took 183 ms beside
     * a host part, 19 ms in another pass). Idle threads end after a minute.
     */
    private final java.util.concurrent.ExecutorService shareThreads = java.util.concurrent.Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("zarr-direct-host-share-", 0).factory());
    /** Bounds the host-decoded batches decoding at once (their pinned buffers). */
    private final java.util.concurrent.Semaphore hostBatches = new java.util.concurrent.Semaphore(HOST_BATCHES_IN_FLIGHT);

    /**
     * Decoded bytes a batch should hold at most: unbounded when the device decodes; 1 GiB when the
     * host does, the largest block the CUDA backend's pinned pool keeps (only the decoded bytes are
     * pinned). Measured on an H100, blosc lz4 store of [16, 16, 721, 1440] float32 read 16 steps a
     * call: 1 GiB 4.74 GB/s, 512 MiB 3.45 (cpu+copy 9.0-9.5 in the same call), against 0.92-0.99
     * when each stage's data went back and forth chunk by chunk.
     */
    public long maxBatchBytes() {
        // a batch of serial runs may go either way, so it is sized for the host path too
        return hostChain == null && serialRunsPerChunk == 0 ? Long.MAX_VALUE : overlap ? OVERLAP_BATCH_BYTES : 1L << 30;
    }

    /**
     * Decoded bytes of a host-decoded batch when two decode at once ({@code zarrdirect.hostDecodeOverlap}):
     * half of the 1 GiB, so that the two batches' pinned buffers (pool blocks of at most 512 MiB)
     * stay within what the CUDA backend's pinned pool keeps (1 GiB), and neither is pinned afresh.
     */
    static final long OVERLAP_BATCH_BYTES = 1L << 29;

    /**
     * A host-decoded batch goes to the device in runs of consecutive chunks of at least this many
     * decoded bytes, each copied by the thread that decoded its last chunk while the others decode on.
     */
    static final long HOST_COPY_RUN_BYTES = 32L << 20;

    /** Host-decoded batches that decode at once, when they overlap. */
    static final int HOST_BATCHES_IN_FLIGHT = 2;

    /**
     * True when the caller may start the next batch's fetch as soon as this decoder signals that every
     * chunk of the current one has started decoding ({@link #fetch}), rather
     * than when the fetch has ended: host-decoded batches with {@code zarrdirect.hostDecodeOverlap},
     * which every decoder with a host chain may have (a batch of few serial runs, or one that
     * {@link PathChoice} sends to the host). A batch that decodes on the device never signals: its
     * fetch's end lets the next one start.
     */
    public boolean overlapsFetches() {
        return hostDecodeChain != null && overlap;
    }

    /** Where the stages run, for {@code devicePath}: on the device, or decoded on the host during the fetch. */
    public String describePath() {
        return hostChain == null ? "batched decode on " + device + (serialRunsPerChunk == 0 ? ""
                : " (a batch of fewer than " + serialMinRuns + " serial runs, " + serialRunsPerChunk
                + " a chunk, decodes on the host: " + String.join(", ", serialStages) + "; "
                + (hostShare == null ? "" : "larger ones of two ranges or more are shared with the host: "
                + hostShare.describe() + "; others ")
                + "go the way timed faster: " + pathChoice.describe() + ")")
                : "batched on " + device + ": decoded on the host during each batch's fetch (all cores, pinned "
                + "memory, " + (overlap ? "two batches at once, copied to the device while they decode"
                : "one batch at a time, one copy a batch") + ") because " + hostFallbacks() + " run on the CPU";
    }

    /** Bytes of one element of the decoded chunks. */
    public int elementSize() {
        return spec.dataType().byteSize();
    }

    /** Decoded bytes of one task's chunk (of an inner chunk, for a sharded array). */
    public long chunkBytes() {
        return spec.byteSize();
    }

    /**
     * True when {@code chain} can run as device batches: no sharding, or one level of sharding alone,
     * whose inner chunks become the batch items ({@link #leafChain}).
     */
    public static boolean supports(CodecChain chain) {
        return chain.sharding() == null
                || (chain.isPartiallyReadable() && chain.sharding().inner().sharding() == null);
    }

    /** The chain that decodes one batch item: the array's chain, or the inner chain of its shards. */
    public static CodecChain leafChain(CodecChain chain) {
        return chain.sharding() == null ? chain : chain.sharding().inner();
    }

    /**
     * The decoder of {@code stages}, resolved for {@code stages.device()} (see {@link CodecStages#resolve}).
     *
     * @throws IllegalArgumentException when the stages have sharding, or a stage of a size the device
     *                                  decoder cannot know before decoding
     */
    public DeviceDecoder(Backend backend, CodecStages stages, String where) {
        this(backend, stages, null, where);
    }

    /**
     * The decoder of {@code stages}; when some stage has no implementation on the device and
     * {@code hostChain} (the same chain resolved for the CPU) is given, every chunk is decoded on the
     * host while its batch is fetched, on all cores into pinned memory, and the batch moves to the
     * device decoded, in one copy: moving each stage's data back and forth is much slower (a v2
     * blosc store read 0.74 GB/s that way on an H100, against 9.96 for the CPU backend and a copy).
     */
    public DeviceDecoder(Backend backend, CodecStages stages, CodecChain hostChain, String where) {
        this(backend, stages, hostChain, true, where);
    }

    /**
     * As {@link #DeviceDecoder(Backend, CodecStages, CodecChain, String)}; {@code overlap} false keeps
     * host-decoded batches one at a time, each copied once it is all decoded
     * ({@code zarrdirect.hostDecodeOverlap=false}, for comparison).
     */
    public DeviceDecoder(Backend backend, CodecStages stages, CodecChain hostChain, boolean overlap, String where) {
        this(backend, stages, hostChain, overlap, dev.zarrdirect.core.ReadSettings.SERIAL_RUNS_PER_CORE.defaultValue(),
                where);
    }

    /**
     * As {@link #DeviceDecoder(Backend, CodecStages, CodecChain, boolean, String)}; a batch with fewer
     * than {@code serialRunsPerCore} serial device runs per host core ({@code zarrdirect.serialRunsPerCore};
     * 0: never) decodes on the host through {@code hostChain}, when given.
     */
    public DeviceDecoder(Backend backend, CodecStages stages, CodecChain hostChain, boolean overlap,
                         int serialRunsPerCore, String where) {
        this(backend, stages, hostChain, overlap, serialRunsPerCore,
                dev.zarrdirect.core.ReadSettings.HOST_SHARE.defaultValue(), where);
    }

    /**
     * As {@link #DeviceDecoder(Backend, CodecStages, CodecChain, boolean, int, String)}; {@code share}
     * true shares each batch with runs enough for the device between the host and the device
     * ({@code zarrdirect.hostShare}, {@link HostShare}) when it has two ranges or more.
     */
    public DeviceDecoder(Backend backend, CodecStages stages, CodecChain hostChain, boolean overlap,
                         int serialRunsPerCore, boolean share, String where) {
        this.overlap = overlap;
        if (stages.sharding() != null) {
            throw new IllegalArgumentException("chain " + stages.describe() + " of " + where
                    + " has sharding: give the device decoder its leaf chain");
        }
        this.backend = backend;
        this.device = stages.device();
        this.stages = stages;
        this.spec = stages.spec();
        this.fill = stages.fill();
        this.a2a = stages.arrayToArray();
        this.a2b = stages.arrayToBytes();
        this.a2bSpec = stages.arrayToBytesSpec();
        this.a2bIdentity = stages.arrayToBytesIsIdentity();
        this.b2b = stages.bytesToBytes();
        this.hostChain = stages.hostFallbacks().isEmpty() ? null : hostChain;
        this.hostDecodeChain = hostChain;
        List<String> serial = new ArrayList<>();
        this.serialRunsPerChunk = this.hostChain == null && hostChain != null && serialRunsPerCore > 0
                ? serialRuns(stages, spec.byteSize(), serial) : 0;
        this.serialStages = List.copyOf(serial);
        this.serialMinRuns = (long) serialRunsPerCore * Runtime.getRuntime().availableProcessors();
        this.pathChoice = serialRunsPerChunk > 0 ? new PathChoice(PathChoice.Path.DEVICE) : null;
        this.hostShare = serialRunsPerChunk > 0 && share ? new HostShare(shareLanes()) : null;
        this.maxEncoded = CodecChain.maxEncodedBytes(a2b.maxEncodedSize(a2bSpec), b2b);
        // A stage of data-dependent size (crc32c after zstd) is fine when its codec can tell its
        // decoded size from the input's size alone; reading a size out of device memory is not.
        for (int i = 0; i < b2b.size(); i++) {
            if (stages.stageSize(i) < 0 && b2b.get(i).decodedSize(1L << 20) < 0) {
                throw new IllegalArgumentException("stage " + b2b.get(i).name() + " of " + where
                        + " has no size the device decoder can know before decoding");
            }
        }
    }

    /**
     * Serial runs per chunk of the device stage that has the fewest ({@link BytesToBytesCodec#serialDecodeBytes}),
     * 0 when no device stage decodes serially; adds each such stage to {@code names} as {@code name@provider}.
     */
    private static long serialRuns(CodecStages stages, long chunkBytes, List<String> names) {
        long fewest = 0;
        List<BytesToBytesCodec> b2b = stages.bytesToBytes();
        for (int i = 0; i < b2b.size(); i++) {
            BytesToBytesCodec c = b2b.get(i);
            if (!c.device().equals(stages.device())) {
                continue;
            }
            long size = stages.stageSize(i) >= 0 ? stages.stageSize(i) : chunkBytes;
            long run = c.serialDecodeBytes(size);
            if (run > 0) {
                names.add(c.name() + "@" + c.provider());
                long runs = Math.max(1, (size + run - 1) / run);
                fewest = fewest == 0 ? runs : Math.min(fewest, runs);
            }
        }
        return fewest;
    }

    /** True when a batch of {@code chunks} chunks decodes faster on the host: too few serial runs for the device. */
    boolean fewSerialRuns(int chunks) {
        return fewSerialRuns(chunks, serialRunsPerChunk, serialMinRuns);
    }

    /**
     * The rule of {@code zarrdirect.serialRunsPerCore}: {@code chunks} chunks of {@code runsPerChunk}
     * serial runs each (0: the chain has none) are too few for the device when they make fewer than
     * {@code minRuns} runs.
     */
    static boolean fewSerialRuns(long chunks, long runsPerChunk, long minRuns) {
        return runsPerChunk > 0 && (double) chunks * runsPerChunk < minRuns;
    }

    /** The codecs of this chain that run on the CPU because the device has no implementation. */
    public List<String> hostFallbacks() {
        return stages.hostFallbacks();
    }

    /**
     * How a shared batch's parts went ({@link HostShare}), for traces: ranges each, the fetch's start
     * and each part's end ({@link System#nanoTime}); the host part ends when its last copy has landed.
     */
    public record SharedParts(int hostRanges, int deviceRanges, long startNanos, long deviceEndNanos, long hostEndNanos) {
    }

    /**
     * One batch whose encoded bytes are on the device (or known missing), ready to decode. Owns the
     * device memory it holds: close it after {@link #decode}. Closing twice is harmless.
     */
    public static final class Fetched implements AutoCloseable {
        private final List<Task> present;
        private final List<Task> missing;
        private final List<Buffer> slices;
        private final long encodedBytes;
        private final List<Buffer> owned;
        private final long allocNanos;
        private final long readNanos;
        private final String readDetail;
        /** The slices hold decoded chunks (decoded on the host during the fetch). */
        private final boolean decoded;
        /**
         * The destination the fetch copied every decoded chunk into, at its place (no slices then);
         * null when {@link #decode} places them.
         */
        private Buffer placedInto;
        /** The way {@link PathChoice} sent this batch, to be told its time; null when it did not choose. */
        private PathChoice.Path way;
        /** When the fetch started ({@link System#nanoTime}). */
        private long startNanos;
        /** Where to tell that the batch was dropped, until it is decoded; null when nobody is waiting. */
        private PathChoice choice;
        /**
         * A shared batch's host part ({@link HostShare}): the chunks the host decodes while the device
         * decodes these, still under way; null when the batch is not shared. {@link #decode} waits for
         * it and places it; {@link #close} waits for it too, since it copies into the destination.
         */
        private java.util.concurrent.CompletableFuture<Fetched> hostPart;
        /** Tasks and ranges of {@link #hostPart}, and the ranges of this (the device's) part. */
        private int hostTasks;
        private int hostRanges;
        private int deviceRanges;
        /** When a host part's last chunk was decoded and copied ({@link System#nanoTime}). */
        private long endNanos;
        /** A shared batch's two parts once {@link #decode} placed both; null before, or when not shared. */
        private SharedParts parts;

        private Fetched(List<Task> present, List<Task> missing, List<Buffer> slices, long encodedBytes,
                        List<Buffer> owned, long allocNanos, long readNanos, String readDetail) {
            this(present, missing, slices, encodedBytes, owned, allocNanos, readNanos, readDetail, false);
        }

        private Fetched(List<Task> present, List<Task> missing, List<Buffer> slices, long encodedBytes,
                        List<Buffer> owned, long allocNanos, long readNanos, String readDetail, boolean decoded) {
            this.present = present;
            this.missing = missing;
            this.slices = slices;
            this.encodedBytes = encodedBytes;
            this.owned = owned;
            this.allocNanos = allocNanos;
            this.readNanos = readNanos;
            this.readDetail = readDetail;
            this.decoded = decoded;
        }

        /** Tasks of this batch, present and missing. */
        public int taskCount() {
            return present.size() + missing.size() + hostTasks;
        }

        /**
         * For traces: how a shared batch's two parts went, once it is decoded; null when the batch was
         * not shared or is not decoded yet.
         */
        public SharedParts sharedParts() {
            return parts;
        }

        /** Encoded bytes this batch moved (the gaps of coalesced ranges included). */
        public long encodedBytes() {
            return encodedBytes;
        }

        /** Nanoseconds spent allocating the batch's device memory, and reading into it. */
        public long allocNanos() {
            return allocNanos;
        }

        public long readNanos() {
            return readNanos;
        }

        /** How the bytes were read: ranges and reader. */
        public String readDetail() {
            return readDetail;
        }

        /**
         * Where the batch decodes, for traces: "on the device" or "on the host", with "(timed
         * choice)" when {@link PathChoice} sent it there rather than a fixed rule.
         */
        public String decodesOn() {
            if (present.isEmpty()) {
                return "nothing to decode";
            }
            String on = decoded ? "on the host" : "on the device";
            if (hostTasks > 0) {
                return on + ", and " + hostTasks + " more on the host at once (shared)";
            }
            return way == null ? on : on + " (timed choice)";
        }

        @Override
        public void close() {
            PathChoice c = choice;
            choice = null;
            if (c != null) {
                c.dropped(way, startNanos);
            }
            java.util.concurrent.CompletableFuture<Fetched> h = hostPart;
            hostPart = null;
            try {
                closeAll(owned);
            } finally {
                if (h != null) {
                    Fetched got = null;
                    try {
                        got = h.join(); // its copies land in the destination: they end before the caller goes on
                    } catch (RuntimeException failed) {
                        // nothing to close: a host part that fails closes what it held
                    }
                    if (got != null) {
                        got.close();
                    }
                }
            }
        }
    }

    /**
     * Brings the encoded bytes of {@code ranges} onto the device: through the backend's direct
     * reader when the store has local files, else into one pinned staging buffer (ranges read in
     * parallel) and one copy; each range is one request. Runs on any thread, so the next batch can be
     * fetched while this one decodes. A batch decoded on the host instead (a host-only stage, few
     * serial runs, or {@link PathChoice}'s choice) whose every chunk is one contiguous box of
     * {@code dest} (a whole tensor of {@code destShape}, C-order {@code destByteStrides}) is copied
     * straight to its places, with no device buffer between, and {@link #decode} must then be given
     * the same {@code dest}.
     *
     * <p>{@code started} (when not null) is called at most once, on the fetching thread or one it
     * decodes with, once every chunk of a host-decoded batch has started decoding, so the caller can
     * start the next batch's fetch on the cores this one is about to free ({@link #overlapsFetches()}).
     * It may not be called at all (a fetch that fails first, or one with nothing to decode on the
     * host): callers also treat the fetch's end as the signal.
     */
    public Fetched fetch(Store store, List<Range> ranges, Runnable started, Buffer dest, long[] destShape,
                         long[] destByteStrides) {
        List<Task> missing = new ArrayList<>();
        List<Range> groups = new ArrayList<>();
        for (Range r : ranges) {
            if (r.key() == null) {
                missing.addAll(r.tasks());
            } else if (r.length() >= 0) {
                for (Task t : r.tasks()) {
                    checkEncodedSize(store, t.key(), t.length(), t.label(), "its shard's index gives");
                }
                groups.add(r);
            } else {
                long n = store.size(r.key());
                if (n < 0) {
                    missing.addAll(r.tasks());
                } else {
                    // Before staging is allocated for it: a store may hold a chunk of any size.
                    checkEncodedSize(store, r.key(), n, r.tasks().getFirst().label(), "the store holds");
                    groups.add(new Range(r.key(), 0, n, r.tasks()));
                }
            }
        }
        List<Task> present = tasksOf(groups);
        long total = bytesOf(groups);
        List<Buffer> owned = new ArrayList<>();
        if (present.isEmpty()) {
            return new Fetched(present, missing, List.of(), 0, owned, 0, 0, "nothing to read");
        }
        boolean onHost = hostChain != null || fewSerialRuns(present.size());
        int hostRanges = !onHost && hostShare != null && groups.size() >= 2 ? hostShare.hostRanges(groups.size()) : 0;
        if (hostRanges > 0) {
            return fetchShared(store, groups, hostRanges, missing, dest, destShape, destByteStrides);
        }
        long start = System.nanoTime();
        PathChoice.Path way = onHost || pathChoice == null ? null : pathChoice.next(present.size(), start);
        Fetched f;
        try {
            if (onHost || way == PathChoice.Path.HOST) {
                long[] direct = directOffsets(present, destShape, destByteStrides);
                f = overlap ? fetchDecodedOverlapped(store, present, missing, total, started, dest, direct,
                        Runtime.getRuntime().availableProcessors(), null)
                        : fetchDecodedOnHost(store, present, missing, total, dest, direct, null);
            } else {
                f = fetchEncoded(store, groups, present, missing, total);
            }
        } catch (RuntimeException | Error e) {
            if (way != null) {
                pathChoice.dropped(way, start);
            }
            throw e;
        }
        f.way = way;
        f.choice = way == null ? null : pathChoice;
        f.startNanos = start;
        return f;
    }

    /**
     * {@link #fetch} of a batch shared between the host and the device ({@link HostShare}): its last
     * {@code k} ranges start decoding on the host, on a thread of their own and half the cores (the
     * device's part needs cores too: its reads, launches and the split's planning; on an H200 host of
     * 16 cores the host part read faster leaving 8 than 4 on 6 of 9 reads), while this thread fetches
     * the rest for the device; the host part goes on through the device part's {@link #decode},
     * which waits for it and places it. With {@code zarrdirect.hostDecodeOverlap} off the host part
     * takes the one-batch path, on every core.
     */
    private Fetched fetchShared(Store store, List<Range> groups, int k, List<Task> missing, Buffer dest,
                                long[] destShape, long[] destByteStrides) {
        long start = System.nanoTime();
        List<Range> deviceGroups = groups.subList(0, groups.size() - k);
        List<Range> hostGroups = groups.subList(groups.size() - k, groups.size());
        List<Task> devicePresent = tasksOf(deviceGroups);
        List<Task> hostPresent = tasksOf(hostGroups);
        long hostBytes = bytesOf(hostGroups);
        long[] direct = directOffsets(hostPresent, destShape, destByteStrides);
        int lanes = shareLanes();
        java.util.concurrent.CompletableFuture<Fetched> host = new java.util.concurrent.CompletableFuture<>();
        shareThreads.execute(() -> {
            try {
                Fetched h = overlap
                        ? fetchDecodedOverlapped(store, hostPresent, List.of(), hostBytes, null, dest, direct, lanes, shareThreads)
                        : fetchDecodedOnHost(store, hostPresent, List.of(), hostBytes, dest, direct, shareThreads);
                h.endNanos = System.nanoTime();
                host.complete(h);
            } catch (Throwable t) {
                host.completeExceptionally(t);
            }
        });
        Fetched f;
        try {
            f = fetchEncoded(store, deviceGroups, devicePresent, missing, bytesOf(deviceGroups));
        } catch (RuntimeException | Error e) {
            try {
                host.join().close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        f.hostPart = host;
        f.hostTasks = hostPresent.size();
        f.hostRanges = k;
        f.deviceRanges = deviceGroups.size();
        f.startNanos = start;
        return f;
    }

    /** Threads a shared batch's host part decodes on: half the cores, or every core without the overlap. */
    private int shareLanes() {
        int cores = Runtime.getRuntime().availableProcessors();
        return overlap ? Math.max(1, cores / 2) : cores;
    }

    /** The tasks of {@code groups}, in order. */
    private static List<Task> tasksOf(List<Range> groups) {
        List<Task> tasks = new ArrayList<>();
        for (Range g : groups) {
            tasks.addAll(g.tasks());
        }
        return tasks;
    }

    /** The encoded bytes {@code groups} span. */
    private static long bytesOf(List<Range> groups) {
        long total = 0;
        for (Range g : groups) {
            total = Math.addExact(total, g.length());
        }
        return total;
    }

    /** {@link #fetch} of a batch the device decodes: its encoded bytes into device memory. */
    private Fetched fetchEncoded(Store store, List<Range> groups, List<Task> present, List<Task> missing, long total) {
        List<Buffer> owned = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            Buffer encoded = track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE, Math.max(1, total)));
            long t1 = System.nanoTime();
            long[] groupAt = new long[groups.size()];
            long pos = 0;
            List<Buffer> slices = new ArrayList<>(present.size());
            for (int g = 0; g < groups.size(); g++) {
                groupAt[g] = pos;
                Range group = groups.get(g);
                for (Task t : group.tasks()) {
                    long len = t.length() < 0 ? group.length() : t.length();
                    slices.add(encoded.slice(pos + t.offset() - group.offset(), len));
                }
                pos += group.length();
            }
            String detail;
            DirectReader direct = backend.directReader().orElse(null);
            // once per file: a file store checks every directory of a key's path against symbolic
            // links out of its root (~12 us a key), and a shard's inner chunks share one file
            java.util.Map<String, java.util.Optional<java.nio.file.Path>> paths = new java.util.HashMap<>();
            if (direct != null && groups.stream().allMatch(g -> paths.computeIfAbsent(g.key(), store::localPath).isPresent())) {
                // Files straight into device memory: no staging, no copy through the JVM.
                List<DirectReader.Request> reqs = new ArrayList<>();
                for (int g = 0; g < groups.size(); g++) {
                    Range group = groups.get(g);
                    reqs.add(new DirectReader.Request(paths.get(group.key()).orElseThrow(), group.offset(),
                            group.length(), encoded, groupAt[g]));
                }
                direct.read(reqs);
                detail = reqs.size() + " ranges, " + direct.describe();
            } else {
                // Every range of the batch into one pinned buffer, read in parallel, then one copy.
                Buffer staging = track(owned, backend.allocateUninitialized(device, MemoryKind.HOST_PINNED, Math.max(1, total)));
                readAll(store, groups, groupAt, staging);
                backend.copy(staging, 0, encoded, 0, total);
                // The staging buffer is done with: give it back now rather than with the batch.
                owned.remove(staging);
                staging.close();
                detail = groups.size() + " ranges through pinned staging";
            }
            long t2 = System.nanoTime();
            return new Fetched(present, missing, slices, total, owned, t1 - t0, t2 - t1, detail);
        } catch (RuntimeException | Error e) {
            try {
                closeAll(owned);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * {@link #fetch} for a chain with host stages: every chunk read and decoded on the host, all
     * cores, into one pinned buffer, and the decoded batch to the device in one copy. Only the decoded
     * bytes are pinned (the host reads the encoded ones), so a batch's pinned memory stays within
     * what the backend's pinned pool keeps.
     */
    private Fetched fetchDecodedOnHost(Store store, List<Task> present, List<Task> missing, long total, Buffer dest,
                                       long[] direct, java.util.concurrent.ExecutorService on) {
        List<Buffer> owned = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            long chunkBytes = spec.byteSize();
            long decodedTotal = Math.multiplyExact(chunkBytes, present.size());
            Buffer decodedHost = track(owned, backend.allocateUninitialized(device, MemoryKind.HOST_PINNED,
                    Math.max(1, decodedTotal)));
            Landing landing = land(owned, present.size(), dest, direct);
            long t1 = System.nanoTime();
            HostLanes.forEach(on, Runtime.getRuntime().availableProcessors(), present.size(),
                    i -> decodeOnHost(store, present.get(i), decodedHost.segment().asSlice(i * chunkBytes, chunkBytes)));
            int copies = landing.copy(decodedHost, 0, present.size());
            // the pinned buffer is done with: give it back now rather than with the batch
            owned.remove(decodedHost);
            decodedHost.close();
            long t2 = System.nanoTime();
            return landing.fetched(present, missing, total, owned, t1 - t0, t2 - t1,
                    present.size() + " chunks read and decoded on the host, " + copies + " copies " + landing.where());
        } catch (RuntimeException | Error e) {
            try {
                closeAll(owned);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * {@link #fetchDecodedOnHost} with the overlaps of {@code zarrdirect.hostDecodeOverlap}: every core
     * claims the batch's chunks one at a time (a slow chunk does not hold up a share of others), each
     * chunk is read and decoded into one pinned buffer, and each run of consecutive chunks of at least
     * {@link #HOST_COPY_RUN_BYTES} goes to the device as soon as its last chunk is decoded, by the
     * thread that decoded it, while the other cores decode on: only the last run's copy is left after
     * the decoding ends. {@code started} runs when the last chunk is claimed, so the caller can start
     * the next batch, whose chunks then take the cores this one frees; at most
     * {@link #HOST_BATCHES_IN_FLIGHT} batches decode at once (their pinned buffers stay within the pool).
     */
    private Fetched fetchDecodedOverlapped(Store store, List<Task> present, List<Task> missing, long total,
                                           Runnable started, Buffer dest, long[] direct, int cores,
                                           java.util.concurrent.ExecutorService on) {
        hostBatches.acquireUninterruptibly();
        List<Buffer> owned = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            long chunkBytes = spec.byteSize();
            int n = present.size();
            long decodedTotal = Math.multiplyExact(chunkBytes, n);
            Buffer decodedHost = track(owned, backend.allocateUninitialized(device, MemoryKind.HOST_PINNED,
                    Math.max(1, decodedTotal)));
            Landing landing = land(owned, n, dest, direct);
            long t1 = System.nanoTime();
            java.util.concurrent.atomic.AtomicInteger copies = new java.util.concurrent.atomic.AtomicInteger();
            int perRun = (int) Math.clamp((HOST_COPY_RUN_BYTES + chunkBytes - 1) / Math.max(1, chunkBytes), 1, n);
            int runs = (n + perRun - 1) / perRun;
            java.util.concurrent.atomic.AtomicIntegerArray left = new java.util.concurrent.atomic.AtomicIntegerArray(runs);
            for (int r = 0; r < runs; r++) {
                left.set(r, Math.min(n, (r + 1) * perRun) - r * perRun);
            }
            java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            int lanes = Math.min(n, cores);
            HostLanes.forEach(on, lanes, lanes, lane -> {
                try {
                    while (!stop.get()) {
                        int i = next.getAndIncrement();
                        if (i >= n) {
                            return;
                        }
                        if (i == n - 1 && started != null) {
                            started.run();
                        }
                        decodeOnHost(store, present.get(i), decodedHost.segment().asSlice(i * chunkBytes, chunkBytes));
                        int r = i / perRun;
                        if (left.decrementAndGet(r) == 0) {
                            copies.addAndGet(landing.copy(decodedHost, r * perRun, Math.min(n, (r + 1) * perRun)));
                        }
                    }
                } catch (RuntimeException | Error e) {
                    stop.set(true);
                    throw e;
                }
            });
            // every copy has ended: the pinned buffer is done with, give it back now rather than with the batch
            owned.remove(decodedHost);
            decodedHost.close();
            long t2 = System.nanoTime();
            return landing.fetched(present, missing, total, owned, t1 - t0, t2 - t1,
                    n + " chunks read and decoded on the host, " + copies.get() + " copies while decoding "
                            + landing.where());
        } catch (RuntimeException | Error e) {
            try {
                closeAll(owned);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            hostBatches.release();
        }
    }

    /**
     * Each present chunk's offset in its destination when every one of them is one contiguous box
     * there, else null (they are placed by {@link #decode} from a batch buffer).
     */
    private long[] directOffsets(List<Task> present, long[] destShape, long[] destByteStrides) {
        int es = spec.dataType().byteSize();
        long[] at = new long[present.size()];
        for (int i = 0; i < at.length; i++) {
            List<Place> places = present.get(i).places();
            at[i] = places.size() == 1 ? directOffset(places.getFirst(), destShape, destByteStrides, es) : -1;
            if (at[i] < 0) {
                return null;
            }
        }
        return at;
    }

    /** Where a host-decoded batch lands on the device: {@code dest} at {@code direct}, or a batch buffer of its own. */
    private Landing land(List<Buffer> owned, int n, Buffer dest, long[] direct) {
        long chunkBytes = spec.byteSize();
        if (direct != null) {
            return new Landing(dest, direct, chunkBytes, true);
        }
        Buffer decoded = track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE,
                Math.max(1, Math.multiplyExact(chunkBytes, n))));
        long[] at = new long[n];
        for (int i = 0; i < n; i++) {
            at[i] = i * chunkBytes;
        }
        return new Landing(decoded, at, chunkBytes, false);
    }

    /**
     * The device side of a host-decoded batch: chunk i of the pinned buffer (at i x chunk bytes)
     * goes to {@code to} at {@code at[i]}. Chunks next to each other on both sides go in one copy:
     * each copy is a call that waits for its stream (tens of microseconds), and a batch of 64 chunks
     * of 2 MB, placed one copy each, spent about a millisecond on them.
     */
    private final class Landing {
        private final Buffer to;
        private final long[] at;
        private final long chunkBytes;
        private final boolean placed;

        Landing(Buffer to, long[] at, long chunkBytes, boolean placed) {
            this.to = to;
            this.at = at;
            this.chunkBytes = chunkBytes;
            this.placed = placed;
        }

        /** Copies chunks {@code from} to {@code until} (exclusive) out of {@code pinned}; returns the copies made. */
        int copy(Buffer pinned, int from, int until) {
            int copies = 0;
            for (int i = from; i < until; ) {
                int j = i + 1;
                while (j < until && at[j] == at[j - 1] + chunkBytes) {
                    j++;
                }
                backend.copy(pinned, i * chunkBytes, to, at[i], (j - i) * chunkBytes);
                copies++;
                i = j;
            }
            return copies;
        }

        String where() {
            return placed ? "into the destination" : "into a batch buffer";
        }

        Fetched fetched(List<Task> present, List<Task> missing, long total, List<Buffer> owned, long allocNanos,
                        long readNanos, String detail) {
            List<Buffer> slices = new ArrayList<>(present.size());
            if (!placed) {
                for (int i = 0; i < present.size(); i++) {
                    slices.add(to.slice(at[i], chunkBytes));
                }
            }
            Fetched f = new Fetched(present, missing, slices, total, owned, allocNanos, readNanos, detail, true);
            f.placedInto = placed ? to : null;
            return f;
        }
    }

    private void checkEncodedSize(Store store, String key, long bytes, String label, String how) {
        if (bytes > maxEncoded) {
            throw new dev.zarrdirect.api.CorruptChunkException(a2b.name(), "chunk " + label + " (key \"" + key
                    + "\" in " + store + "): " + how + " " + bytes + " bytes, more than the " + maxEncoded
                    + " bytes its codecs can produce at most");
        }
    }

    /** Reads task {@code t}'s chunk and decodes it on the host into {@code out}, with scratch kept from batch to batch. */
    private void decodeOnHost(Store store, Task t, MemorySegment out) {
        ByteRange range = t.length() < 0 ? ByteRange.ALL : ByteRange.of(t.offset(), t.length());
        HostScratch scratch = hostScratch.poll();
        if (scratch == null) {
            scratch = new HostScratch();
        }
        try {
            HostScratch sc = scratch;
            MemorySegment enc = store.get(t.key(), range, (size, align) -> sc.get(HostScratch.ENCODED, size))
                    .orElseThrow(() -> new ZarrDirectException("key \"" + t.key() + "\" in " + store
                            + " disappeared while it was read"));
            hostDecodeChain.decode(enc, out, t.label(), sc);
        } finally {
            hostScratch.add(scratch);
        }
    }

    /** Every range of {@code groups} into {@code staging} at {@code groupAt}, in parallel; every read ends before this returns. */
    private static void readAll(Store store, List<Range> groups, long[] groupAt, Buffer staging) {
        HostLanes.forEachInCommonPool(groups.size(), g -> readInto(store, groups.get(g), groupAt[g], staging));
    }

    private static void readInto(Store store, Range g, long at, Buffer staging) {
        boolean whole = g.tasks().getFirst().length() < 0;
        ByteRange range = whole ? ByteRange.ALL : ByteRange.of(g.offset(), g.length());
        MemorySegment got = store.get(g.key(), range, (size, align) -> {
            if (size != g.length()) {
                throw new ZarrDirectException("key \"" + g.key() + "\" in " + store + " changed size while it was read ("
                        + g.length() + " then " + size + " bytes)");
            }
            return staging.segment().asSlice(at, size);
        }).orElse(null);
        if (got == null) {
            throw new ZarrDirectException("key \"" + g.key() + "\" in " + store + " disappeared while it was read");
        }
    }

    /** Closes every buffer even when one close fails; the first failure is thrown, later ones suppressed. */
    private static void closeAll(List<Buffer> owned) {
        RuntimeException first = null;
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        owned.clear();
        if (first != null) {
            throw first;
        }
    }

    /**
     * Decodes a fetched batch into {@code dest}, a device region of the destination tensor (the whole
     * tensor; each place's {@code at} is relative to it), and fills the boxes of chunks never written.
     */
    public void decode(Fetched f, Buffer dest, long destOffset, long[] destShape, long[] destByteStrides) {
        // from here the batch is this call's to report: timed when it ends, dropped when it fails
        // (close() tells of a batch that never gets here)
        PathChoice choice = f.choice;
        f.choice = null;
        try {
            decodeBatch(f, dest, destOffset, destShape, destByteStrides);
            java.util.concurrent.CompletableFuture<Fetched> host = f.hostPart;
            if (host != null) {
                long deviceEnd = System.nanoTime();
                f.hostPart = null;
                Fetched h;
                try {
                    h = host.join();
                } catch (java.util.concurrent.CompletionException e) {
                    // the host part's own failure (a corrupt chunk: the CPU's exception), not the wrapper
                    if (e.getCause() instanceof Error err) {
                        throw err;
                    }
                    throw e.getCause() instanceof RuntimeException r ? r : e;
                }
                try (h) {
                    decodeBatch(h, dest, destOffset, destShape, destByteStrides);
                }
                hostShare.ended(f.hostRanges, h.endNanos - f.startNanos, f.deviceRanges, deviceEnd - f.startNanos);
                f.parts = new SharedParts(f.hostRanges, f.deviceRanges, f.startNanos, deviceEnd, h.endNanos);
            }
        } catch (RuntimeException | Error e) {
            if (choice != null) {
                choice.dropped(f.way, f.startNanos);
            }
            throw e;
        }
        if (choice != null) {
            choice.ended(f.way, f.present.size(), f.present.size() * spec.byteSize(), f.startNanos, System.nanoTime());
        }
    }

    private void decodeBatch(Fetched f, Buffer dest, long destOffset, long[] destShape, long[] destByteStrides) {
        int es = spec.dataType().byteSize();
        if (!f.missing.isEmpty()) {
            List<Region> fills = new ArrayList<>();
            for (Task t : f.missing) {
                for (Place p : t.places()) {
                    fills.add(destRegion(dest, destOffset, destByteStrides, p));
                }
            }
            backend.fillRegions(fills, fill);
        }
        List<Task> present = f.present;
        if (present.isEmpty()) {
            return;
        }
        if (f.placedInto != null) {
            // the fetch copied every chunk to its place in the destination it was given
            if (f.placedInto != dest || destOffset != 0) {
                throw new IllegalStateException("a batch fetched into one destination is decoded into another");
            }
            return;
        }
        if (f.decoded) {
            placeDecoded(f, dest, destOffset, destShape, destByteStrides, es);
            return;
        }
        List<Buffer> owned = f.owned;
        // Where each chunk's final bytes go: straight into the destination when it has one place
        // there and that box is one contiguous run, else a batch buffer placed afterwards with one
        // region copy per place.
        List<Buffer> finals = new ArrayList<>();
        List<Region.Copy> place = new ArrayList<>();
        long chunkBytes = spec.byteSize();
        Buffer decodedAll = null;
        long[] direct = new long[present.size()];
        int staged = 0;
        for (int i = 0; i < present.size(); i++) {
            Task t = present.get(i);
            direct[i] = t.places().size() == 1 ? directOffset(t.places().getFirst(), destShape, destByteStrides, es) : -1;
            if (direct[i] < 0) {
                staged++;
            }
        }
        if (staged > 0) {
            decodedAll = track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE, staged * chunkBytes));
        }
        int k = 0;
        long[] cShape = spec.shape();
        long[] cs = StridedCopy.cByteStrides(cShape, es);
        for (int i = 0; i < present.size(); i++) {
            Task t = present.get(i);
            if (direct[i] >= 0) {
                finals.add(dest.slice(destOffset + direct[i], chunkBytes));
                continue;
            }
            Buffer b = decodedAll.slice(k++ * chunkBytes, chunkBytes);
            finals.add(b);
            for (Place p : t.places()) {
                long so = 0;
                for (int d = 0; d < cs.length; d++) {
                    so += p.chunkStart()[d] * cs[d];
                }
                place.add(new Region.Copy(new Region(b, so, p.extent(), cs), destRegion(dest, destOffset, destByteStrides, p)));
            }
        }
        List<String> labels = present.stream().map(Task::label).toList();
        runStages(new ArrayList<>(f.slices), finals, labels, owned);
        if (!place.isEmpty()) {
            backend.copyRegions(place, es);
        }
    }

    /**
     * Places a batch decoded on the host: a whole chunk that is one contiguous run of the destination
     * is one plain device copy (the driver's copy engine); the rest is one batched region copy from the
     * batch's device slices. The region-copy kernel is built for many small boxes: on whole 66 MB
     * chunks it ran at about 5 GB/s (H100 trace: 105 ms for eight), the plain copy at device bandwidth.
     */
    private void placeDecoded(Fetched f, Buffer dest, long destOffset, long[] destShape, long[] destByteStrides, int es) {
        long[] cs = StridedCopy.cByteStrides(spec.shape(), es);
        long chunkBytes = spec.byteSize();
        List<Region.Copy> place = new ArrayList<>();
        for (int i = 0; i < f.present.size(); i++) {
            Buffer b = f.slices.get(i);
            List<Place> places = f.present.get(i).places();
            long direct = places.size() == 1 && b.byteSize() >= chunkBytes
                    ? directOffset(places.getFirst(), destShape, destByteStrides, es) : -1;
            if (direct >= 0) {
                backend.copy(b, 0, dest, destOffset + direct, chunkBytes);
                continue;
            }
            for (Place p : places) {
                long so = 0;
                for (int d = 0; d < cs.length; d++) {
                    so += p.chunkStart()[d] * cs[d];
                }
                place.add(new Region.Copy(new Region(b, so, p.extent(), cs), destRegion(dest, destOffset, destByteStrides, p)));
            }
        }
        if (!place.isEmpty()) {
            backend.copyRegions(place, es);
        }
    }

    private void runStages(List<Buffer> in, List<Buffer> finals, List<String> labels, List<Buffer> owned) {
        int n = in.size();
        List<Buffer> cur = in;
        for (int s = b2b.size() - 1; s >= 0; s--) {
            BytesToBytesCodec c = b2b.get(s);
            long[] sizes = new long[n];
            for (int i = 0; i < n; i++) {
                sizes[i] = stages.stageSize(s) >= 0 ? stages.stageSize(s) : c.decodedSize(cur.get(i).byteSize());
                if (sizes[i] < 0) {
                    throw new CorruptChunkException(c.name(), labels.get(i) + " is too short for \"" + c.name()
                            + "\": " + cur.get(i).byteSize() + " bytes");
                }
            }
            boolean last = s == 0 && a2a.isEmpty() && a2bIdentity;
            List<Buffer> out = last ? finals : slices(track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE,
                    Math.max(1, java.util.Arrays.stream(sizes).sum()))), sizes);
            List<Buffer> src = cur;
            run(c, src, out, labels, owned, b -> c.decode(b));
            cur = out;
        }
        if (a2a.isEmpty()) {
            if (a2bIdentity && cur == finals) {
                return;
            }
            checkSizes(cur, stages.stageSize(0), labels);
            List<Buffer> src = cur;
            run(a2b, src, finals, labels, owned, b -> a2b.decode(a2bSpec, b));
            return;
        }
        checkSizes(cur, stages.stageSize(0), labels);
        List<Buffer> arr = slices(track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE, Math.max(1, a2bSpec.byteSize() * n))),
                a2bSpec.byteSize(), n);
        List<Buffer> src0 = cur;
        run(a2b, src0, arr, labels, owned, b -> a2b.decode(a2bSpec, b));
        cur = arr;
        for (int i = a2a.size() - 1; i >= 0; i--) {
            ChunkSpec decodedSpec = stages.arrayToArrayDecodedSpec(i);
            List<Buffer> out = i == 0 ? finals : slices(track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE,
                    Math.max(1, decodedSpec.byteSize() * n))), decodedSpec.byteSize(), n);
            ArrayToArrayCodec c = a2a.get(i);
            List<Buffer> src = cur;
            run(c, src, out, labels, owned, b -> c.decode(decodedSpec, b));
            cur = out;
        }
    }

    private void checkSizes(List<Buffer> cur, long expect, List<String> labels) {
        for (int i = 0; i < cur.size(); i++) {
            if (expect >= 0 && cur.get(i).byteSize() != expect) {
                throw new CorruptChunkException(a2b.name(), labels.get(i) + " has " + cur.get(i).byteSize()
                        + " bytes where its codecs imply " + expect);
            }
        }
    }

    /** Runs one stage as one batch, through the host when the codec is not on this device. */
    private void run(Codec c, List<Buffer> in, List<Buffer> out, List<String> labels, List<Buffer> owned,
                     Consumer<CodecBatch> stage) {
        int n = in.size();
        boolean onDevice = c.device().equals(device);
        List<Buffer> ins = in;
        List<Buffer> outs = out;
        List<Buffer> hostOut = null;
        if (!onDevice) {
            ins = new ArrayList<>();
            hostOut = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Buffer h = track(owned, backend.allocateUninitialized(device, MemoryKind.HOST_PINNED, Math.max(1, in.get(i).byteSize())))
                        .slice(0, in.get(i).byteSize());
                backend.copy(in.get(i), 0, h, 0, in.get(i).byteSize());
                ins.add(h);
                hostOut.add(track(owned, backend.allocateUninitialized(device, MemoryKind.HOST_PINNED, Math.max(1, out.get(i).byteSize())))
                        .slice(0, out.get(i).byteSize()));
            }
            outs = hostOut;
        }
        List<CodecBatch.Item> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            items.add(new CodecBatch.Item(ins.get(i), outs.get(i), labels.get(i)));
        }
        CodecBatch batch = new CodecBatch(items);
        try {
            stage.accept(batch);
        } catch (ZarrDirectException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CodecException(c.name(), "codec \"" + c.name() + "\" (" + c.provider() + ") failed on a batch of "
                    + n + " chunks starting with " + labels.getFirst() + ": " + e, e);
        }
        batch.throwIfFailed();
        for (int i = 0; i < n; i++) {
            if (batch.written(i) >= 0 && batch.written(i) != outs.get(i).byteSize() && c instanceof BytesToBytesCodec) {
                throw new CorruptChunkException(c.name(), c.name() + " of " + labels.get(i) + " decoded to "
                        + batch.written(i) + " bytes, expected " + outs.get(i).byteSize());
            }
        }
        if (!onDevice) {
            for (int i = 0; i < n; i++) {
                backend.copy(hostOut.get(i), 0, out.get(i), 0, out.get(i).byteSize());
            }
        }
    }

    private long directOffset(Place t, long[] destShape, long[] destByteStrides, int es) {
        long[] shape = spec.shape();
        for (int i = 0; i < shape.length; i++) {
            if (t.chunkStart()[i] != 0 || t.extent()[i] != shape[i]) {
                return -1;
            }
        }
        // Same rule as HostRegion.contiguousBoxOffset.
        long expect = es;
        boolean seenPartial = false;
        long off = 0;
        for (int i = destShape.length - 1; i >= 0; i--) {
            off += t.at()[i] * destByteStrides[i];
            if (t.extent()[i] == 1) {
                continue;
            }
            if (seenPartial || destByteStrides[i] != expect) {
                return -1;
            }
            if (t.extent()[i] != destShape[i]) {
                seenPartial = true;
            }
            expect *= t.extent()[i];
        }
        return off;
    }

    private static Region destRegion(Buffer dest, long destOffset, long[] destByteStrides, Place t) {
        long off = destOffset;
        for (int i = 0; i < destByteStrides.length; i++) {
            off += t.at()[i] * destByteStrides[i];
        }
        return new Region(dest, off, t.extent(), destByteStrides);
    }

    private static List<Buffer> slices(Buffer b, long[] sizes) {
        List<Buffer> out = new ArrayList<>(sizes.length);
        long pos = 0;
        for (long size : sizes) {
            out.add(b.slice(pos, size));
            pos += size;
        }
        return out;
    }

    private static List<Buffer> slices(Buffer b, long size, int n) {
        List<Buffer> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(b.slice(i * size, size));
        }
        return out;
    }

    private static Buffer track(List<Buffer> owned, Buffer b) {
        owned.add(b);
        return b;
    }
}
