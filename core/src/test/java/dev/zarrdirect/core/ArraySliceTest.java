// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.Codecs;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArraySliceTest {

    static ZarrContext ctx;
    static MemoryStore store;
    static ZarrArray array;
    static final long[] SHAPE = {7, 5, 6};

    /** [7, 5, 6] float32 in [3, 2, 4] chunks (partial edge chunks everywhere) holding 0..209 in C order. */
    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 2);
        store = new MemoryStore();
        array = Zarr.createArray(ctx, store, "a", ArrayMetadata.builder(SHAPE, DataType.FLOAT32)
                .chunks(3, 2, 4).compressors(Codecs.zstd(1)).build());
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, SHAPE)) {
            for (int i = 0; i < 210; i++) {
                t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
            }
            array.write(t);
        }
    }

    @AfterAll
    static void stop() {
        store.close();
        ctx.close();
    }

    /** What NumPy gives for one dimension's entry, computed the plain way: the list of indices. */
    private static List<Long> indices(long start, long stop, long step) {
        List<Long> out = new ArrayList<>();
        for (long i = start; i < stop; i += step) {
            out.add(i);
        }
        return out;
    }

    @Test
    void randomSlicesWithStepsAndIntegerIndicesReadWhatTheIndicesSay() {
        SplittableRandom r = new SplittableRandom(7);
        for (int trial = 0; trial < 200; trial++) {
            StringBuilder text = new StringBuilder();
            List<List<Long>> picked = new ArrayList<>();
            List<Boolean> kept = new ArrayList<>();
            for (int d = 0; d < 3; d++) {
                long n = SHAPE[d];
                if (d > 0) {
                    text.append(',');
                }
                if (r.nextInt(4) == 0) {
                    long i = r.nextLong(-n, n);
                    text.append(i);
                    picked.add(List.of(i < 0 ? i + n : i));
                    kept.add(false);
                } else {
                    long a = r.nextLong(0, n + 1);
                    long b = r.nextLong(0, n + 1);
                    long st = r.nextLong(1, 4);
                    boolean negative = r.nextBoolean() && a > 0 && a < n; // -0 would mean 0, not n
                    text.append(negative ? a - n : a).append(':').append(b).append(':').append(st);
                    picked.add(indices(a, b, st));
                    kept.add(true);
                }
            }
            ArraySlice s = ArraySlice.parse(text.toString(), SHAPE);
            long[] expectShape = new long[(int) kept.stream().filter(k -> k).count()];
            for (int d = 0, k = 0; d < 3; d++) {
                if (kept.get(d)) {
                    expectShape[k++] = picked.get(d).size();
                }
            }
            assertArrayEquals(expectShape, s.shape(), text.toString());
            try (Tensor t = array.read(s)) {
                assertArrayEquals(expectShape, t.shape(), text.toString());
                List<Float> expect = new ArrayList<>();
                for (long i : picked.get(0)) {
                    for (long j : picked.get(1)) {
                        for (long k : picked.get(2)) {
                            expect.add((float) (i * 30 + j * 6 + k));
                        }
                    }
                }
                float[] got = t.toFloatArray();
                assertEquals(expect.size(), got.length, text.toString());
                for (int i = 0; i < got.length; i++) {
                    assertEquals(expect.get(i), got[i], text + " element " + i);
                }
            }
        }
    }

    @Test
    void anEllipsisStandsForTheDimensionsNotNamed() {
        ArraySlice s = ArraySlice.parse("..., 2", SHAPE);
        assertArrayEquals(new long[]{7, 5}, s.shape());
        try (Tensor t = array.read(s)) {
            assertEquals(2f + 30 + 6, t.getFloat(1, 1));
        }
        assertArrayEquals(new long[]{5, 6}, ArraySlice.parse("-1", SHAPE).shape());
    }

    @Test
    void outOfRangeAndMalformedEntriesNameTheDimensionAndItsBounds() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ArraySlice.parse("7", SHAPE));
        assertTrue(e.getMessage().contains("dimension 0 of size 7"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ArraySlice.parse(":,200:300", SHAPE));
        assertTrue(e.getMessage().contains("dimension 1 of size 5"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ArraySlice.parse("::0", SHAPE));
        assertTrue(e.getMessage().contains("positive"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ArraySlice.parse("1,2,3,4", SHAPE));
        assertThrows(IllegalArgumentException.class, () -> ArraySlice.parse("a:b", SHAPE));
        assertThrows(IllegalArgumentException.class, () -> ArraySlice.parse("...,...", SHAPE));
    }

    @Test
    void anEmptySliceReadsAnEmptyTensor() {
        try (Tensor t = array.read(ArraySlice.parse("3:3", SHAPE))) {
            assertArrayEquals(new long[]{0, 5, 6}, t.shape());
            assertEquals(0, t.toFloatArray().length);
        }
    }

    @Test
    void aPlanOfTheWrongRankIsAnIllegalArgumentNotAnIndexError() {
        var r3 = new dev.zarrdirect.core.plan.ReadPlanner.Request(new long[]{0, 0, 0}, new long[]{1, 1, 1}, new long[]{0, 0, 0});
        var r2 = new dev.zarrdirect.core.plan.ReadPlanner.Request(new long[]{0, 0}, new long[]{1, 1}, new long[]{0, 0});
        assertThrows(IllegalArgumentException.class, () -> array.plan(List.of(r2), new long[]{1, 1, 1}));
        assertThrows(IllegalArgumentException.class, () -> array.plan(List.of(r3), new long[]{1, 1}));
        assertThrows(IllegalArgumentException.class, () -> array.plan(List.of(r3), new long[]{1, 1, 1, 1}));
    }
}
