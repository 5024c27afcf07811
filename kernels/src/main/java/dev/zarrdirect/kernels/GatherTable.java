// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The host side of the plane gather kernel {@code zd_gather} ({@code gather/zd_gather.h}): its
 * flags and the packed table of planes uploaded once per launch, for the CUDA and OpenCL backends.
 *
 * <h2>The table</h2>
 * For {@code n} planes, 8-aligned, {@link #bytes(int) 24·n} bytes:
 * {@code u64 srcPlane[n] | u64 dstPlane[n] | u32 scaleBits[n] | u32 shiftBits[n]}. When several
 * planes name the same output plane only the last of them is kept ({@link #writers}), which is what
 * the sequential host reference leaves in that plane; the kernel's items then never write the same
 * element twice.
 */
public final class GatherTable {

    /** Source elements are float64 (else float32). */
    public static final int SRC_F64 = KernelContract.ZD_GATHER_SRC_F64;
    /** Output float16. */
    public static final int OUT_F16 = KernelContract.ZD_GATHER_OUT_F16;
    /** Output bfloat16 (neither this nor {@link #OUT_F16}: float32). */
    public static final int OUT_BF16 = KernelContract.ZD_GATHER_OUT_BF16;
    /** NaNs of the source become the NaN value. */
    public static final int REPLACE_NAN = KernelContract.ZD_GATHER_REPLACE_NAN;
    /** Four elements per access (see {@link #accessFlags}). */
    public static final int VEC4 = KernelContract.ZD_GATHER_VEC4;
    /** Byte-wise accesses: the source or the output is not aligned to its element size. */
    public static final int BYTES = KernelContract.ZD_GATHER_BYTES;

    private GatherTable() {
    }

    /** Bytes of the table of {@code planes} planes. */
    public static long bytes(int planes) {
        return 24L * planes;
    }

    /**
     * The planes that write their output plane, in order: every plane but those whose output plane
     * a later plane also names.
     */
    public static int[] writers(long[] dstPlane) {
        int n = dstPlane.length;
        Set<Long> seen = new HashSet<>();
        boolean[] keep = new boolean[n];
        int kept = 0;
        for (int p = n - 1; p >= 0; p--) {
            if (seen.add(dstPlane[p])) {
                keep[p] = true;
                kept++;
            }
        }
        if (kept == n) {
            int[] all = new int[n];
            Arrays.setAll(all, i -> i);
            return all;
        }
        int[] out = new int[kept];
        for (int p = 0, k = 0; p < n; p++) {
            if (keep[p]) {
                out[k++] = p;
            }
        }
        return out;
    }

    /**
     * Writes the table of the planes {@code writers} (indices into the other arrays) at byte
     * {@code at} of {@code to}, which must hold {@link #bytes(int) bytes(writers.length)} from there.
     */
    public static void write(MemorySegment to, long at, int[] writers, long[] srcPlane, long[] dstPlane, float[] scale,
                             float[] shift) {
        int n = writers.length;
        long dst = at + 8L * n;
        long sc = at + 16L * n;
        long sh = at + 20L * n;
        for (int k = 0; k < n; k++) {
            int p = writers[k];
            to.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8L * k, srcPlane[p]);
            to.set(ValueLayout.JAVA_LONG_UNALIGNED, dst + 8L * k, dstPlane[p]);
            to.set(ValueLayout.JAVA_INT_UNALIGNED, sc + 4L * k, Float.floatToRawIntBits(scale[p]));
            to.set(ValueLayout.JAVA_INT_UNALIGNED, sh + 4L * k, Float.floatToRawIntBits(shift[p]));
        }
    }

    /**
     * The flags of the element types: {@code srcBytes} 4 or 8, {@code outBytes} 4 (float32) or 2 with
     * {@code bfloat16} choosing between float16 and bfloat16.
     */
    public static int typeFlags(int srcBytes, int outBytes, boolean bfloat16, boolean replaceNan) {
        if (srcBytes != 4 && srcBytes != 8) {
            throw new IllegalArgumentException("source elements of " + srcBytes + " bytes: float32 (4) or float64 (8)");
        }
        if (outBytes != 4 && outBytes != 2) {
            throw new IllegalArgumentException("output elements of " + outBytes + " bytes: float32 (4), float16 or"
                    + " bfloat16 (2)");
        }
        int f = srcBytes == 8 ? SRC_F64 : 0;
        if (outBytes == 2) {
            f |= bfloat16 ? OUT_BF16 : OUT_F16;
        }
        return replaceNan ? f | REPLACE_NAN : f;
    }

    /**
     * How the kernel touches memory, from where element 0 of each buffer lies ({@code srcAt},
     * {@code dstAt}: device addresses, or offsets in buffers whose base is at least 16-aligned):
     * {@link #VEC4} when every plane starts 16-aligned in the source and 4-element aligned in the
     * output ({@code planeElements} a multiple of 4); {@link #BYTES} when either is not aligned to its
     * element; else 0 (one aligned access per element).
     */
    public static int accessFlags(long srcAt, int srcBytes, long dstAt, int outBytes, long planeElements) {
        if (srcAt % srcBytes != 0 || dstAt % outBytes != 0) {
            return BYTES;
        }
        if (planeElements % 4 == 0 && srcAt % 16 == 0 && dstAt % (4L * outBytes) == 0) {
            return VEC4;
        }
        return 0;
    }
}
