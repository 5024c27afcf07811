// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The plane gather on the device and through the host staging of devices without float64, against
 * {@link PlaneGather#runOnHost}; the conformance suite runs the random sweep.
 */
class OpenClGatherTest {

    private OpenClBackend backend;

    @BeforeEach
    void open() {
        backend = OpenCl.openOrSkip();
    }

    @AfterEach
    void noLeaks() {
        if (backend != null) {
            try {
                backend.assertNoLiveBuffers();
            } finally {
                backend.close();
            }
        }
    }

    /** {@code planes} planes of float64 (or float32) noise, NaNs and infinities, on the host. */
    private HostBuffer source(Random r, DataType type, long elems) {
        HostBuffer h = (HostBuffer) backend.allocate(Device.CPU, MemoryKind.HOST, elems * type.byteSize());
        for (long i = 0; i < elems; i++) {
            double v = switch (r.nextInt(10)) {
                case 0 -> Double.NaN;
                case 1 -> Double.NEGATIVE_INFINITY;
                case 2 -> 70000.0 * r.nextGaussian();
                default -> r.nextGaussian() * 100;
            };
            if (type.equals(DataType.FLOAT64)) {
                h.segment().set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 8 * i, v);
            } else {
                h.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4 * i, (float) v);
            }
        }
        return h;
    }

    private byte[] readAll(Buffer b) {
        try (HostBuffer h = (HostBuffer) backend.allocate(Device.CPU, MemoryKind.HOST, b.byteSize())) {
            backend.copy(b, 0, h, 0, b.byteSize());
            return h.segment().toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** Runs the same gather on the device ({@code staged}: through the host) and on the host; both outputs. */
    private void check(DataType type, PlaneGather.Output out, long n, long[] sp, long[] dp, boolean staged, long seed) {
        Random r = new Random(seed);
        int planes = 5;
        long dstBytes = 3 + planes * n * out.byteSize();
        float[] sc = new float[sp.length];
        float[] sh = new float[sp.length];
        for (int p = 0; p < sp.length; p++) {
            sc[p] = (float) (1 / (0.5 + r.nextDouble() * 20));
            sh[p] = (float) r.nextGaussian();
        }
        try (HostBuffer src = source(r, type, planes * n);
             Buffer dsrc = backend.allocate(backend.device(), MemoryKind.DEVICE, src.byteSize());
             Buffer ddst = backend.allocate(backend.device(), MemoryKind.DEVICE, dstBytes);
             HostBuffer want = (HostBuffer) backend.allocate(Device.CPU, MemoryKind.HOST, dstBytes)) {
            backend.copy(src, 0, dsrc, 0, src.byteSize());
            backend.fill(ddst, 0, dstBytes, MemorySegment.ofArray(new byte[]{(byte) 0xA5}));
            want.segment().fill((byte) 0xA5);
            new PlaneGather(src, 0, type, want, 3, out, n, sp, dp, sc, sh, true, -1f).runOnHost(0, sp.length);
            PlaneGather g = new PlaneGather(dsrc, 0, type, ddst, 3, out, n, sp, dp, sc, sh, true, -1f);
            if (staged) {
                backend.regions().gatherKernel().gatherStaged(g, (OpenClBuffer) dsrc, (OpenClBuffer) ddst);
            } else {
                backend.gather(g);
            }
            assertArrayEquals(want.segment().toArray(ValueLayout.JAVA_BYTE), readAll(ddst),
                    type + " to " + out + (staged ? " staged" : "") + ", seed " + seed);
        }
    }

    @Test
    void theKernelAndTheHostStagingWriteWhatRunOnHostWrites() {
        long seed = System.nanoTime();
        long[] sp = {4, 0, 4, 2};
        long[] dp = {1, 3, 0, 1}; // output plane 1 twice: the last plane wins
        for (DataType t : new DataType[]{DataType.FLOAT32, DataType.FLOAT64}) {
            for (PlaneGather.Output o : PlaneGather.Output.values()) {
                check(t, o, 1001, sp, dp, false, seed);
                check(t, o, 64, sp, dp, true, seed);
            }
        }
        assertEquals(1, backend.regions().gatherKernel().pooledTables(),
                "one gather at a time: one table buffer, reused");
    }

    @Test
    void pocLHasDoublesSoFloat64StaysOnTheDevice() {
        if (backend.platformName().contains("Portable Computing Language")) {
            assertTrue(backend.regions().gatherKernel().hasFp64(), backend.describe());
        }
    }

    @Test
    void aSourceOnTheHostAndAnOutputOnTheDeviceAreRefused() {
        try (Buffer h = backend.allocate(Device.CPU, MemoryKind.HOST, 64);
             Buffer d = backend.allocate(backend.device(), MemoryKind.DEVICE, 64)) {
            PlaneGather g = new PlaneGather(h, 0, DataType.FLOAT32, d, 0, PlaneGather.Output.FLOAT32, 4,
                    new long[]{0}, new long[]{0}, new float[]{1}, new float[]{0}, false, 0);
            var e = assertThrows(UnsupportedOperationException.class, () -> backend.gather(g));
            assertTrue(e.getMessage().contains("copy the source"), e.getMessage());
        }
    }
}
