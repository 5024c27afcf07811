// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.kernels;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a batch of region copies and fills into the descriptor tables of the kernels module's
 * scatter kernel ({@code zd_bytes.h}: one chunk per group; per chunk a byte offset into a
 * {@code chunks} buffer, or {@link #FILL}, and a box of {@code 4*rank} words — chunk shape, start
 * inside the chunk, start in the destination, extent; destination strides in bytes shared by all).
 * Pure arithmetic, no device.
 *
 * <h2>Mapping a general region onto a chunk box</h2>
 * A copy's source must be a box of some C-order array (each stride a multiple of the element size and
 * of the next inner non-unit axis's stride, the innermost axis contiguous unless it has extent 1):
 * that array's shape is read off the strides. Each
 * copy has its own source and destination addresses: the tables get one extra leading axis of
 * extent 1 whose destination stride is 1 byte, and whose destination start is the copy's byte
 * offset from the lowest destination address; the source offset is the chunk offset. Copies whose
 * destination strides differ go into different {@link Group}s (one launch each); copies from the
 * core's decoder all share the destination tensor's strides and form one group.
 *
 * <p>The kernel checks each box against {@code chunks_len} and {@code dst_len}; the real bounds are
 * checked here, against each buffer, before anything is packed ({@link #footprint}).
 */
public final class ScatterTable {

    /** The chunk offset that means "fill this box with the pattern" ({@code ZD_SCATTER_FILL}). */
    public static final long FILL = -1L;

    /** The kernel's limit on rank ({@code ZD_MAX_RANK}), one axis of which the offset trick uses. */
    public static final int MAX_RANK = dev.zarrdirect.kernels.KernelContract.ZD_MAX_RANK;

    /** One copy (or fill, with {@code srcAddress} {@link #FILL}) with absolute addresses and byte strides. */
    public record Entry(long srcAddress, long[] srcStrides, long dstAddress, long[] dstStrides, long[] extent) {
        public Entry {
            srcStrides = srcStrides == null ? null : srcStrides.clone();
            dstStrides = dstStrides.clone();
            extent = extent.clone();
        }

        boolean fill() {
            return srcAddress == FILL;
        }
    }

    /**
     * One launch: {@code n} chunks of rank {@code rank} (the extra axis included).
     *
     * @param dstBase      lowest destination address; {@code dst} of the launch
     * @param dstLen       bytes from {@code dstBase} that the boxes may touch
     * @param chunksBase   lowest source address; {@code chunks} of the launch (0 when every entry is a fill)
     * @param chunksLen    bytes from {@code chunksBase} that the boxes may read
     * @param chunkOffsets per chunk, source offset from {@code chunksBase} or {@link #FILL}
     * @param boxes        per chunk {@code 4*rank} words as the kernel reads them
     * @param dstStrides   {@code rank} byte strides
     */
    public record Group(int rank, long dstBase, long dstLen, long chunksBase, long chunksLen, long[] chunkOffsets,
                        long[] boxes, long[] dstStrides) {
        public int size() {
            return chunkOffsets.length;
        }
    }

    private ScatterTable() {
    }

    /**
     * Bytes from the region's offset to one past its last element, 0 for an empty region.
     *
     * @throws IllegalArgumentException for a negative stride or extent
     */
    public static long footprint(long[] extent, long[] strides, int elemSize) {
        long last = 0;
        for (int k = 0; k < extent.length; k++) {
            if (extent[k] < 0 || strides[k] < 0) {
                throw new IllegalArgumentException("negative extent or stride: extent " + Arrays.toString(extent)
                        + ", strides " + Arrays.toString(strides));
            }
            if (extent[k] == 0) {
                return 0;
            }
            last = Math.addExact(last, Math.multiplyExact(extent[k] - 1, strides[k]));
        }
        return last + elemSize;
    }

    /**
     * The shape of the C-order array that {@code strides} describe a box of, with the box's own
     * extent on the outermost non-unit axis and 1 on unit axes; null when the strides are not
     * C-order-like for this extent.
     */
    static long[] chunkShape(long[] extent, long[] strides, int elemSize) {
        int r = extent.length;
        long[] shape = new long[r];
        int inner = -1;
        for (int j = r - 1; j >= 0; j--) {
            if (extent[j] == 1) {
                shape[j] = 1;
                continue;
            }
            if (inner < 0) {
                if (strides[j] != elemSize) {
                    // unit axes inside it: the last one stands for the gap (a box of a wider array)
                    if (j == r - 1 || strides[j] <= 0 || strides[j] % elemSize != 0) {
                        return null;
                    }
                    shape[r - 1] = strides[j] / elemSize;
                }
            } else {
                if (strides[inner] <= 0 || strides[j] % strides[inner] != 0) {
                    return null;
                }
                long ratio = strides[j] / strides[inner];
                if (ratio < extent[inner]) {
                    return null;
                }
                shape[inner] = ratio;
            }
            shape[j] = extent[j];
            inner = j;
        }
        return shape;
    }

    /**
     * Plans the launches for {@code entries}. Empty boxes are dropped.
     *
     * @throws UnsupportedOperationException for a source that is not a box of a C-order array, or a
     *                                       rank above {@code MAX_RANK - 1}
     */
    public static List<Group> plan(List<Entry> entries, int elemSize) {
        Map<String, List<Entry>> byStrides = new LinkedHashMap<>();
        for (Entry e : entries) {
            if (footprint(e.extent, e.dstStrides, elemSize) == 0) {
                continue;
            }
            if (e.extent.length + 1 > MAX_RANK) {
                throw new UnsupportedOperationException("region of rank " + e.extent.length
                        + " is above the scatter kernel's limit of " + (MAX_RANK - 1));
            }
            byStrides.computeIfAbsent(e.extent.length + ":" + Arrays.toString(e.dstStrides), k -> new ArrayList<>()).add(e);
        }
        List<Group> groups = new ArrayList<>();
        for (List<Entry> g : byStrides.values()) {
            groups.add(group(g, elemSize));
        }
        return groups;
    }

    private static Group group(List<Entry> g, int elemSize) {
        int r = g.getFirst().extent.length;
        int rank = r + 1;
        long dstBase = Long.MAX_VALUE;
        long chunksBase = Long.MAX_VALUE;
        for (Entry e : g) {
            dstBase = Math.min(dstBase, e.dstAddress);
            if (!e.fill()) {
                chunksBase = Math.min(chunksBase, e.srcAddress);
            }
        }
        if (chunksBase == Long.MAX_VALUE) {
            chunksBase = 0;
        }
        int n = g.size();
        long[] offsets = new long[n];
        long[] boxes = new long[n * 4 * rank];
        long dstLen = 0;
        long chunksLen = 0;
        for (int c = 0; c < n; c++) {
            Entry e = g.get(c);
            long[] shape;
            if (e.fill()) {
                shape = e.extent.clone();
                offsets[c] = FILL;
            } else {
                shape = chunkShape(e.extent, e.srcStrides, elemSize);
                if (shape == null) {
                    throw new UnsupportedOperationException("source strides " + Arrays.toString(e.srcStrides)
                            + " for extent " + Arrays.toString(e.extent) + " are not those of a box of a C-order array"
                            + " of " + elemSize + "-byte elements; the device scatter reads C-order chunks only");
                }
                offsets[c] = e.srcAddress - chunksBase;
                long elems = 1;
                for (long s : shape) {
                    elems = Math.multiplyExact(elems, s);
                }
                chunksLen = Math.max(chunksLen, offsets[c] + elems * elemSize);
            }
            long dOff = e.dstAddress - dstBase;
            int b = c * 4 * rank;
            // axis 0: the per-copy byte offset, extent 1, chunk shape 1, destination stride 1 byte
            boxes[b] = 1;
            boxes[b + rank] = 0;
            boxes[b + 2 * rank] = dOff;
            boxes[b + 3 * rank] = 1;
            for (int k = 0; k < r; k++) {
                boxes[b + 1 + k] = shape[k];
                boxes[b + rank + 1 + k] = 0;
                boxes[b + 2 * rank + 1 + k] = 0;
                boxes[b + 3 * rank + 1 + k] = e.extent[k];
            }
            dstLen = Math.max(dstLen, dOff + footprint(e.extent, e.dstStrides, elemSize));
        }
        long[] dstStrides = new long[rank];
        dstStrides[0] = 1;
        System.arraycopy(g.getFirst().dstStrides, 0, dstStrides, 1, r);
        return new Group(rank, dstBase, dstLen, chunksBase, chunksLen, offsets, boxes, dstStrides);
    }
}
