// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.device;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.backend.PlaneGather.Output;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.core.registry.BackendRegistry;
import dev.zarrdirect.cpu.CpuBackend;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.opencl.OpenClBackend;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every available backend's {@link Backend#gather} writes, byte for byte, what the reference
 * {@link PlaneGather#runOnHost} writes: seeded random gathers from float32 and float64 sources into
 * all three outputs, with NaNs of every sign and payload, infinities, subnormals, values that overflow
 * float16, values exactly on float16 and bfloat16 rounding ties (and on float rounding ties for
 * float64 sources), planes of 1 element, of odd sizes and of 721 x 1440, repeated source planes,
 * permuted and repeated output planes, aligned and unaligned offsets. Every output starts poisoned
 * with 0xA5, and the bytes outside the planes written must keep it.
 *
 * <p>The CPU backend always runs; OpenCL runs where a device is found (PoCL in CI); CUDA on a GPU.
 * Unavailable backends are listed with their probe's reason; {@code ZD_REQUIRE_DEVICE=NAME},
 * {@code ZD_REQUIRE_CUDA=1} or {@code ZD_REQUIRE_OPENCL=1} make a missing one fail instead. The seed
 * is printed; replay with {@code -Dzd.seed=N}.
 */
class PlaneGatherConformanceTest {

    static final long SEED = Long.getLong("zd.seed", System.nanoTime());
    static final byte POISON = (byte) 0xA5;
    /** An ERA5 field: 721 x 1440. */
    static final long ERA5_PLANE = 721L * 1440;

    static {
        System.out.println("plane gather conformance: seed " + SEED + " (replay with -Dzd.seed=" + SEED + ")");
    }

    /** One gather: its geometry, its tables and the seed of its source data. */
    record Case(String label, DataType srcType, Output out, boolean replaceNan, float nanValue, long planeElements,
                int srcPlanes, int dstPlanes, long srcOffset, long dstOffset, long[] srcPlane, long[] dstPlane,
                float[] scale, float[] shift, long dataSeed, boolean sweep) {

        long srcBytes() {
            return srcOffset + srcPlanes * planeElements * srcType.byteSize() + 5;
        }

        long dstBytes() {
            return dstOffset + dstPlanes * planeElements * out.byteSize() + 3;
        }

        @Override
        public String toString() {
            return label + ": " + srcType + " to " + out + ", " + srcPlane.length + " planes of " + planeElements
                    + " elements, offsets " + srcOffset + "/" + dstOffset + ", source planes " + Arrays.toString(srcPlane)
                    + ", output planes " + Arrays.toString(dstPlane) + ", replaceNan " + replaceNan + " (" + nanValue
                    + "), seed " + SEED;
        }
    }

    // ------------------------------------------------------------------ the cases

    static List<Case> cases() {
        Random r = new Random(SEED);
        List<Case> out = new ArrayList<>();
        long[] sizes = {1, 2, 3, 4, 5, 7, 8, 17, 64, 255, 1000, 1023, 1024, 4099};
        long[][] offsets = {{0, 0}, {16, 256}, {4, 8}, {8, 12}, {1, 3}, {7, 5}, {0, 2}, {3, 0}};
        int k = 0;
        for (DataType t : new DataType[]{DataType.FLOAT32, DataType.FLOAT64}) {
            for (Output o : Output.values()) {
                for (boolean replace : new boolean[]{false, true}) {
                    for (long[] off : offsets) {
                        long pe = sizes[r.nextInt(sizes.length)];
                        out.add(random(r, "small " + k++, t, o, replace, pe, off[0] * (t.byteSize() / 4), off[1], r.nextInt(4) == 0));
                    }
                }
            }
        }
        // planes of an ERA5 field: a batch's worth, repeated sources (overlapping windows), permuted outputs
        for (Output o : Output.values()) {
            out.add(random(r, "era5 " + o, DataType.FLOAT32, o, r.nextBoolean(), ERA5_PLANE, 0, 0, false));
        }
        out.add(random(r, "era5 float64", DataType.FLOAT64, Output.BFLOAT16, true, ERA5_PLANE, 16, 32, false));
        out.add(random(r, "era5 odd, unaligned", DataType.FLOAT32, Output.FLOAT16, false, ERA5_PLANE + 1, 4, 6, true));
        // every sign, exponent and top mantissa bits, at and around the rounding ties, through identity planes
        for (Output o : new Output[]{Output.FLOAT16, Output.BFLOAT16}) {
            out.add(new Case("every exponent " + o, DataType.FLOAT32, o, false, 0f, 65536L * 16, 1, 1, 0, 0,
                    new long[]{0}, new long[]{0}, new float[]{1f}, new float[]{-0f}, r.nextLong(), true));
        }
        return out;
    }

    static Case random(Random r, String label, DataType t, Output o, boolean replace, long pe, long srcOff, long dstOff,
                       boolean repeatOutputs) {
        int n = pe >= ERA5_PLANE ? 3 + r.nextInt(3) : 1 + r.nextInt(12);
        int srcPlanes = pe >= ERA5_PLANE ? 3 : 1 + r.nextInt(8);
        int dstPlanes = Math.max(n, pe >= ERA5_PLANE ? n : n + r.nextInt(4));
        long[] sp = new long[n];
        long[] dp = new long[n];
        float[] sc = new float[n];
        float[] sh = new float[n];
        List<Long> outs = new ArrayList<>();
        for (long i = 0; i < dstPlanes; i++) {
            outs.add(i);
        }
        java.util.Collections.shuffle(outs, r);
        for (int p = 0; p < n; p++) {
            sp[p] = r.nextInt(srcPlanes); // repeats: a step in several windows
            dp[p] = repeatOutputs && p > 0 && r.nextInt(3) == 0 ? dp[r.nextInt(p)] : outs.get(p);
            switch (r.nextInt(4)) {
                case 0 -> { // identity: the source's rounding ties reach the conversion
                    sc[p] = 1f;
                    sh[p] = -0f;
                }
                case 1 -> {
                    sc[p] = 1f;
                    sh[p] = 0f;
                }
                default -> { // (x - mean) / std of a field
                    float std = (float) (0.01 + Math.abs(r.nextGaussian()) * 30);
                    float mean = (float) (r.nextGaussian() * 200);
                    sc[p] = 1 / std;
                    sh[p] = -mean / std;
                }
            }
        }
        float nan = switch (r.nextInt(4)) {
            case 0 -> 0f;
            case 1 -> -1f;
            case 2 -> 1e5f; // beyond float16
            default -> Float.NaN;
        };
        return new Case(label, t, o, replace, nan, pe, srcPlanes, dstPlanes, srcOff, dstOff, sp, dp, sc, sh,
                r.nextLong(), false);
    }

    /** One source value: ordinary, or one of the cases the arithmetic must get exactly right. */
    static void putValue(MemorySegment s, long at, Random r, boolean f64) {
        int kind = r.nextInt(24);
        if (f64) {
            double v = switch (kind) {
                case 0 -> Double.longBitsToDouble(0x7FF8000000000000L | r.nextLong() & 0xFFFFFFFFFFFFL
                        | (r.nextBoolean() ? 0x8000000000000000L : 0));
                case 1 -> Double.longBitsToDouble(0x7FF0000000000001L + r.nextInt(1 << 20)); // signalling
                case 2 -> r.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
                case 3 -> Double.MIN_VALUE * r.nextInt(1 << 20) * (r.nextBoolean() ? 1 : -1);
                case 4 -> Float.MIN_VALUE * (double) r.nextInt(1 << 10);
                case 5 -> (r.nextBoolean() ? 1 : -1) * 1e300 * r.nextDouble();
                case 6 -> (r.nextBoolean() ? 1 : -1) * (65520.0 + r.nextInt(3) - 1);
                case 7 -> { // exactly between two floats
                    float f = (float) (r.nextGaussian() * 1000);
                    yield ((double) f + (double) Math.nextUp(f)) / 2;
                }
                case 8 -> r.nextBoolean() ? 0.0 : -0.0;
                case 9 -> Double.longBitsToDouble(r.nextLong());
                case 10 -> (double) Float.intBitsToFloat(r.nextInt(1 << 16) << 16 | 0x8000);
                default -> r.nextGaussian() * 250;
            };
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, at, Double.doubleToRawLongBits(v));
        } else {
            int bits = switch (kind) {
                case 0 -> 0x7FC00000 | r.nextInt(1 << 22) | (r.nextBoolean() ? 0x80000000 : 0);
                case 1 -> 0x7F800001 + r.nextInt(1 << 20) | (r.nextBoolean() ? 0x80000000 : 0); // signalling
                case 2 -> r.nextBoolean() ? 0x7F800000 : 0xFF800000;
                case 3 -> r.nextInt(0x00800000) | (r.nextBoolean() ? 0x80000000 : 0); // subnormal
                case 4 -> Float.floatToRawIntBits((r.nextBoolean() ? 1 : -1) * (65520f + (r.nextInt(3) - 1) * 8f));
                case 5 -> Float.floatToRawIntBits((float) ((r.nextBoolean() ? 1 : -1) * 3e38 * r.nextDouble()));
                case 6 -> r.nextInt(1 << 16) << 16 | 0x8000;                   // bfloat16 tie
                case 7 -> r.nextInt() & 0xFFFFE000 | 0x1000;                    // float16 tie (normal range)
                case 8 -> Float.floatToRawIntBits((2 * r.nextInt(64) + 1) * 0x1p-25f); // float16 subnormal tie
                case 9 -> r.nextBoolean() ? 0 : 0x80000000;
                case 10 -> r.nextInt();
                default -> Float.floatToRawIntBits((float) (r.nextGaussian() * 250));
            };
            s.set(ValueLayout.JAVA_INT_UNALIGNED, at, bits);
        }
    }

    /** The source bytes of {@code c}: poison before and after the planes, values in them. */
    static void fillSource(Case c, MemorySegment s) {
        Random r = new Random(c.dataSeed());
        s.fill((byte) 0x5C);
        long n = c.srcPlanes() * c.planeElements();
        int es = c.srcType().byteSize();
        boolean f64 = c.srcType().equals(DataType.FLOAT64);
        if (c.sweep()) {
            // 65536 high halves x 16 low halves: at, under and over both kinds of tie, and random
            int[] lows = {0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001, 0x2FFF, 0x3000, 0x3001, 0x7FFF, 0x8000, 0x8001, 0xC000,
                    0xFFFF, 0x4000, 0x6000};
            for (long i = 0; i < n; i++) {
                int hi = (int) (i >>> 4);
                int j = (int) (i & 15);
                int lo = j < lows.length ? lows[j] : r.nextInt(1 << 16);
                s.set(ValueLayout.JAVA_INT_UNALIGNED, c.srcOffset() + 4 * i, hi << 16 | lo);
            }
            return;
        }
        for (long i = 0; i < n; i++) {
            putValue(s, c.srcOffset() + i * es, r, f64);
        }
    }

    // ------------------------------------------------------------------ running them

    @TestFactory
    Stream<DynamicTest> everyBackendGathersWhatRunOnHostWrites() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String name : availableBackends()) {
            tests.add(DynamicTest.dynamicTest(name + " gathers what runOnHost writes", () -> checkBackend(name)));
            if (!name.equals("cpu")) {
                tests.add(DynamicTest.dynamicTest(name + " gathers host buffers on the host", () -> checkHostBuffers(name)));
            }
        }
        return tests.stream();
    }

    /** cpu, and every device backend available here; a required one that is missing fails. */
    static List<String> availableBackends() {
        BackendRegistry reg = BackendRegistry.discover();
        List<String> required = new ArrayList<>();
        String dev = System.getenv("ZD_REQUIRE_DEVICE");
        if (dev != null && !dev.isBlank()) {
            required.add(dev);
        }
        if ("1".equals(System.getenv("ZD_REQUIRE_CUDA"))) {
            required.add("cuda");
        }
        if ("1".equals(System.getenv("ZD_REQUIRE_OPENCL"))) {
            required.add("opencl");
        }
        List<String> names = new ArrayList<>();
        for (BackendRegistry.Entry e : reg.entries()) {
            if (e.probe().available()) {
                names.add(e.name());
            } else {
                assertFalse(required.contains(e.name()), "backend " + e.name() + " is required but unavailable: "
                        + e.probe().reason());
                System.out.println("plane gather conformance: skipping " + e.name() + ": " + e.probe().reason());
            }
        }
        for (String r : required) {
            assertTrue(names.contains(r), r + " is required but the registry found " + names);
        }
        assertTrue(names.contains("cpu"), "the cpu backend is always there, found " + names);
        return names;
    }

    static Backend open(String name) {
        Backend b = BackendRegistry.discover().open(name);
        switch (b) {
            case CpuBackend c -> c.trackBuffers(true);
            case OpenClBackend o -> o.trackBuffers(true);
            case CudaBackend c -> c.trackBuffers(true);
            default -> { }
        }
        return b;
    }

    static void assertNoLeaks(Backend b) {
        switch (b) {
            case CpuBackend c -> c.assertNoLiveBuffers();
            case OpenClBackend o -> o.assertNoLiveBuffers();
            case CudaBackend c -> c.assertNoLiveBuffers();
            default -> { }
        }
    }

    private void checkBackend(String name) {
        try (Backend b = open(name)) {
            Device device = b.defaultDevice();
            MemoryKind kind = name.equals("cpu") ? MemoryKind.HOST : MemoryKind.DEVICE;
            for (Case c : cases()) {
                run(b, device, kind, c);
            }
            assertNoLeaks(b);
        }
    }

    private void checkHostBuffers(String name) {
        Random r = new Random(SEED + 7);
        try (Backend b = open(name)) {
            for (Output o : Output.values()) {
                run(b, Device.CPU, MemoryKind.HOST, random(r, "host " + o, DataType.FLOAT32, o, true, 1001, 4, 2, true));
            }
            assertNoLeaks(b);
        }
    }

    /** Runs {@code c} on {@code b} in {@code kind} memory and compares the whole output with the reference. */
    static void run(Backend b, Device device, MemoryKind kind, Case c) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment srcHost = a.allocate(c.srcBytes(), 64);
            fillSource(c, srcHost);
            MemorySegment want = a.allocate(c.dstBytes(), 64).fill(POISON);
            new PlaneGather(HostBuffer.wrap(srcHost), c.srcOffset(), c.srcType(), HostBuffer.wrap(want), c.dstOffset(),
                    c.out(), c.planeElements(), c.srcPlane(), c.dstPlane(), c.scale(), c.shift(), c.replaceNan(),
                    c.nanValue()).runOnHost(0, c.srcPlane().length);
            MemorySegment got = a.allocate(c.dstBytes(), 64);
            try (Buffer src = b.allocate(device, kind, c.srcBytes()); Buffer dst = b.allocate(device, kind, c.dstBytes())) {
                b.copy(HostBuffer.wrap(srcHost), 0, src, 0, c.srcBytes());
                b.fill(dst, 0, c.dstBytes(), MemorySegment.ofArray(new byte[]{POISON}));
                b.gather(new PlaneGather(src, c.srcOffset(), c.srcType(), dst, c.dstOffset(), c.out(), c.planeElements(),
                        c.srcPlane(), c.dstPlane(), c.scale(), c.shift(), c.replaceNan(), c.nanValue()));
                b.copy(dst, 0, HostBuffer.wrap(got), 0, c.dstBytes());
            }
            compare(b.name(), c, want, got);
        }
    }

    static void compare(String backend, Case c, MemorySegment want, MemorySegment got) {
        long mismatch = want.mismatch(got);
        if (mismatch < 0) {
            return;
        }
        long ed = c.out().byteSize();
        long planeBytes = c.planeElements() * ed;
        long rel = mismatch - c.dstOffset();
        boolean written = false;
        for (long d : c.dstPlane()) {
            written |= rel >= d * planeBytes && rel < (d + 1) * planeBytes;
        }
        if (!written) {
            fail(backend + " changed byte " + mismatch + " outside the planes it writes (0x"
                    + Integer.toHexString(got.get(ValueLayout.JAVA_BYTE, mismatch) & 0xFF) + ", was 0xA5) in " + c);
        }
        long elem = rel % planeBytes / ed;
        long outPlane = rel / planeBytes;
        int p = -1;
        for (int i = 0; i < c.dstPlane().length; i++) {
            if (c.dstPlane()[i] == outPlane) {
                p = i;
            }
        }
        long at = c.dstOffset() + outPlane * planeBytes + elem * ed;
        String w = ed == 4 ? Integer.toHexString(want.get(ValueLayout.JAVA_INT_UNALIGNED, at))
                : Integer.toHexString(want.get(ValueLayout.JAVA_SHORT_UNALIGNED, at) & 0xFFFF);
        String g = ed == 4 ? Integer.toHexString(got.get(ValueLayout.JAVA_INT_UNALIGNED, at))
                : Integer.toHexString(got.get(ValueLayout.JAVA_SHORT_UNALIGNED, at) & 0xFFFF);
        fail(backend + " wrote 0x" + g + " instead of 0x" + w + " at element " + elem + " of output plane " + outPlane
                + " (plane " + p + ": source plane " + c.srcPlane()[p] + ", scale " + c.scale()[p] + ", shift "
                + c.shift()[p] + ") in " + c);
    }
}
