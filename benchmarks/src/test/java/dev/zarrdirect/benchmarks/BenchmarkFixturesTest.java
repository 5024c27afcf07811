// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.benchmarks;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.store.memory.MemoryStore;
import dev.zarrdirect.testkit.SyntheticEra5;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The data and arrays the benchmarks measure are what they claim to be. No benchmark runs here:
 * JMH runs them from the jar ({@code java -jar benchmarks/target/benchmarks.jar}).
 */
class BenchmarkFixturesTest {

    @Test
    void codecChunkIsOneMebibyteOfPlausibleTemperaturesAndDeterministic() {
        float[] a = chunk();
        assertEquals(1 << 20, a.length * 4);
        assertArrayEquals(a, chunk());
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (float v : a) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        assertTrue(min > 230 && max < 320 && max - min > 30, "range " + min + " .. " + max);
    }

    private static float[] chunk() {
        float[] f = new float[CodecBenchmark.CHUNK_ELEMENTS];
        CodecBenchmark.chunk(MemorySegment.ofArray(f));
        return f;
    }

    @Test
    void codecStatesDecodeTheirEncodedChunkBackToTheSource() {
        for (CodecBenchmark.CodecState s : new CodecBenchmark.CodecState[]{zstd(1), zstd(3), new CodecBenchmark.Gzip(),
                new CodecBenchmark.BloscLz4Shuffle(), new CodecBenchmark.Crc32c()}) {
            s.setUp();
            try {
                String what = s.getClass().getSimpleName();
                assertEquals(1 << 20, s.decode(), what);
                assertEquals(-1, s.decoded.segment().mismatch(s.decodeOut.segment()), what + " decodes to the source");
                assertEquals(s.encodedBytes, s.encode(), what + " encodes to the same size again");
            } finally {
                s.tearDown();
            }
        }
    }

    static CodecBenchmark.Zstd zstd(int level) {
        CodecBenchmark.Zstd z = new CodecBenchmark.Zstd();
        z.level = level;
        return z;
    }

    @ParameterizedTest(name = "the {0} layout reads back the fields written")
    @ValueSource(strings = {"zstd", "sharded", "blosc"})
    void eachLayoutReadsBackTheFieldsWritten(String layout) {
        long[] shape = {9, 2, 19, 36};
        try (ZarrContext ctx = ZarrContext.open("cpu", 2); MemoryStore store = new MemoryStore()) {
            ZarrArray a = ReadBenchmark.write(ctx, store, layout, shape);
            try (Tensor t = a.read()) {
                assertEquals(DataType.FLOAT32, t.dataType());
                float[] want = new float[(int) (shape[0] * shape[1] * shape[2] * shape[3])];
                new SyntheticEra5((int) shape[2], (int) shape[3], ReadBenchmark.SEED)
                        .fill(MemorySegment.ofArray(want), 0, (int) shape[0], (int) shape[1]);
                for (int i = 0; i < want.length; i++) {
                    assertEquals(want[i], t.segment().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i), layout + " element " + i);
                }
            }
        }
    }
}
