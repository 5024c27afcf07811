// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.exec;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ReadSettings;
import dev.zarrdirect.core.pipeline.ChunkSource;
import dev.zarrdirect.core.pipeline.CodecChain;
import dev.zarrdirect.core.pipeline.DeviceDecoder;
import dev.zarrdirect.core.pipeline.Futures;
import dev.zarrdirect.core.pipeline.HostRegion;
import dev.zarrdirect.core.pipeline.HostScratch;
import dev.zarrdirect.core.pipeline.StoreChunkSource;
import dev.zarrdirect.core.plan.ChunkRead;
import dev.zarrdirect.core.plan.FetchRange;
import dev.zarrdirect.core.plan.FillBox;
import dev.zarrdirect.core.plan.Placement;
import dev.zarrdirect.core.plan.ReadPlan;
import dev.zarrdirect.core.plan.ReadPlanner;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs read plans: fetch, decode, place. One engine per {@link dev.zarrdirect.core.ZarrContext}; it
 * owns the worker threads, the host scratch memory it lends to each task, the device pipeline and
 * the listeners.
 *
 * <h2>Host reads</h2>
 * Each store request of a plan is one task on the workers, with a bounded number in flight; a
 * chunk decodes straight into the destination when its box there is one contiguous run. When a
 * request holds several inner chunks (a shard's, coalesced), the task that fetched them asks idle
 * workers to help decode them, so that a read of a few shards still uses every core; and a request
 * of inner chunks is at most {@link #MAX_REQUEST_BYTES} long, so that a large shard is fetched in
 * pieces and its first inner chunks decode while the rest arrive.
 *
 * <h2>Device reads</h2>
 * A plan is cut into batches (the backend's preferred size, or the {@link ReadSettings}); a
 * single coordinator fetches batches ahead of the one being decoded and keeps up to
 * {@code decodeDepth} batches' worth of chunks decoding at once. Successive plans flow through the
 * same pipeline: the next plan's first batches are fetched, and start decoding, while the last
 * batches of the one before still run ({@link #readToDeviceAsync}).
 *
 * <p>Thread-safe. Close it to stop its threads (the context does).
 */
public final class ReadEngine implements AutoCloseable {

    /** The engine's worker threads: reads started on one run their tasks inline rather than wait for a free worker. */
    static final class Worker extends Thread {
        Worker(Runnable r, String name) {
            super(r, name);
            setDaemon(true);
        }
    }

    private final Backend backend;
    private final ReadSettings settings;
    private final int parallelism;
    private final ExecutorService workers;
    private final List<ReadListener> listeners = new CopyOnWriteArrayList<>();
    private final ReadListener fanOut;
    private final ConcurrentLinkedQueue<HostScratch> scratch = new ConcurrentLinkedQueue<>();
    private final AtomicLong readIds = new AtomicLong();
    private final DevicePipeline device;
    private volatile boolean closed;

    public ReadEngine(Backend backend, int parallelism, ReadSettings settings) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + parallelism);
        }
        this.backend = backend;
        this.settings = settings;
        this.parallelism = parallelism;
        AtomicInteger n = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(parallelism, r -> new Worker(r, "zarr-direct-worker-" + n.incrementAndGet()));
        this.fanOut = new ReadListener() {
            @Override
            public void readStarted(long readId, String what, ReadPlan plan) {
                listeners.forEach(l -> l.readStarted(readId, what, plan));
            }

            @Override
            public void span(long readId, String name, long startNanos, long endNanos, String detail) {
                listeners.forEach(l -> l.span(readId, name, startNanos, endNanos, detail));
            }

            @Override
            public void readFinished(long readId, Throwable failure) {
                listeners.forEach(l -> l.readFinished(readId, failure));
            }
        };
        if (settings.trace()) {
            listeners.add(new TraceListener(System.err));
        }
        this.device = new DevicePipeline(this);
    }

    /** Adds a listener to every read that starts from now on. */
    public void addListener(ReadListener l) {
        listeners.add(l);
    }

    public void removeListener(ReadListener l) {
        listeners.remove(l);
    }

    ReadListener listener() {
        return fanOut;
    }

    boolean listening() {
        return !listeners.isEmpty();
    }

    public ReadSettings settings() {
        return settings;
    }

    public Backend backend() {
        return backend;
    }

    public int parallelism() {
        return parallelism;
    }

    /** The worker threads. */
    public ExecutorService workers() {
        if (closed) {
            throw new IllegalStateException("the read engine on backend \"" + backend.name() + "\" is closed");
        }
        return workers;
    }

    /** True on one of this engine's worker threads, where work must not wait for a free worker. */
    public static boolean onWorkerThread() {
        return Thread.currentThread() instanceof Worker;
    }

    /** Tasks for {@code count} pieces of work, run on the workers with a bounded number in flight (inline when that cannot help). */
    public ParallelChunks tasks(long count) {
        boolean inline = count <= 1 || parallelism == 1 || onWorkerThread();
        return new ParallelChunks(workers(), parallelism, inline);
    }

    /** Runs {@code work} with host scratch memory lent for its duration. */
    public void withScratch(java.util.function.Consumer<HostScratch> work) {
        HostScratch s = scratch.poll();
        if (s == null) {
            s = new HostScratch();
        }
        try {
            work.accept(s);
        } finally {
            // keep as many as can be busy at once; more are garbage
            if (scratch.size() < parallelism + 2) {
                scratch.add(s);
            }
        }
    }

    long nextReadId() {
        return readIds.incrementAndGet();
    }

    /** Plans {@code requests}, reading shard indexes on the workers unless called from one. */
    public ReadPlan plan(ReadPlanner planner, List<ReadPlanner.Request> requests, long[] destShape) {
        return planner.plan(requests, destShape, onWorkerThread() || parallelism == 1 ? null : workers());
    }

    // ---------------------------------------------------------------- host

    /**
     * Runs {@code plan} into {@code target}, a host region of the plan's destination shape, decoding
     * with {@code chain} (the array's chain; its shards' inner chain for a plan of inner chunks).
     * Returns when every element is written; on failure, after every task has ended.
     */
    public void read(ReadPlan plan, Store store, CodecChain chain, HostRegion target, String what) {
        long id = nextReadId();
        ReadListener l = listener();
        l.readStarted(id, what, plan);
        long t0 = System.nanoTime();
        CodecChain decoder = plan.innerChunks() ? chain.shardInner() : chain;
        try {
            for (FillBox f : plan.fills()) {
                target.fill(f.at(), f.extent(), decoder.fill());
            }
            List<FetchRange> requests = pieces(plan.ranges());
            try (ParallelChunks tasks = tasks(requests.size())) {
                for (FetchRange r : requests) {
                    if (!tasks.submit(() -> withScratch(s -> readRange(store, decoder, r, target, s)))) {
                        break;
                    }
                }
                tasks.await();
            }
            if (listening()) {
                l.span(id, "read", t0, System.nanoTime(), plan.chunkCount() + " chunks on " + parallelism + " threads");
            }
            l.readFinished(id, null);
        } catch (RuntimeException | Error e) {
            l.readFinished(id, e);
            throw e;
        }
    }

    /**
     * The most bytes one host request of inner chunks asks for ({@value} bytes, 8 MiB): a
     * coalesced range beyond it is cut at chunk boundaries, so that the first part decodes while
     * the rest is on its way and a few large shards still give every worker something to fetch.
     */
    static final long MAX_REQUEST_BYTES = 8L << 20;

    /** {@code ranges} with every range of several chunks over {@link #MAX_REQUEST_BYTES} cut into pieces at most that long, where chunk sizes allow. */
    static List<FetchRange> pieces(List<FetchRange> ranges) {
        List<FetchRange> out = null;
        for (int k = 0; k < ranges.size(); k++) {
            FetchRange r = ranges.get(k);
            if (r.whole() || r.length() <= MAX_REQUEST_BYTES || r.chunks().size() < 2) {
                if (out != null) {
                    out.add(r);
                }
                continue;
            }
            if (out == null) {
                out = new ArrayList<>(ranges.subList(0, k));
            }
            List<ChunkRead> chunks = r.chunks();
            int first = 0;
            while (first < chunks.size()) {
                long start = chunks.get(first).offset();
                long end = start + chunks.get(first).length();
                int last = first;
                while (last + 1 < chunks.size()) {
                    ChunkRead c = chunks.get(last + 1);
                    long e = Math.max(end, c.offset() + c.length());
                    if (e - start > MAX_REQUEST_BYTES) {
                        break;
                    }
                    end = e;
                    last++;
                }
                out.add(new FetchRange(r.key(), start, end - start, chunks.subList(first, last + 1)));
                first = last + 1;
            }
        }
        return out == null ? ranges : out;
    }

    private void readRange(Store store, CodecChain chain, FetchRange r, HostRegion target, HostScratch s) {
        if (r.whole()) {
            ChunkRead c = r.chunks().getFirst();
            ChunkSource src = new StoreChunkSource(store, r.key(), chain.maxEncodedBytes());
            if (c.placements().size() == 1) {
                Placement p = c.placements().getFirst();
                chain.decodeRegion(src, p.chunkStart(), p.extent(), target, p.at(), c.label(), s);
            } else {
                try (Arena arena = Arena.ofConfined()) {
                    decodeAndPlace(chain, src.read(ByteRange.ALL, (size, align) -> s.encoded(size)), c, target, s, arena);
                }
            }
            return;
        }
        // Before anything is read: the shard index gave these lengths, and it may lie.
        long innerMax = chain.maxEncodedBytes();
        for (ChunkRead c : r.chunks()) {
            if (c.length() > innerMax) {
                throw new dev.zarrdirect.api.CorruptChunkException("sharding_indexed", "shard at key \"" + r.key()
                        + "\" in " + store + ": its index gives " + c.label() + " " + c.length() + " bytes (at "
                        + c.offset() + "), more than the " + innerMax + " bytes its codecs can produce at most");
            }
        }
        // the request's bytes go to the task's scratch: a steady read allocates nothing per request
        MemorySegment bytes;
        try {
            bytes = store.get(r.key(), ByteRange.of(r.offset(), r.length()), (size, align) -> s.encoded(size))
                    .orElse(null);
        } catch (StoreException | IndexOutOfBoundsException e) {
            throw new dev.zarrdirect.api.CorruptChunkException("sharding_indexed", "shard at key \"" + r.key()
                    + "\" in " + store + ": its index points at bytes " + r.offset() + "-" + (r.offset() + r.length())
                    + ", which cannot be read: " + e.getMessage(), e);
        }
        if (bytes == null) {
            throw new dev.zarrdirect.api.CorruptChunkException("sharding_indexed", "shard at key \"" + r.key()
                    + "\" in " + store + " disappeared while it was being read");
        }
        // The inner chunks of a request (a shard's, often) are decoded by this thread and by idle
        // workers together: one task per request would leave a read of few shards on few cores.
        InnerDecodes work = new InnerDecodes(store, chain, r, bytes, target);
        int helpers = helpersFor(r.chunks().size(), chain.spec().byteSize(), bytes);
        for (int i = 0; i < helpers; i++) {
            try {
                workers.execute(() -> {
                    if (!work.exhausted()) {
                        withScratch(work::run);
                    }
                });
            } catch (RejectedExecutionException e) {
                break; // closing: this thread decodes the rest
            }
        }
        work.run(s);
        work.awaitClaimed();
    }

    /**
     * The fewest decoded bytes worth handing to another worker ({@value} bytes, 1 MiB): below it,
     * the hand-off costs about what the decode does.
     */
    static final long MIN_SPLIT_BYTES = 1L << 20;

    /**
     * How many workers to ask to help decode the {@code chunks} inner chunks (of {@code chunkBytes}
     * each) of one request besides the thread that fetched it: none when there is nothing to share,
     * one worker per {@link #MIN_SPLIT_BYTES} beyond the first, at most {@code parallelism - 1}.
     * None when {@code bytes} cannot be read from another thread (a store that returned memory of a
     * confined arena).
     */
    private int helpersFor(int chunks, long chunkBytes, MemorySegment bytes) {
        if (chunks < 2 || parallelism < 2 || !bytes.isAccessibleBy(ANOTHER_THREAD)) {
            return 0;
        }
        long worth = Math.max(1, chunks * Math.max(1, chunkBytes) / MIN_SPLIT_BYTES);
        return (int) Math.min(Math.min(parallelism - 1, chunks - 1), worth - 1);
    }

    /** A thread that never runs: memory it may read is memory every thread may read. */
    private static final Thread ANOTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });

    /**
     * The inner chunks of one fetched request, decoded by whichever threads claim them: the thread
     * that fetched the bytes and the workers it asked to help. Each chunk is claimed once; a helper
     * that starts after the last claim does nothing, so the fetching thread never waits for a
     * worker to become free, only for chunks already being decoded. The first failure stops
     * further decoding and is rethrown by {@link #awaitClaimed()}, later ones suppressed.
     */
    private static final class InnerDecodes {
        private final Store store;
        private final CodecChain chain;
        private final FetchRange range;
        private final MemorySegment bytes;
        private final HostRegion target;
        private final AtomicInteger next = new AtomicInteger();
        private final CountDownLatch finished;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        InnerDecodes(Store store, CodecChain chain, FetchRange range, MemorySegment bytes, HostRegion target) {
            this.store = store;
            this.chain = chain;
            this.range = range;
            this.bytes = bytes;
            this.target = target;
            this.finished = new CountDownLatch(range.chunks().size());
        }

        boolean exhausted() {
            return next.get() >= range.chunks().size();
        }

        /** Claims and decodes chunks until none is left. */
        void run(HostScratch s) {
            List<ChunkRead> chunks = range.chunks();
            try (Arena arena = Arena.ofConfined()) {
                int i;
                while ((i = next.getAndIncrement()) < chunks.size()) {
                    try {
                        if (failure.get() == null) {
                            decode(chunks.get(i), s, arena);
                        }
                    } catch (Throwable t) {
                        if (!failure.compareAndSet(null, t) && failure.get().getSuppressed().length < 8) {
                            failure.get().addSuppressed(t);
                        }
                    } finally {
                        finished.countDown();
                    }
                }
            }
        }

        private void decode(ChunkRead c, HostScratch s, Arena arena) {
            String where = "bytes " + c.offset() + "-" + (c.offset() + c.length()) + " of key \"" + range.key()
                    + "\" in " + store;
            MemorySegment enc = bytes.asSlice(c.offset() - range.offset(), c.length());
            String label = c.label() + " (" + where + ")";
            if (c.placements().size() == 1) {
                Placement p = c.placements().getFirst();
                chain.decodeRegion(ChunkSource.ofMemory(enc, where), p.chunkStart(), p.extent(), target, p.at(), label, s);
            } else {
                decodeAndPlace(chain, enc, c, target, s, arena);
            }
        }

        /**
         * Waits for every chunk to be decoded (once this thread's {@link #run} has returned, every
         * chunk is claimed by a running thread) and rethrows the first failure.
         */
        void awaitClaimed() {
            boolean interrupted = false;
            while (true) {
                try {
                    finished.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the bytes must outlive the decodes that read them
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            Futures.rethrow(failure.get(), Throwable::toString);
        }
    }

    /** A chunk several places need: decoded once into staging, then each box copied out. */
    private static void decodeAndPlace(CodecChain chain, MemorySegment enc, ChunkRead c, HostRegion target,
                                       HostScratch s, Arena arena) {
        if (enc == null) {
            for (Placement p : c.placements()) {
                target.fill(p.at(), p.extent(), chain.fill());
            }
            return;
        }
        MemorySegment chunk = chain.decodeStaged(enc, c.label(), s, arena);
        long[] shape = chain.spec().shape();
        for (Placement p : c.placements()) {
            target.placeFrom(chunk, shape, p.chunkStart(), p.extent(), p.at());
        }
    }

    // ---------------------------------------------------------------- device

    /**
     * Queues {@code plan} behind the device reads already queued, so that its fetches and decodes
     * overlap theirs, and returns at once. The future completes when every element of {@code dest}
     * is written, or fails after every batch of this read has stopped touching it; {@code dest} must
     * stay open until then. Cancelling the future does not stop the read: use the returned handle's
     * {@link PendingRead#cancel()}; {@link PendingRead#await()} is the synchronous read.
     */
    public PendingRead readToDeviceAsync(ReadPlan plan, Store store, DeviceDecoder decoder, Buffer dest, String what) {
        return device.submit(plan, store, decoder, dest, what);
    }

    /** A device read queued with {@link #readToDeviceAsync}. */
    public interface PendingRead {
        /** Completes when the read has ended (successfully or not) and no longer touches its destination. */
        CompletableFuture<Void> done();

        /** Stops issuing the read's remaining batches; {@link #done()} fails once those in flight end. */
        void cancel();

        /** Waits for the read; rethrows its failure. If interrupted, cancels it and still waits for it to end. */
        void await();
    }

    /**
     * Chunks per device batch: {@link ReadSettings#deviceBatchSize()} (or the backend's preferred
     * size), cut to as many chunks of {@code chunkBytes} as {@link ReadSettings#deviceBatchBytes()}
     * (or the backend's preferred bytes) allows, and at least one.
     */
    public int batchSize(long chunkBytes) {
        int chunks = settings.deviceBatchSize() > 0 ? settings.deviceBatchSize() : backend.preferredBatchSize();
        long bytes = settings.deviceBatchBytes() > 0 ? settings.deviceBatchBytes() : backend.preferredBatchBytes();
        long byBytes = bytes / Math.max(1, chunkBytes);
        return (int) Math.max(1, Math.min(Math.max(1, chunks), byBytes));
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        device.close();
        // Let queued chunk tasks run (they release the slots their reads wait on); only then stop.
        workers.shutdown();
        try {
            if (!workers.awaitTermination(60, TimeUnit.SECONDS)) {
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    static ZarrDirectException closedException(Backend b) {
        return new ZarrDirectException("the read engine on backend \"" + b.name() + "\" was closed during the read");
    }
}
