// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.assemble;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.loader.LoaderSpec;
import dev.zarrdirect.loader.dataset.WindowDataset;
import dev.zarrdirect.loader.sampling.EpochSampler;
import dev.zarrdirect.loader.slots.HostSlots;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.LinkedBlockingQueue;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Whole batches through the real read engine on the CPU backend, compared element by element with
 * windows computed from the arrays read whole: channel selection out of order, a 3-D variable, a
 * float64 variable, stride, crop, normalization, every output type, NaN replacement.
 */
class BatchProducerTest {

    static final int T = 11, C = 4, H = 6, W = 8;

    @TempDir
    static Path dir;
    static float[][][][] x;   // [t][c][y][x]
    static double[][][] s;    // [t][y][x]

    @BeforeAll
    static void writeStore() {
        Random rnd = new Random(42);
        x = new float[T][C][H][W];
        s = new double[T][H][W];
        try (Store store = Stores.open(dir.toString()); ZarrContext ctx = ZarrContext.open("cpu")) {
            Zarr.createGroup(ctx, store, "", Map.of());
            List<CodecMetadata> zstd = List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
                    CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false)));
            ArrayMetadata mx = ArrayMetadata.create(new long[] {T, C, H, W}, DataType.FLOAT32, new long[] {1, 2, H, W},
                    FillValue.zero(DataType.FLOAT32), zstd).withDimensionNames(List.of("time", "channel", "lat", "lon"));
            ArrayMetadata ms = ArrayMetadata.create(new long[] {T, H, W}, DataType.FLOAT64, new long[] {2, H, W},
                    FillValue.zero(DataType.FLOAT64), zstd).withDimensionNames(List.of("time", "lat", "lon"));
            ZarrArray ax = Zarr.createArray(ctx, store, "x", mx);
            ZarrArray as = Zarr.createArray(ctx, store, "s", ms);
            try (Tensor tx = Tensor.allocateHost(DataType.FLOAT32, T, C, H, W);
                 Tensor ts = Tensor.allocateHost(DataType.FLOAT64, T, H, W)) {
                long i = 0;
                for (int t = 0; t < T; t++) {
                    for (int c = 0; c < C; c++) {
                        for (int y = 0; y < H; y++) {
                            for (int k = 0; k < W; k++) {
                                float v = (float) (rnd.nextGaussian() * 10 + 280);
                                if (rnd.nextInt(50) == 0) {
                                    v = Float.NaN;
                                }
                                x[t][c][y][k] = v;
                                tx.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i++, v);
                            }
                        }
                    }
                }
                i = 0;
                for (int t = 0; t < T; t++) {
                    for (int y = 0; y < H; y++) {
                        for (int k = 0; k < W; k++) {
                            double v = rnd.nextGaussian() * 1e3;
                            s[t][y][k] = v;
                            ts.segment().setAtIndex(ValueLayout.JAVA_DOUBLE, i++, v);
                        }
                    }
                }
                ax.write(tx);
                as.write(ts);
            }
        }
    }

    static LoaderSpec spec(PlaneGather.Output dtype, Float nan, boolean dropLast, int batch) {
        return new LoaderSpec(dir.toString(), List.of("x", "s"), Map.of("x", new int[] {3, 1}), null, 2, 1, 2, batch,
                true, 7, dropLast, 1, 11, new long[] {1, 5, 2, 7}, 0, 1,
                Map.of("x", new LoaderSpec.Normalization(new double[] {1, 2}, new double[] {2, 4}),
                        "s", new LoaderSpec.Normalization(new double[] {0.5}, new double[] {3})),
                dtype, nan, 2);
    }

    /** Runs one epoch of {@code spec} and checks every element of every batch; returns the samples seen. */
    static List<Long> runAndCheck(LoaderSpec spec) throws Exception {
        List<Long> seen = new ArrayList<>();
        try (ZarrContext ctx = ZarrContext.open("cpu"); WindowDataset ds = WindowDataset.open(ctx, spec)) {
            SlotLayout layout = new SlotLayout(spec.batchSize(), spec.history(), spec.future(), ds.channels(),
                    ds.height(), ds.width(), spec.dtype());
            Normalizer norm = Normalizer.of(ds.variables(), ds.channels(), spec.normalize());
            EpochSampler sampler = new EpochSampler(ds.sampleCount(), spec.batchSize(), spec.shuffle(), spec.seed(),
                    spec.dropLast(), spec.rank(), spec.worldSize());
            try (HostSlots slots = new HostSlots(ctx.backend(), spec.prefetch() + 1, layout.slotBytes());
                 BatchAssembler asm = new BatchAssembler(ctx, ds, layout, norm, spec.nanValue(), spec.prefetch())) {
                // poison: a slot element the gather forgot would show as 0xA5A5...
                for (int i = 0; i < slots.count(); i++) {
                    slots.slot(i).segment().fill((byte) 0xA5);
                }
                BatchProducer p = new BatchProducer(asm, sampler, ds, slots, spec.prefetch());
                LinkedBlockingQueue<Integer> free = new LinkedBlockingQueue<>(List.of(0, 1, 2));
                p.run(0, 0, free, d -> {
                    check(spec, layout, slots.slot(d.slot()).segment(), d);
                    for (long t : d.time()) {
                        seen.add(t);
                    }
                    free.add(d.slot());
                }, () -> false);
            }
        }
        return seen;
    }

    static void check(LoaderSpec spec, SlotLayout layout, MemorySegment slot, BatchProducer.Delivered d) {
        int window = spec.history() + spec.future();
        long[] crop = spec.crop();
        for (int b = 0; b < d.rows(); b++) {
            for (int t = 0; t < window; t++) {
                int step = (int) (d.time()[b] + (long) t * spec.stride());
                for (int c = 0; c < 3; c++) {
                    for (int y = 0; y < layout.height(); y++) {
                        for (int k = 0; k < layout.width(); k++) {
                            int sy = (int) crop[0] + y, sx = (int) crop[2] + k;
                            float want;
                            if (c < 2) {
                                int src = c == 0 ? 3 : 1;
                                float v = x[step][src][sy][sx];
                                float a = (float) (1.0 / (c == 0 ? 2 : 4));
                                float sh = (float) (-(c == 0 ? 1.0 : 2.0) / (c == 0 ? 2 : 4));
                                want = Float.isNaN(v) && spec.nanValue() != null ? spec.nanValue() : Math.fma(v, a, sh);
                            } else {
                                double v = s[step][sy][sx];
                                want = (float) Math.fma(v, (double) (float) (1.0 / 3), (double) (float) (-0.5 / 3));
                            }
                            long e = layout.plane(b, t, c) * layout.planeElements() + (long) y * layout.width() + k;
                            String where = "batch " + d.index() + " row " + b + " step " + t + " channel " + c + " at "
                                    + y + "," + k;
                            switch (spec.dtype()) {
                                case FLOAT32 -> assertEquals(Float.isNaN(want) ? 0x7FC00000 : Float.floatToRawIntBits(want),
                                        slot.getAtIndex(ValueLayout.JAVA_INT, e), where);
                                case FLOAT16 -> assertEquals(PlaneGather.toHalf(want),
                                        slot.getAtIndex(ValueLayout.JAVA_SHORT, e), where);
                                case BFLOAT16 -> assertEquals(PlaneGather.toBfloat16(want),
                                        slot.getAtIndex(ValueLayout.JAVA_SHORT, e), where);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void everyBatchEqualsTheWindowsComputedFromTheWholeArrays() throws Exception {
        List<Long> seen = runAndCheck(spec(PlaneGather.Output.FLOAT32, null, false, 4));
        // samples start at 1..6 (span 5 within [1, 11)); without drop_last each appears once
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), new ArrayList<>(new TreeSet<>(seen)));
        assertEquals(6, seen.size());
    }

    @Test
    void halfPrecisionOutputsAndNanReplacementMatchTheReferenceArithmetic() throws Exception {
        runAndCheck(spec(PlaneGather.Output.BFLOAT16, null, true, 3));
        runAndCheck(spec(PlaneGather.Output.FLOAT16, -9f, true, 2));
        runAndCheck(spec(PlaneGather.Output.FLOAT32, 0f, true, 1));
    }

    /** Runs {@code epochs} in order on one producer; each batch as its sample starts and its input bytes. */
    static List<String> epochs(LoaderSpec spec, int[] epochs, int[] aheadAfter) throws Exception {
        List<String> out = new ArrayList<>();
        try (ZarrContext ctx = ZarrContext.open("cpu"); WindowDataset ds = WindowDataset.open(ctx, spec)) {
            SlotLayout layout = new SlotLayout(spec.batchSize(), spec.history(), spec.future(), ds.channels(),
                    ds.height(), ds.width(), spec.dtype());
            Normalizer norm = Normalizer.of(ds.variables(), ds.channels(), spec.normalize());
            EpochSampler sampler = new EpochSampler(ds.sampleCount(), spec.batchSize(), spec.shuffle(), spec.seed(),
                    spec.dropLast(), spec.rank(), spec.worldSize());
            try (HostSlots slots = new HostSlots(ctx.backend(), spec.prefetch() + 1, layout.slotBytes());
                 BatchAssembler asm = new BatchAssembler(ctx, ds, layout, norm, spec.nanValue(), spec.prefetch())) {
                BatchProducer p = new BatchProducer(asm, sampler, ds, slots, spec.prefetch());
                for (int i = 0; i < epochs.length; i++) {
                    LinkedBlockingQueue<Integer> free = new LinkedBlockingQueue<>(List.of(0, 1, 2));
                    int epoch = epochs[i];
                    p.run(epoch, 0, free, d -> {
                        byte[] bytes = slots.slot(d.slot()).segment().asSlice(0, layout.deliveredBytes(d.rows()))
                                .toArray(ValueLayout.JAVA_BYTE);
                        out.add(epoch + ":" + java.util.Arrays.toString(d.time()) + ":" + java.util.Arrays.hashCode(bytes));
                        free.add(d.slot());
                    }, () -> false);
                    aheadAfter[i] = p.readAhead();
                }
                p.discardAhead();
            }
        }
        return out;
    }

    @Test
    void theNextEpochsFirstBatchesAreReadAheadAndDeliverWhatAFreshRunWould() throws Exception {
        LoaderSpec spec = spec(PlaneGather.Output.FLOAT32, null, false, 2);
        int[] ahead = new int[3];
        List<String> chained = epochs(spec, new int[] {0, 1, 3}, ahead);
        assertEquals(2, ahead[0], "prefetch 2: the first two batches of epoch 1 read at the end of epoch 0");
        List<String> fresh = new ArrayList<>();
        for (int e : new int[] {0, 1, 3}) {
            fresh.addAll(epochs(spec, new int[] {e}, new int[1]));
        }
        // epoch 1 used what was read ahead; epoch 3 (not the one read ahead) dropped it
        assertEquals(fresh, chained);
    }

    @Test
    void aBatchSharesTheStepsOfOverlappingWindows() {
        try (ZarrContext ctx = ZarrContext.open("cpu")) {
            LoaderSpec spec = spec(PlaneGather.Output.FLOAT32, null, false, 4);
            try (WindowDataset ds = WindowDataset.open(ctx, spec)) {
                SlotLayout layout = new SlotLayout(4, 2, 1, ds.channels(), ds.height(), ds.width(), spec.dtype());
                StagingLayout staging = new StagingLayout(ds.variables(), 12, layout.planeElements());
                Normalizer norm = Normalizer.of(ds.variables(), ds.channels(), spec.normalize());
                BatchAssembly a = BatchAssembly.of(ds, staging, layout, norm, new long[] {1, 3, 5});
                // windows 1,3,5 / 3,5,7 / 5,7,9: five distinct steps, each read once per channel run
                assertArrayEquals(new long[] {1, 3, 5, 7, 9}, a.steps());
                assertEquals(5 * 2, a.variables().get(0).requests().size(), "x: channels 1 and 3 are two runs");
                assertEquals(5, a.variables().get(1).requests().size());
                assertEquals(3 * 3 * 2, a.variables().get(0).srcPlane().length);
                assertThrows(IllegalArgumentException.class,
                        () -> BatchAssembly.of(ds, staging, layout, norm, new long[] {1, 2, 3, 4, 5}));
            }
        }
    }
}
