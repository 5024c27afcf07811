// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.exec;

import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.StridedCopy;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.pipeline.DeviceDecoder;
import dev.zarrdirect.core.pipeline.Futures;
import dev.zarrdirect.core.plan.ChunkRead;
import dev.zarrdirect.core.plan.FetchRange;
import dev.zarrdirect.core.plan.FillBox;
import dev.zarrdirect.core.plan.Placement;
import dev.zarrdirect.core.plan.ReadPlan;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The device side of the read engine: one coordinator thread runs every device read of an engine
 * as one stream of batches. Fetches run ahead of the batch handed to a decoder, one after another
 * in order (one fetch keeps the reader busy, and the batch needed next should land first); batches
 * decode on the workers, each on its own stream, with as many at once as hold {@code decodeDepth}
 * full batches' worth of chunks, so the device starts on the next batch while the last blocks of
 * the one before still run. Reads queued one after another share that window, so a loader's next
 * request is fetched while the current one decodes.
 *
 * <p>A read whose batch fails stops issuing batches; its future fails once every batch of it that
 * was fetched or decoding has ended. Other reads go on.
 */
final class DevicePipeline implements AutoCloseable {

    /** One device read: its batches, its destination and how far it has got. */
    final class Job implements ReadEngine.PendingRead {
        final long id;
        final Store store;
        final DeviceDecoder decoder;
        final Buffer dest;
        final long[] destShape;
        final long[] byteStrides;
        final int batchSize;
        /** Cut by the coordinator only. */
        private final Batches batches;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        private volatile Throwable failure;
        /** Guarded by this job. */
        private int issued;
        private int inFlight;
        private boolean exhausted;
        private boolean finished;

        Job(long id, Store store, DeviceDecoder decoder, Buffer dest, long[] destShape, int batchSize, Batches batches) {
            this.id = id;
            this.store = store;
            this.decoder = decoder;
            this.dest = dest;
            this.destShape = destShape;
            this.byteStrides = StridedCopy.cByteStrides(destShape, decoder.elementSize());
            this.batchSize = batchSize;
            this.batches = batches;
        }

        @Override
        public CompletableFuture<Void> done() {
            return done;
        }

        @Override
        public void cancel() {
            boolean idle;
            synchronized (this) {
                fail(new java.util.concurrent.CancellationException("device read cancelled"));
                idle = inFlight == 0;
            }
            if (idle) {
                // nothing of it is in flight, and no batch of it will be issued now
                finish(this);
            }
        }

        synchronized void fail(Throwable t) {
            if (failure == null) {
                failure = t;
            } else if (failure != t && failure.getSuppressed().length < 8) {
                failure.addSuppressed(t);
            }
        }

        boolean failed() {
            return failure != null;
        }

        /**
         * The next batch, counted in flight; null once the plan is used up or the read failed. Called
         * by the coordinator only; may wait for the plan's next shards, holding no lock meanwhile.
         */
        List<DeviceDecoder.Range> nextBatch() {
            List<DeviceDecoder.Range> b = null;
            if (!failed()) {
                try {
                    b = batches.next();
                } catch (RuntimeException | Error e) {
                    fail(e);
                }
            }
            synchronized (this) {
                if (b == null || failure != null) {
                    exhausted = true;
                    return null;
                }
                issued++;
                inFlight++;
                return b;
            }
        }

        synchronized int issued() {
            return issued;
        }

        /** One batch has ended; true when it was the last and the read can be finished. */
        synchronized boolean batchEnded() {
            inFlight--;
            return inFlight == 0 && exhausted;
        }

        /** True when the plan is used up and nothing is in flight. */
        synchronized boolean idleAndExhausted() {
            return inFlight == 0 && exhausted;
        }

        /** True the first time only: the read's end is reported once. */
        synchronized boolean markFinished() {
            if (finished) {
                return false;
            }
            finished = true;
            return true;
        }

