// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.ZstdTestSupport.SEED;
import static org.junit.jupiter.api.Assertions.*;

/** crc32c, byte swap, transpose and scatter in host mode against plain Java references. */
class ByteKernelsTest {
    final HostKernels hk = HostKernels.get();

    static MemorySegment longs(Arena a, long... v) {
        MemorySegment s = a.allocate(8L * Math.max(1, v.length), 8);
        for (int i = 0; i < v.length; i++) s.setAtIndex(ValueLayout.JAVA_LONG, i, v[i]);
        return s;
    }

    @Test
    void crc32cComputeAndVerify() throws Throwable {
        Random r = new Random(SEED);
        int[] sizes = {0, 1, 3, 4, 5, 63, 64, 65, 1000, 65537, r.nextInt(300_000), r.nextInt(5000), r.nextInt(70)};
        for (int ls : new int[] {1, 4, 33}) {
            try (Arena a = Arena.ofConfined()) {
                int n = sizes.length;
                long total = Arrays.stream(sizes).asLongStream().sum();
                MemorySegment src = a.allocate(Math.max(1, total), 16);
                long[] off = new long[n], len = new long[n];
                byte[][] chunks = new byte[n][];
                long p = 0;
                for (int i = 0; i < n; i++) {
                    chunks[i] = new byte[sizes[i]];
                    r.nextBytes(chunks[i]);
                    MemorySegment.copy(chunks[i], 0, src, ValueLayout.JAVA_BYTE, p, sizes[i]);
                    off[i] = p;
                    len[i] = sizes[i];
                    p += sizes[i];
                }
                MemorySegment computed = a.allocate(4L * n, 4), status = a.allocate(4L * n, 4);
                assertEquals(0, (int) hk.crc32cBatch.invokeExact(src, longs(a, off), longs(a, len), computed, status, 0, n, ls));
                for (int i = 0; i < n; i++) {
                    CRC32C c = new CRC32C();
                    c.update(chunks[i]);
                    assertEquals((int) c.getValue(), computed.getAtIndex(ValueLayout.JAVA_INT, i), "crc32c size " + sizes[i] + " local " + ls);
                }
                // verify mode: write the checksum of all but the last 4 bytes into them, corrupt odd chunks
                for (int i = 0; i < n; i++) {
                    if (sizes[i] < 4) continue;
                    CRC32C c = new CRC32C();
                    c.update(chunks[i], 0, sizes[i] - 4);
                    int v = (int) c.getValue() ^ (i % 2 == 1 ? 0x100 : 0);
                    src.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), off[i] + sizes[i] - 4, v);
                }
                assertEquals(0, (int) hk.crc32cBatch.invokeExact(src, longs(a, off), longs(a, len), computed, status, 1, n, ls));
                for (int i = 0; i < n; i++) {
                    int want = sizes[i] < 4 ? ZdStatusCodes.TRUNCATED : (i % 2 == 1 ? ZdStatusCodes.CHECKSUM : ZdStatusCodes.OK);
                    assertEquals(want, status.getAtIndex(ValueLayout.JAVA_INT, i), "verify size " + sizes[i] + " local " + ls);
                }
            }
        }
    }

    @Test
    void byteswapAllWidthsAndComplexHalves() throws Throwable {
        Random r = new Random(SEED);
        // width = element size, or half of it for complex64 (8 -> 4) and complex128 (16 -> 8)
        for (int[] wc : new int[][] {{2, 2}, {4, 4}, {8, 8}, {8, 4}, {16, 8}}) {
            int elemSize = wc[0], width = wc[1];
            for (int elems : new int[] {0, 1, 7, 1000, 4099}) {
                byte[] d = new byte[elems * elemSize];
                r.nextBytes(d);
                byte[] want = d.clone();
                for (int i = 0; i + width <= want.length; i += width) {
                    for (int k = 0; k < width / 2; k++) {
                        byte t = want[i + k];
                        want[i + k] = want[i + width - 1 - k];
                        want[i + width - 1 - k] = t;
                    }
                }
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment s = HostKernels.copyOf(a, d);
                    assertEquals(0, (int) hk.byteswap.invokeExact(s, (long) d.length / width, width, 3, 5));
                    assertArrayEquals(want, s.toArray(ValueLayout.JAVA_BYTE), "elem " + elemSize + " width " + width);
                }
            }
        }
    }

    @Test
    void transposeRandomPermutationsUpToRank8() throws Throwable {
        Random r = new Random(SEED);
        for (int t = 0; t < 60; t++) {
            int rank = 1 + r.nextInt(8);
            int elem = new int[] {1, 2, 4, 8, 3}[r.nextInt(5)];
            long[] shape = new long[rank];
            long n = 1;
            for (int k = 0; k < rank; k++) {
                shape[k] = 1 + r.nextInt(rank > 5 ? 3 : 6);
                n *= shape[k];
            }
            int[] perm = new int[rank];
            for (int k = 0; k < rank; k++) perm[k] = k;
            for (int k = rank - 1; k > 0; k--) {
                int j = r.nextInt(k + 1), x = perm[k];
                perm[k] = perm[j];
                perm[j] = x;
            }
            long[] srcStride = new long[rank];
            srcStride[rank - 1] = 1;
            for (int k = rank - 2; k >= 0; k--) srcStride[k] = srcStride[k + 1] * shape[k + 1];
            // out axis k = source axis perm[k]
            long[] params = new long[2 * rank];
            for (int k = 0; k < rank; k++) {
                params[k] = shape[perm[k]];
                params[rank + k] = srcStride[perm[k]];
            }
            byte[] src = new byte[(int) (n * elem)];
            r.nextBytes(src);
            byte[] want = new byte[src.length];
            for (long i = 0; i < n; i++) {
                long rest = i, s = 0;
                for (int k = rank - 1; k >= 0; k--) {
                    long c = rest % params[k];
                    rest /= params[k];
                    s += c * params[rank + k];
                }
                System.arraycopy(src, (int) (s * elem), want, (int) (i * elem), elem);
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment s = HostKernels.copyOf(a, src);
                MemorySegment d = a.allocate(Math.max(1, src.length), 16);
                assertEquals(0, (int) hk.transpose.invokeExact(s, d, longs(a, params), rank, elem, n, 2, 3));
                assertArrayEquals(want, d.asSlice(0, src.length).toArray(ValueLayout.JAVA_BYTE),
                        "rank " + rank + " perm " + Arrays.toString(perm) + " seed=" + SEED);
            }
        }
    }

    /** A 2-D 10x7 destination of 4-byte elements from 4x3 chunks: edge chunks are partial, one chunk is missing. */
    @Test
    void scatterChunksAndFillMissing() throws Throwable {
        int rows = 10, cols = 7, cr = 4, cc = 3, elem = 4;
        int gridR = (rows + cr - 1) / cr, gridC = (cols + cc - 1) / cc;
        int nChunks = gridR * gridC;
        Random r = new Random(SEED);
        byte[] chunks = new byte[nChunks * cr * cc * elem];
        r.nextBytes(chunks);
        int missing = 4;
        byte[] fill = {(byte) 0xDE, (byte) 0xAD, (byte) 0xBE, (byte) 0xEF};
        long[] offs = new long[nChunks];
        long[] boxes = new long[nChunks * 8];
        byte[] want = new byte[rows * cols * elem];
        for (int gi = 0; gi < gridR; gi++) {
            for (int gj = 0; gj < gridC; gj++) {
                int c = gi * gridC + gj;
                offs[c] = c == missing ? -1L : (long) c * cr * cc * elem;
                int er = Math.min(cr, rows - gi * cr), ec = Math.min(cc, cols - gj * cc);
                long[] b = {cr, cc, 0, 0, gi * cr, gj * cc, er, ec};
                System.arraycopy(b, 0, boxes, c * 8, 8);
                for (int i = 0; i < er; i++) {
                    for (int j = 0; j < ec; j++) {
                        int dOff = ((gi * cr + i) * cols + gj * cc + j) * elem;
                        if (c == missing) System.arraycopy(fill, 0, want, dOff, elem);
                        else System.arraycopy(chunks, c * cr * cc * elem + (i * cc + j) * elem, want, dOff, elem);
                    }
                }
            }
        }
        for (int ls : new int[] {1, 4}) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment dst = a.allocate(want.length, 16).fill((byte) 0);
                MemorySegment status = a.allocate(4L * nChunks, 4);
                assertEquals(0, (int) hk.scatter.invokeExact(HostKernels.copyOf(a, chunks), (long) chunks.length,
                        longs(a, offs), longs(a, boxes), dst, (long) want.length, longs(a, (long) cols * elem, elem),
                        HostKernels.copyOf(a, fill), status, 2, elem, nChunks, ls));
                for (int c = 0; c < nChunks; c++) assertEquals(0, status.getAtIndex(ValueLayout.JAVA_INT, c), "chunk " + c);
                assertArrayEquals(want, dst.toArray(ValueLayout.JAVA_BYTE));
                // a box reaching past the destination is refused, nothing written
                long[] bad = boxes.clone();
                bad[4] = rows; // dst_start row beyond the end
                MemorySegment dst2 = a.allocate(want.length, 16).fill((byte) 0);
                assertEquals(0, (int) hk.scatter.invokeExact(HostKernels.copyOf(a, chunks), (long) chunks.length,
                        longs(a, offs), longs(a, bad), dst2, (long) want.length, longs(a, (long) cols * elem, elem),
                        HostKernels.copyOf(a, fill), status, 2, elem, 1, ls));
                assertEquals(ZdStatusCodes.BAD_ARGUMENT, status.getAtIndex(ValueLayout.JAVA_INT, 0));
            }
        }
    }
}
