// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link CpuBackend#gather}: its pieces (planes cut at 64 Ki elements, run in parallel) write what the
 * single-threaded {@link PlaneGather#runOnHost} writes, the last of repeated output planes included;
 * the conformance suite runs the random sweep of values.
 */
class HostGatherTest {

    private final CpuBackend backend = Chunks.trackingBackend();

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    private void check(DataType type, PlaneGather.Output out, long n, long[] sp, long[] dp, long seed) {
        Random r = new Random(seed);
        int srcPlanes = 4;
        int dstPlanes = 5;
        float[] sc = new float[sp.length];
        float[] sh = new float[sp.length];
        for (int p = 0; p < sp.length; p++) {
            sc[p] = (float) (1 / (0.1 + r.nextDouble() * 9));
            sh[p] = (float) r.nextGaussian();
        }
        long srcBytes = 1 + srcPlanes * n * type.byteSize();
        long dstBytes = 2 + dstPlanes * n * out.byteSize();
        try (HostBuffer src = backend.allocate(Device.CPU, MemoryKind.HOST, srcBytes);
             HostBuffer got = backend.allocate(Device.CPU, MemoryKind.HOST, dstBytes);
             HostBuffer want = backend.allocate(Device.CPU, MemoryKind.HOST, dstBytes)) {
            for (long i = 0; i < srcPlanes * n; i++) {
                double v = r.nextInt(50) == 0 ? Double.NaN : r.nextGaussian() * 1e3;
                if (type.equals(DataType.FLOAT64)) {
                    src.segment().set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 1 + 8 * i, v);
                } else {
                    src.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, 1 + 4 * i, (float) v);
                }
            }
            got.segment().fill((byte) 0xA5);
            want.segment().fill((byte) 0xA5);
            new PlaneGather(src, 1, type, want, 2, out, n, sp, dp, sc, sh, true, 3f).runOnHost(0, sp.length);
            backend.gather(new PlaneGather(src, 1, type, got, 2, out, n, sp, dp, sc, sh, true, 3f));
            assertEquals(-1, want.segment().mismatch(got.segment()), type + " to " + out + ", " + n
                    + " elements a plane, seed " + seed);
        }
    }

    @Test
    void piecesRunInParallelWriteWhatRunOnHostWrites() {
        long seed = System.nanoTime();
        long[] sp = {3, 0, 3, 1, 2, 0};
        long[] dp = {4, 1, 0, 2, 4, 3}; // output plane 4 twice: the later plane wins
        for (DataType t : new DataType[]{DataType.FLOAT32, DataType.FLOAT64}) {
            for (PlaneGather.Output o : PlaneGather.Output.values()) {
                check(t, o, 3 * HostGather.PIECE + 17, sp, dp, seed); // pieces in parallel, a short last piece
                check(t, o, 1000, sp, dp, seed);                       // on the calling thread
            }
        }
    }

    @Test
    void writersKeepTheLastPlaneOfEachOutputPlane() {
        assertArrayEquals(new int[]{0, 1, 2}, HostGather.writers(new long[]{0, 1, 2}));
        assertArrayEquals(new int[]{1, 3, 4}, HostGather.writers(new long[]{7, 3, 2, 7, 2}));
        assertArrayEquals(new int[]{}, HostGather.writers(new long[]{}));
    }

    @Test
    void aClosedBackendRefusesToGather() {
        try (HostBuffer h = backend.allocate(Device.CPU, MemoryKind.HOST, 64)) {
            PlaneGather g = new PlaneGather(h, 0, DataType.FLOAT32, h, 32, PlaneGather.Output.FLOAT32, 4,
                    new long[]{0}, new long[]{0}, new float[]{1}, new float[]{0}, false, 0);
            CpuBackend other = new CpuBackend();
            other.close();
            var e = assertThrows(IllegalStateException.class, () -> other.gather(g));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }
}
