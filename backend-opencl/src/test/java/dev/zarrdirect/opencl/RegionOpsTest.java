// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Region;
import dev.zarrdirect.api.buffer.StridedCopy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Batched region copies and fills on the device give the bytes that {@link StridedCopy} gives on the
 * host, for random boxes inside random (possibly transposed) layouts of elements of 1 to 16 bytes.
 */
class RegionOpsTest {

    enum Sides { DEVICE_TO_DEVICE, HOST_TO_DEVICE, DEVICE_TO_HOST }

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

    /** A box of {@code extent} at byte {@code offset} with {@code strides}, inside {@code bytes} bytes. */
    private record Box(long offset, long[] extent, long[] strides) {
    }

    private static final int[] ELEM_SIZES = {1, 2, 3, 4, 8, 16};

    /** A random box inside a random parent array placed at {@code base}; returns the box and the parent's size. */
    private static Box box(SplittableRandom r, long base, long[] extent, int elem, long[] parentBytes) {
        int rank = extent.length;
        long[] shape = new long[rank];
        long[] origin = new long[rank];
        for (int i = 0; i < rank; i++) {
            shape[i] = extent[i] + r.nextInt(0, 4);
            origin[i] = r.nextLong(0, shape[i] - extent[i] + 1);
        }
        // Strides of the parent in a random axis order (a transposed layout), in bytes.
        int[] perm = new int[rank];
        for (int i = 0; i < rank; i++) {
            perm[i] = i;
        }
        for (int i = rank - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        long[] strides = new long[rank];
        long s = elem;
        for (int k = rank - 1; k >= 0; k--) {
            strides[perm[k]] = s;
            s *= shape[perm[k]];
        }
        long off = base;
        for (int i = 0; i < rank; i++) {
            off += origin[i] * strides[i];
        }
        parentBytes[0] = s;
        return new Box(off, extent, strides);
    }

    private static long[] extent(SplittableRandom r) {
        int rank = r.nextInt(1, 6);
        long[] e = new long[rank];
        for (int i = 0; i < rank; i++) {
            e[i] = r.nextInt(100) < 3 ? 0 : r.nextInt(1, rank > 3 ? 5 : 11);
        }
        return e;
    }

    private static byte[] random(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) r.nextInt();
        }
        return b;
    }

    private Buffer upload(byte[] data, boolean device) {
        Buffer b = backend.allocate(device ? backend.device() : Device.CPU, device ? MemoryKind.DEVICE : MemoryKind.HOST,
                data.length);
        backend.copy(dev.zarrdirect.api.buffer.HostBuffer.wrap(MemorySegment.ofArray(data)), 0, b, 0, data.length);
        return b;
    }

    private byte[] download(Buffer b) {
        byte[] out = new byte[(int) b.byteSize()];
        backend.copy(b, 0, dev.zarrdirect.api.buffer.HostBuffer.wrap(MemorySegment.ofArray(out)), 0, out.length);
        return out;
    }

    @ParameterizedTest(name = "copyRegions {0} matches StridedCopy on the host")
    @EnumSource(Sides.class)
    void copyRegionsMatchesStridedCopyOnTheHost(Sides sides) {
        long seed = System.nanoTime();
        SplittableRandom r = new SplittableRandom(seed);
        for (int round = 0; round < 12; round++) {
            int elem = ELEM_SIZES[r.nextInt(ELEM_SIZES.length)];
            int k = r.nextInt(1, 9);
            List<Box> src = new ArrayList<>();
            List<Box> dst = new ArrayList<>();
            long srcBytes = r.nextInt(0, 64);
            long dstBytes = r.nextInt(0, 64);
            for (int c = 0; c < k; c++) {
                long[] ext = extent(r);
                long[] size = new long[1];
                src.add(box(r, srcBytes, ext, elem, size));
                srcBytes += size[0] + r.nextInt(0, 9);
                dst.add(box(r, dstBytes, ext, elem, size));
                dstBytes += size[0] + r.nextInt(0, 9);
            }
            byte[] srcData = random(r, (int) srcBytes);
            byte[] dstData = random(r, (int) dstBytes);
            byte[] want = dstData.clone();
            for (int c = 0; c < k; c++) {
                StridedCopy.copy(MemorySegment.ofArray(srcData), src.get(c).offset(), src.get(c).strides(),
                        MemorySegment.ofArray(want), dst.get(c).offset(), dst.get(c).strides(), src.get(c).extent(), elem);
            }
            try (Buffer s = upload(srcData, sides != Sides.HOST_TO_DEVICE);
                 Buffer d = upload(dstData, sides != Sides.DEVICE_TO_HOST)) {
                List<Region.Copy> copies = new ArrayList<>();
                for (int c = 0; c < k; c++) {
                    copies.add(new Region.Copy(new Region(s, src.get(c).offset(), src.get(c).extent(), src.get(c).strides()),
                            new Region(d, dst.get(c).offset(), dst.get(c).extent(), dst.get(c).strides())));
                }
                backend.copyRegions(copies, elem);
                byte[] got = download(d);
                if (!Arrays.equals(want, got)) {
                    StringBuilder sb = new StringBuilder("seed " + seed + " round " + round + " elem " + elem + ":");
                    for (int c = 0; c < k; c++) {
                        sb.append("\n  copy ").append(Arrays.toString(src.get(c).extent())).append(" from ")
                                .append(src.get(c).offset()).append(Arrays.toString(src.get(c).strides())).append(" to ")
                                .append(dst.get(c).offset()).append(Arrays.toString(dst.get(c).strides()));
                    }
                    assertArrayEquals(want, got, sb.toString());
                }
            }
        }
    }

    @ParameterizedTest(name = "fillRegions on {0} matches StridedCopy.fill on the host")
    @EnumSource(value = MemoryKind.class, names = {"DEVICE", "HOST"})
    void fillRegionsMatchesStridedCopyFillOnTheHost(MemoryKind kind) {
        long seed = System.nanoTime();
        SplittableRandom r = new SplittableRandom(seed);
        for (int round = 0; round < 12; round++) {
            int elem = ELEM_SIZES[r.nextInt(ELEM_SIZES.length)];
            int k = r.nextInt(1, 9);
            List<Box> boxes = new ArrayList<>();
            long bytes = r.nextInt(0, 64);
            for (int c = 0; c < k; c++) {
                long[] size = new long[1];
                boxes.add(box(r, bytes, extent(r), elem, size));
                bytes += size[0] + r.nextInt(0, 9);
            }
            byte[] pattern = random(r, elem);
            byte[] data = random(r, (int) bytes);
            byte[] want = data.clone();
            for (Box b : boxes) {
                StridedCopy.fill(MemorySegment.ofArray(want), b.offset(), b.strides(), b.extent(),
                        MemorySegment.ofArray(pattern));
            }
            try (Buffer d = upload(data, kind == MemoryKind.DEVICE)) {
                List<Region> regions = new ArrayList<>();
                for (Box b : boxes) {
                    regions.add(new Region(d, b.offset(), b.extent(), b.strides()));
                }
                backend.fillRegions(regions, MemorySegment.ofArray(pattern));
                assertArrayEquals(want, download(d), "seed " + seed + " round " + round + " elem " + elem);
            }
        }
    }

    @org.junit.jupiter.api.Test
    void regionsOutsideTheirBufferAreRefusedBeforeAnyLaunch() {
        try (Buffer d = backend.allocate(backend.device(), MemoryKind.DEVICE, 100)) {
            Region bad = new Region(d, 90, new long[]{3}, new long[]{4});
            var e = org.junit.jupiter.api.Assertions.assertThrows(IndexOutOfBoundsException.class,
                    () -> backend.fillRegions(List.of(bad), MemorySegment.ofArray(new byte[4])));
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("touches bytes [90, 102)"), e.getMessage());
        }
    }
}
