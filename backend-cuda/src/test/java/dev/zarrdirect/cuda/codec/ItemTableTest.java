// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class ItemTableTest {

    @Test
    void offsetsAreRelativeToTheLowestAddressAndPackedInOneBlock() {
        ItemTable t = ItemTable.of(new long[]{5000, 1000, 3000}, new long[]{10, 20, 30},
                new long[]{90_000, 70_000, 80_000}, new long[]{100, 200, 300});
        assertEquals(1000, t.srcBase());
        assertEquals(70_000, t.dstBase());
        assertEquals(36 * 3, t.byteSize());
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(t.byteSize(), 8);
            s.fill((byte) 0x77);
            t.writeTo(s);
            assertArrayEquals(new long[]{4000, 0, 2000}, s.asSlice(t.srcOffsetsAt(), 24).toArray(ValueLayout.JAVA_LONG));
            assertArrayEquals(new long[]{10, 20, 30}, s.asSlice(t.srcSizesAt(), 24).toArray(ValueLayout.JAVA_LONG));
            assertArrayEquals(new long[]{20_000, 0, 10_000}, s.asSlice(t.dstOffsetsAt(), 24).toArray(ValueLayout.JAVA_LONG));
            assertArrayEquals(new long[]{100, 200, 300}, s.asSlice(t.dstSizesAt(), 24).toArray(ValueLayout.JAVA_LONG));
            assertArrayEquals(new int[3], s.asSlice(t.statusAt(), 12).toArray(ValueLayout.JAVA_INT));
        }
    }

    @Test
    void anEmptyTableIsEmpty() {
        ItemTable t = ItemTable.of(new long[0], new long[0], null, null);
        assertEquals(0, t.byteSize());
        assertEquals(0, t.srcBase());
    }

    @Test
    void copiesUseTheLargestElementThatDividesEveryLength() {
        assertEquals(16, DeviceCopies.elementFor(List.of(new long[]{0, 0, 32}, new long[]{0, 0, 4096})));
        assertEquals(4, DeviceCopies.elementFor(List.of(new long[]{0, 0, 32}, new long[]{0, 0, 4})));
        assertEquals(1, DeviceCopies.elementFor(List.of(new long[]{0, 0, 7})));
    }

    @Test
    void byteSwapRunsMergeBackToBackOutputs() {
        List<long[]> runs = CudaBytesCodec.runs(List.of(new long[]{300, 2}, new long[]{100, 0}, new long[]{200, 1},
                new long[]{500, 3}), 100);
        assertEquals(2, runs.size());
        assertArrayEquals(new long[]{100, 300}, runs.get(0));
        assertArrayEquals(new long[]{500, 100}, runs.get(1));
    }

    /** zd_transpose_thread on the host: output element i read through the parameter words. */
    static void transpose(byte[] src, byte[] dst, long[] p, int rank, int elem, long n) {
        for (long i = 0; i < n; i++) {
            long rest = i, s = 0;
            for (int k = rank - 1; k >= 0; k--) {
                long c = rest % p[k];
                rest /= p[k];
                s += c * p[rank + k];
            }
            System.arraycopy(src, (int) (s * elem), dst, (int) (i * elem), elem);
        }
    }

    @Test
    void batchedTransposeParametersTransposeEveryChunk() {
        // decoded shape [2,3,4], order [2,0,1]: encoded shape [4,2,3]; decoding reads encoded strides by the inverse
        long[] decoded = {2, 3, 4};
        long[] encoded = {4, 2, 3};
        long[] encStrides = {6, 3, 1};
        int[] inverse = {1, 2, 0};
        long[] src = new long[3];
        for (int j = 0; j < 3; j++) {
            src[j] = encStrides[inverse[j]];
        }
        int chunks = 3;
        int elems = 24;
        byte[] in = new byte[chunks * elems];
        for (int i = 0; i < in.length; i++) {
            in[i] = (byte) i;
        }
        byte[] batched = new byte[in.length];
        transpose(in, batched, CudaTransposeCodec.params(decoded, src, chunks, elems), 4, 1, (long) chunks * elems);
        for (int c = 0; c < chunks; c++) {
            byte[] one = new byte[elems];
            byte[] chunk = java.util.Arrays.copyOfRange(in, c * elems, (c + 1) * elems);
            transpose(chunk, one, CudaTransposeCodec.params(decoded, src, 0, elems), 3, 1, elems);
            assertArrayEquals(one, java.util.Arrays.copyOfRange(batched, c * elems, (c + 1) * elems));
            // and the decoded element [a][b][c] is the encoded element [c][a][b]
            for (int a = 0; a < 2; a++) {
                for (int b = 0; b < 3; b++) {
                    for (int e = 0; e < 4; e++) {
                        assertEquals(chunk[e * 6 + a * 3 + b], one[a * 12 + b * 4 + e]);
                    }
                }
            }
        }
        assertTrue(CudaTransposeCodec.backToBack(new long[]{10, 34, 58}, 24));
        assertFalse(CudaTransposeCodec.backToBack(new long[]{10, 34, 59}, 24));
        assertEquals(4, encoded[0]);
    }

    @Test
    void zstdBoundIsZstdCompressBound() {
        CudaZstdCodec c = new CudaZstdCodec(null, null, ZstdKernelPolicy.defaults(ZstdKernelPolicyTest.H200), 3, false);
        assertEquals(0 + (128 << 10 >> 11), c.maxEncodedSize(0));
        assertEquals((1L << 20) + (1L << 12), c.maxEncodedSize(1L << 20));
        var e = assertThrows(UnsupportedOperationException.class, () -> c.encode(null));
        assertTrue(e.getMessage().contains("CPU"), e.getMessage());
    }
}
