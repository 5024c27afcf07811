// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The per-item table of a batched kernel, packed for one host-to-device copy:
 * {@code src_offsets[n] | src_sizes[n] | dst_offsets[n] | dst_sizes[n] | status[n]} (u64 words, then
 * u32 status words). Offsets are relative to the lowest input and the lowest output address, which
 * become the kernel's {@code src} and {@code dst} base pointers: items may live in any allocations
 * of the device. Pure arithmetic; no device.
 */
public final class ItemTable {

    private final int n;
    private final long srcBase;
    private final long dstBase;
    private final long[] srcOffsets;
    private final long[] srcSizes;
    private final long[] dstOffsets;
    private final long[] dstSizes;

    private ItemTable(int n, long srcBase, long dstBase, long[] srcOffsets, long[] srcSizes, long[] dstOffsets,
                      long[] dstSizes) {
        this.n = n;
        this.srcBase = srcBase;
        this.dstBase = dstBase;
        this.srcOffsets = srcOffsets;
        this.srcSizes = srcSizes;
        this.dstOffsets = dstOffsets;
        this.dstSizes = dstSizes;
    }

    /** A table over items with absolute device addresses ({@code dst} may be null for kernels without outputs). */
    public static ItemTable of(long[] srcAddr, long[] srcSize, long[] dstAddr, long[] dstSize) {
        int n = srcAddr.length;
        long sb = Long.MAX_VALUE;
        long db = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            sb = Math.min(sb, srcAddr[i]);
            if (dstAddr != null) {
                db = Math.min(db, dstAddr[i]);
            }
        }
        sb = n == 0 ? 0 : sb;
        db = n == 0 || dstAddr == null ? 0 : db;
        long[] so = new long[n];
        long[] dof = new long[n];
        for (int i = 0; i < n; i++) {
            so[i] = srcAddr[i] - sb;
            dof[i] = dstAddr == null ? 0 : dstAddr[i] - db;
        }
        return new ItemTable(n, sb, db, so, srcSize.clone(), dof, dstSize == null ? new long[n] : dstSize.clone());
    }

    public int size() {
        return n;
    }

    public long srcBase() {
        return srcBase;
    }

    public long dstBase() {
        return dstBase;
    }

    public long srcOffsetsAt() {
        return 0;
    }

    public long srcSizesAt() {
        return 8L * n;
    }

    public long dstOffsetsAt() {
        return 16L * n;
    }

    public long dstSizesAt() {
        return 24L * n;
    }

    /** Byte offset of the u32 status words. */
    public long statusAt() {
        return 32L * n;
    }

    /** Bytes of the packed table. */
    public long byteSize() {
        return 36L * n;
    }

    /** Writes the table into {@code host} (at least {@link #byteSize()} bytes, 8-byte aligned); status words are zeroed. */
    public void writeTo(MemorySegment host) {
        MemorySegment.copy(srcOffsets, 0, host, ValueLayout.JAVA_LONG, srcOffsetsAt(), n);
        MemorySegment.copy(srcSizes, 0, host, ValueLayout.JAVA_LONG, srcSizesAt(), n);
        MemorySegment.copy(dstOffsets, 0, host, ValueLayout.JAVA_LONG, dstOffsetsAt(), n);
        MemorySegment.copy(dstSizes, 0, host, ValueLayout.JAVA_LONG, dstSizesAt(), n);
        host.asSlice(statusAt(), 4L * n).fill((byte) 0);
    }
}
