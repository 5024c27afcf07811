// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.stats;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.loader.dataset.Variable;
import dev.zarrdirect.loader.dataset.WindowDataset;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Computes per-channel mean and standard deviation of a dataset's variables over its time range and
 * (cropped) plane, streaming: the data are read on the host ({@code ZarrArray.read}) a few time steps
 * at a time, within a byte budget, and summarised plane by plane into {@link ChannelMoments} in
 * double (two-pass per block, merged by Chan et al.'s formula, so values with a large offset keep
 * their digits). NaNs, such as the fill value of chunks never written, are skipped and counted;
 * an infinity makes its channel's mean and std infinite or NaN.
 *
 * <h2>What is read</h2>
 * For each variable, the distinct selected channels, sorted, are what the statistics cover (the
 * {@code channels} of its {@link StatsFile} entry). Selected channels that are adjacent or share a
 * chunk along the channel axis are read together, so a chunk holding many channels is decoded once
 * per time block, not once per channel. Time blocks are whole multiples of the time chunk extent
 * when the budget allows, aligned to chunk boundaries.
 *
 * <h2>Threads</h2>
 * The channels of a read are summarised in parallel, one task per channel, on up to the context's
 * {@linkplain dev.zarrdirect.core.ZarrContext#parallelism() worker count} threads (the decoding of
 * the read already runs on them; summarising on one thread left all but one core idle for half the
 * run). Each channel's planes are still added in time order by one thread, so the results are the
 * same bits whatever the thread count.
 */
public final class ChannelStatistics {

    /** The default bound on the bytes of one read: a few ERA5 steps of 16 channels. */
    public static final long DEFAULT_READ_BYTES = 256L << 20;

    /** Values copied out of a read at a time: bounds the scratch however large a plane is. */
    private static final int BLOCK_VALUES = 1 << 20;

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ChannelStatistics() {
    }

    /** {@link #compute(WindowDataset, long, StatsListener)} with reads of up to {@link #DEFAULT_READ_BYTES}. */
    public static StatsFile compute(WindowDataset dataset, StatsListener listener) {
        return compute(dataset, DEFAULT_READ_BYTES, listener);
    }