        @Override
        public void await() {
            boolean interrupted = false;
            while (true) {
                try {
                    done.get();
                    break;
                } catch (InterruptedException e) {
                    // the caller frees dest: every batch still writing into it must end first
                    interrupted = true;
                    cancel();
                } catch (ExecutionException e) {
                    break;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            Futures.await(done, "a device read failed", "interrupted while reading to the device");
        }
    }

    /**
     * Cuts a plan into device batches as its parts are planned: its requests in order, cut at
     * {@code size} chunks (a request holding more is split), the first batch {@code first} chunks
     * and each next one twice as many up to {@code size}; a part's fill boxes ride with the batch
     * that takes its first request. A batch is handed out as soon as the parts it needs are planned,
     * so the first fetch does not wait for the last shard's index. Not thread-safe.
     */
    static final class Batches {
        private final List<CompletableFuture<ReadPlan.Part>> parts;
        private final int size;
        private int want;
        private int part;
        private List<FetchRange> ranges = List.of();
        private int range;
        private int from;

        Batches(ReadPlan plan, int size, int first) {
            this.parts = plan.parts();
            this.size = size;
            this.want = Math.clamp(first, 1, size);
        }

        /** The next batch, waiting for the parts it needs; null once every part is handed out. */
        List<DeviceDecoder.Range> next() {
            List<DeviceDecoder.Range> batch = new ArrayList<>();
            int inBatch = 0;
            while (inBatch < want) {
                if (range == ranges.size()) {
                    if (part == parts.size()) {
                        break;
                    }
                    ReadPlan.Part p = Futures.await(parts.get(part++), "planning a device read failed",
                            "interrupted while planning a device read");
                    if (!p.fills().isEmpty()) {
                        batch.add(fills(p.fills()));
                    }
                    ranges = p.ranges();
                    range = 0;
                    from = 0;
                    continue;
                }
                FetchRange r = ranges.get(range);
                int take = Math.min(want - inBatch, r.chunks().size() - from);
                batch.add(range(r, r.chunks().subList(from, from + take), take == r.chunks().size()));
                from += take;
                inBatch += take;
                if (from == r.chunks().size()) {
                    range++;
                    from = 0;
                }
            }
            if (batch.isEmpty()) {
                return null;
            }
            want = (int) Math.min(size, 2L * want);
            return batch;
        }

        private static DeviceDecoder.Range fills(List<FillBox> boxes) {
            List<DeviceDecoder.Task> fills = new ArrayList<>(boxes.size());
            for (FillBox f : boxes) {
                fills.add(new DeviceDecoder.Task(null, 0, 0, "fill", List.of(new DeviceDecoder.Place(
                        new long[f.at().length], f.extent(), f.at()))));
            }
            return new DeviceDecoder.Range(null, 0, 0, fills);
        }
    }

    /** A batch handed to the fetcher, and what its fetch gives. */
    private record Fetching(Job job, int index, CompletableFuture<DeviceDecoder.Fetched> fetched,
                            CompletableFuture<?> started) {
    }

    /** A batch handed to a decoder, and its share of the decode window. */
    private record Decoding(Job job, Future<?> done, double share) {
    }

    private final ReadEngine engine;
    private final LinkedBlockingQueue<Job> queue = new LinkedBlockingQueue<>();
    private Thread coordinator;
    private volatile boolean closed;

    DevicePipeline(ReadEngine engine) {
        this.engine = engine;
    }

    /** Queues {@code plan}; its batches are cut as its parts are planned. */
    Job submit(ReadPlan plan, Store store, DeviceDecoder decoder, Buffer dest, String what) {
        int size = Math.min(engine.batchSize(decoder.chunkBytes()),
                (int) Math.max(1, Math.min(Integer.MAX_VALUE, decoder.maxBatchBytes() / Math.max(1, decoder.chunkBytes()))));
        int first = engine.settings().deviceFirstBatch() > 0 ? engine.settings().deviceFirstBatch() : size;
        Job job = new Job(engine.nextReadId(), store, decoder, dest, plan.destShape(), size, new Batches(plan, size, first));
        engine.listener().readStarted(job.id, what, plan);
        synchronized (this) {
            if (closed) {
                throw ReadEngine.closedException(engine.backend());
            }
            queue.add(job);
            if (coordinator == null) {
                coordinator = Thread.ofPlatform().daemon().name("zarr-direct-device-pipeline").start(this::run);
            }
        }
        return job;
    }

    /** Every batch of {@code plan}, for tests: waits for its parts. */
    static ArrayDeque<List<DeviceDecoder.Range>> batches(ReadPlan plan, int size, int first) {
        Batches b = new Batches(plan, size, first);
        ArrayDeque<List<DeviceDecoder.Range>> out = new ArrayDeque<>();
        for (List<DeviceDecoder.Range> next = b.next(); next != null; next = b.next()) {
            out.add(next);
        }
        return out;
    }

    /** The part {@code chunks} of request {@code r} as one read (the whole request when {@code all}). */
    private static DeviceDecoder.Range range(FetchRange r, List<ChunkRead> chunks, boolean all) {
        List<DeviceDecoder.Task> tasks = new ArrayList<>(chunks.size());
        for (ChunkRead c : chunks) {
            List<DeviceDecoder.Place> places = new ArrayList<>(c.placements().size());
            for (Placement p : c.placements()) {
                places.add(new DeviceDecoder.Place(p.chunkStart(), p.extent(), p.at()));
            }
            tasks.add(new DeviceDecoder.Task(c.key(), c.offset(), c.length(), c.label(), places));
        }
        if (r.whole()) {
            return DeviceDecoder.Range.whole(tasks.getFirst());
        }
        if (all) {
            return new DeviceDecoder.Range(r.key(), r.offset(), r.length(), tasks);
        }
        // a request split over batches: each part reads only the span of its own chunks
        long start = Long.MAX_VALUE;
        long end = 0;
        for (ChunkRead c : chunks) {
            start = Math.min(start, c.offset());
            end = Math.max(end, c.offset() + c.length());
        }
        return new DeviceDecoder.Range(r.key(), start, end - start, tasks);
    }

    private void run() {
        int depth = engine.settings().decodeDepth();
        ArrayDeque<Fetching> fetching = new ArrayDeque<>();
        ArrayDeque<Decoding> decoding = new ArrayDeque<>();
        double decodingShare = 0;
        CompletableFuture<?> lastFetch = CompletableFuture.completedFuture(null);
        Job current = null;
        try {
            while (true) {
                // Fetches run up to `depth` batches ahead of the batch handed to a decoder.
                while (fetching.size() <= depth) {
                    if (current == null) {
                        boolean idle = fetching.isEmpty() && decoding.isEmpty();
                        current = idle ? queue.take() : queue.poll();
                        if (current == null) {
                            break;
                        }
                    }
                    List<DeviceDecoder.Range> batch = current.nextBatch();
                    if (batch == null) {
                        if (current.idleAndExhausted()) {
                            finish(current);
                        }
                        current = null;
                        continue;
                    }
                    Fetching f = fetch(current, current.issued() - 1, batch, lastFetch);
                    // a host-decoded batch lets the next fetch start once its last chunk has started decoding
                    lastFetch = f.started();
                    fetching.add(f);
                }
                if (fetching.isEmpty()) {
                    if (!decoding.isEmpty()) {
                        decodingShare -= finishOldest(decoding);
                    }
                    continue;
                }
                Fetching f = fetching.removeFirst();
                DeviceDecoder.Fetched got = await(f);
                if (got == null) {
                    batchEnded(f.job());
                    continue;
                }
                Decoding d = decode(f, got);
                if (d == null) {
                    continue;
                }
                decoding.add(d);
                decodingShare += d.share();
                while (decodingShare >= depth - 1e-9 && !decoding.isEmpty()) {
                    decodingShare -= finishOldest(decoding);
                }
            }
        } catch (InterruptedException e) {
            abandon(fetching, decoding, current, ReadEngine.closedException(engine.backend()));
        } catch (RuntimeException | Error e) {
            // a bug or a rejected task: no read may wait for a coordinator that is gone
            abandon(fetching, decoding, current, e);
            synchronized (this) {
                coordinator = null;
            }
            throw e;
        }
    }

    /** Lets what was started end, then fails every read left with {@code why}. */
    private void abandon(ArrayDeque<Fetching> fetching, ArrayDeque<Decoding> decoding, Job current, Throwable why) {
        for (Fetching f : fetching) {
            DeviceDecoder.Fetched got = awaitQuietly(f.fetched());
            if (got != null) {
                got.close();
            }
            f.job().fail(why);
            batchEnded(f.job());
        }
        while (!decoding.isEmpty()) {
            finishOldest(decoding);
        }
        List<Job> left = new ArrayList<>();
        queue.drainTo(left);
        if (current != null && !left.contains(current)) {
            left.add(current);
        }
        for (Job j : left) {
            j.fail(why);
            if (j.nextBatch() == null && j.idleAndExhausted()) {
                finish(j);
            }
        }
    }

    /** Starts fetching {@code batch} of {@code job} once {@code after} has landed (whatever its outcome). */
    private Fetching fetch(Job job, int index, List<DeviceDecoder.Range> batch, CompletableFuture<?> after) {
        ReadListener l = engine.listener();
        CompletableFuture<DeviceDecoder.Fetched> f;
        // completes when the next fetch may start: when this one ends, or (host-decoded batches that
        // overlap) when every chunk of it has started decoding
        CompletableFuture<Void> started = new CompletableFuture<>();
        Runnable signal = job.decoder.overlapsFetches() ? () -> started.complete(null) : null;
        try {
            f = fetchAfter(job, index, batch, after, l, signal);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((got, ex) -> started.complete(null));
        return new Fetching(job, index, f, started);
    }

    private CompletableFuture<DeviceDecoder.Fetched> fetchAfter(Job job, int index, List<DeviceDecoder.Range> batch,
                                                             CompletableFuture<?> after, ReadListener l,
                                                             Runnable started) {
        return after.handleAsync((prev, ex) -> {
            if (job.failed()) {
                return null;
            }
            long t0 = System.nanoTime();
            DeviceDecoder.Fetched got = job.decoder.fetch(job.store, batch, started, job.dest, job.destShape, job.byteStrides);
            if (engine.listening()) {
                long t1 = System.nanoTime();
                l.span(job.id, "alloc " + index, t0, t0 + got.allocNanos(), got.encodedBytes() + " bytes");
                l.span(job.id, "read " + index, t1 - got.readNanos(), t1, got.readDetail());
                l.span(job.id, "fetch " + index, t0, t1, got.taskCount() + " tasks, " + got.encodedBytes()
                        + " encoded bytes, decoded " + got.decodesOn());
            }
            return got;
        }, engine.workers());
    }

    /** The fetched batch; null (the job failed) when the fetch failed or the job had failed already. */
    private DeviceDecoder.Fetched await(Fetching f) {
        long t0 = System.nanoTime();
        try {
            DeviceDecoder.Fetched got = f.fetched().join();
            if (got != null && engine.listening()) {
                engine.listener().span(f.job().id, "wait fetch " + f.index(), t0, System.nanoTime(), null);
            }
            return got;
        } catch (RuntimeException e) {
            f.job().fail(unwrap(e));
            return null;
        }
    }

    private static DeviceDecoder.Fetched awaitQuietly(CompletableFuture<DeviceDecoder.Fetched> f) {
        try {
            return f.join();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Hands a fetched batch to a worker to decode; null when its job has failed meanwhile. */
    private Decoding decode(Fetching f, DeviceDecoder.Fetched got) {
        Job job = f.job();
        if (job.failed()) {
            got.close();
            batchEnded(job);
            return null;
        }
        int tasks = got.taskCount();
        try {
            Future<?> done = engine.workers().submit(() -> {
                long t0 = System.nanoTime();
                try (got) {
                    job.decoder.decode(got, job.dest, 0, job.destShape, job.byteStrides);
                }
                if (engine.listening()) {
                    engine.listener().span(job.id, "decode " + f.index(), t0, System.nanoTime(), tasks + " tasks");
                    DeviceDecoder.SharedParts p = got.sharedParts();
                    if (p != null) {
                        engine.listener().span(job.id, "device part " + f.index(), p.startNanos(), p.deviceEndNanos(),
                                p.deviceRanges() + " ranges");
                        engine.listener().span(job.id, "host part " + f.index(), p.startNanos(), p.hostEndNanos(),
                                p.hostRanges() + " ranges");
                    }
                }
                return null;
            });
            return new Decoding(job, done, (double) tasks / job.batchSize);
        } catch (RuntimeException e) {
            got.close();
            job.fail(e);
            batchEnded(job);
            return null;
        }
    }

    /** Waits for the oldest decoding batch and accounts for it; returns its share of the window. */
    private double finishOldest(ArrayDeque<Decoding> decoding) {
        Decoding d = decoding.removeFirst();
        boolean interrupted = false;
        while (true) {
            try {
                d.done().get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                d.job().fail(e.getCause() == null ? e : e.getCause());
                break;
            }
        }
        batchEnded(d.job());
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return d.share();
    }

    /** One batch of {@code job} has ended (decoded, failed or dropped): completes the job after its last. */
    private void batchEnded(Job job) {
        if (job.batchEnded()) {
            finish(job);
        }
    }

    private void finish(Job job) {
        if (!job.markFinished()) {
            return;
        }
        Throwable failure = job.failure;
        engine.listener().readFinished(job.id, failure);
        if (failure == null) {
            job.done.complete(null);
        } else {
            job.done.completeExceptionally(failure);
        }
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof java.util.concurrent.CompletionException || t instanceof ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    @Override
    public void close() {
        Thread c;
        synchronized (this) {
            closed = true;
            c = coordinator;
        }
        if (c != null) {
            c.interrupt();
            try {
                c.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