    /**
     * The statistics of every variable of {@code dataset} over its time range.
     *
     * @param readBytes the most bytes one read holds (at least one plane is read whatever the budget)
     * @param listener  hears progress after each read
     * @throws IllegalArgumentException if {@code readBytes} is not positive
     */
    public static StatsFile compute(WindowDataset dataset, long readBytes, StatsListener listener) {
        if (readBytes < 1) {
            throw new IllegalArgumentException("the read budget must be at least one byte, not " + readBytes);
        }
        Progress progress = new Progress(listener,
                (dataset.timeStop() - dataset.timeStart()) * dataset.variables().size());
        int widest = dataset.variables().stream().mapToInt(v -> v.channels().length).max().orElse(1);
        int threads = Math.max(1, Math.min(dataset.context().parallelism(), widest));
        ExecutorService pool = threads > 1 ? Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "zd-stats");
            t.setDaemon(true);
            return t;
        }) : null;
        try {
            Map<String, StatsFile.VariableStats> out = new LinkedHashMap<>();
            for (Variable v : dataset.variables()) {
                out.put(v.name(), variable(dataset, v, readBytes, progress, pool, threads));
            }
            return new StatsFile(dataset.spec().path(), dataset.timeStart(), dataset.timeStop(), out);
        } finally {
            if (pool != null) {
                pool.shutdownNow();
            }
        }
    }

    /** Counts steps and bytes for the listener. */
    private static final class Progress {
        private final StatsListener listener;
        private final long total;
        private long steps;
        private long bytes;

        Progress(StatsListener listener, long total) {
            this.listener = listener;
            this.total = total;
        }

        void read(long bytes) {
            this.bytes += bytes;
        }

        void stepsDone(long steps) {
            this.steps += steps;
            listener.progress(this.steps, total, bytes);
        }
    }

    private static StatsFile.VariableStats variable(WindowDataset ds, Variable v, long readBytes, Progress progress,
                                                    ExecutorService pool, int threads) {
        int[] covered = new TreeSet<>(boxed(v.channels())).stream().mapToInt(Integer::intValue).toArray();
        ChannelMoments[] moments = new ChannelMoments[covered.length];
        for (int i = 0; i < moments.length; i++) {
            moments[i] = new ChannelMoments();
        }
        long plane = (long) ds.height() * ds.width();
        long planeBytes = Math.max(1, plane * v.dataType().byteSize());
        long[] chunkShape = v.array().chunkShape();
        long channelChunk = v.hasChannelAxis() ? chunkShape[v.channelAxis()] : 1;
        int channelsPerRead = (int) Math.max(1, Math.min(Integer.MAX_VALUE, readBytes / planeBytes));
        List<int[]> groups = channelGroups(covered, channelChunk, channelsPerRead);
        int widest = groups.stream().mapToInt(g -> g[1] - g[0]).max().orElse(1);
        long steps = Math.max(1, readBytes / (widest * planeBytes));
        long timeChunk = chunkShape[v.timeAxis()];
        if (steps >= timeChunk) {
            steps -= steps % timeChunk;
        }
        BlockingQueue<Scratch> scratches = new ArrayBlockingQueue<>(threads);
        for (int i = 0; i < threads; i++) {
            scratches.add(new Scratch(v.dataType(), (int) Math.min(plane, BLOCK_VALUES)));
        }
        for (long t = ds.timeStart(); t < ds.timeStop(); ) {
            long tEnd = Math.min(ds.timeStop(), (t / steps + 1) * steps);
            for (int[] g : groups) {
                Selection box = ds.selection(v, t, tEnd, g[0], g[1]);
                try (Tensor data = v.array().read(box)) {
                    accumulate(v, data, t, tEnd, g, covered, moments, plane, pool, scratches);
                    progress.read(data.byteSize());
                }
            }
            progress.stepsDone(tEnd - t);
            t = tEnd;
        }
        double[] mean = new double[covered.length];
        double[] std = new double[covered.length];
        long[] count = new long[covered.length];
        long[] nans = new long[covered.length];
        for (int i = 0; i < covered.length; i++) {
            mean[i] = moments[i].mean();
            std[i] = moments[i].std();
            count[i] = moments[i].count();
            nans[i] = moments[i].nanCount();
        }
        return new StatsFile.VariableStats(v.hasChannelAxis() ? covered : null, mean, std, count, nans);
    }

    private static List<Integer> boxed(int[] values) {
        List<Integer> out = new ArrayList<>(values.length);
        for (int x : values) {
            out.add(x);
        }
        return out;
    }

    /**
     * Ranges {@code [c0, c1)} of source channels to read: sorted channels join the range before them
     * when adjacent or in the same chunk along the channel axis, up to {@code most} channels a range.
     */
    static List<int[]> channelGroups(int[] sorted, long channelChunk, int most) {
        List<int[]> out = new ArrayList<>();
        int start = sorted[0];
        int last = sorted[0];
        for (int i = 1; i < sorted.length; i++) {
            int c = sorted[i];
            boolean joins = (c == last + 1 || c / channelChunk == last / channelChunk) && c - start < most;
            if (!joins) {
                out.add(new int[]{start, last + 1});
                start = c;
            }
            last = c;
        }
        out.add(new int[]{start, last + 1});
        return out;
    }

    /**
     * Adds the planes of the covered channels in {@code data}, a read of steps [t0, t1) and channels
     * g: one task per channel on {@code pool} (null: on this thread), each adding its planes in time order.
     */
    private static void accumulate(Variable v, Tensor data, long t0, long t1, int[] g, int[] covered,
                                   ChannelMoments[] moments, long plane, ExecutorService pool,
                                   BlockingQueue<Scratch> scratches) {
        List<Integer> inRead = new ArrayList<>();
        for (int i = 0; i < covered.length; i++) {
            if (covered[i] >= g[0] && covered[i] < g[1]) {
                inRead.add(i);
            }
        }
        if (pool == null || inRead.size() == 1) {
            for (int i : inRead) {
                channel(v, data, t0, t1, g, covered[i], moments[i], plane, scratches);
            }
            return;
        }
        List<Future<?>> tasks = new ArrayList<>(inRead.size());
        for (int i : inRead) {
            tasks.add(pool.submit(() -> {
                channel(v, data, t0, t1, g, covered[i], moments[i], plane, scratches);
                return null;
            }));
        }
        // every task is waited for, failed or not: the read's memory is freed when this returns
        Throwable first = null;
        boolean interrupted = false;
        for (Future<?> f : tasks) {
            while (true) {
                try {
                    f.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    if (first == null) {
                        first = e.getCause();
                    }
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (first instanceof RuntimeException r) {
            throw r;
        }
        if (first instanceof Error err) {
            throw err;
        }
        if (first != null) {
            throw new IllegalStateException("summarising " + v.name() + " failed", first);
        }
    }

    /** Adds channel {@code c}'s planes of steps [t0, t1) of the read to {@code into}, in time order. */
    private static void channel(Variable v, Tensor data, long t0, long t1, int[] g, int c, ChannelMoments into,
                                long plane, BlockingQueue<Scratch> scratches) {
        Scratch scratch = scratches.poll();
        if (scratch == null) { // never: as many scratches as threads
            throw new IllegalStateException("no free scratch for channel " + c);
        }
        try {
            long[] strides = data.strides();
            MemorySegment seg = data.segment();
            long elementBytes = v.dataType().byteSize();
            for (long t = t0; t < t1; t++) {
                long offset = (t - t0) * strides[v.timeAxis()]
                        + (v.hasChannelAxis() ? (c - g[0]) * strides[v.channelAxis()] : 0);
                for (long done = 0; done < plane; ) {
                    int n = (int) Math.min(scratch.capacity, plane - done);
                    scratch.add(seg, (offset + done) * elementBytes, n, into);
                    done += n;
                }
            }
        } finally {
            scratches.add(scratch);
        }
    }

    /** A block of values copied out of a read, float or double as the variable. */
    private static final class Scratch {
        private final int capacity;
        private final float[] floats;
        private final double[] doubles;

        Scratch(DataType type, int capacity) {
            this.capacity = Math.max(1, capacity);
            boolean f32 = type.equals(DataType.FLOAT32);
            floats = f32 ? new float[this.capacity] : null;
            doubles = f32 ? null : new double[this.capacity];
        }

        void add(MemorySegment seg, long byteOffset, int n, ChannelMoments into) {
            if (floats != null) {
                MemorySegment.copy(seg, F32, byteOffset, floats, 0, n);
                into.add(floats, n);
            } else {
                MemorySegment.copy(seg, F64, byteOffset, doubles, 0, n);
                into.add(doubles, n);
            }
        }
    }
}
