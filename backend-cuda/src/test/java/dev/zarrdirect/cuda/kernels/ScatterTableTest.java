// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.kernels;

import dev.zarrdirect.api.buffer.StridedCopy;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The scatter plans, executed on the host exactly as zd_bytes.h's zd_scatter_chunk_group reads
 * them (addresses are offsets into one host "address space"), place the same bytes as
 * {@link StridedCopy}.
 */
class ScatterTableTest {

    static final long SEED = Long.getLong("zd.seed", System.nanoTime());

    /** zd_scatter_check_thread + zd_scatter_chunk_group on the host; returns the status per chunk. */
    static int[] emulate(MemorySegment space, ScatterTable.Group g, int elem, MemorySegment fill) {
        int rank = g.rank();
        int[] status = new int[g.size()];
        for (int c = 0; c < g.size(); c++) {
            long[] box = java.util.Arrays.copyOfRange(g.boxes(), c * 4 * rank, (c + 1) * 4 * rank);
            long off = g.chunkOffsets()[c];
            // check
            long chunkElems = 1, last = 0, n = 1;
            boolean empty = false;
            int st = 0;
            for (int k = 0; k < rank; k++) {
                long shape = box[k], s0 = box[rank + k], d0 = box[2 * rank + k], ext = box[3 * rank + k];
                if (ext == 0) {
                    empty = true;
                    break;
                }
                if (s0 > shape || ext > shape - s0) {
                    st = 33;
                }
                chunkElems *= shape;
                n *= ext;
                last += (d0 + ext - 1) * g.dstStrides()[k];
            }
            if (!empty && last + elem > g.dstLen()) {
                st = 33;
            }
            if (!empty && off != ScatterTable.FILL && (off > g.chunksLen() || chunkElems * elem > g.chunksLen() - off)) {
                st = 33;
            }
            status[c] = st;
            if (st != 0 || empty) {
                continue;
            }
            for (long i = 0; i < n; i++) {
                long rest = i, s = 0, d = 0, cstride = 1;
                for (int k = rank - 1; k >= 0; k--) {
                    long ext = box[3 * rank + k];
                    long co = rest % ext;
                    rest /= ext;
                    s += (box[rank + k] + co) * cstride;
                    cstride *= box[k];
                    d += (box[2 * rank + k] + co) * g.dstStrides()[k];
                }
                if (off == ScatterTable.FILL) {
                    MemorySegment.copy(fill, 0, space, g.dstBase() + d, elem);
                } else {
                    MemorySegment.copy(space, g.chunksBase() + off + s * elem, space, g.dstBase() + d, elem);
                }
            }
        }
        return status;
    }

    @Test
    void chunkBoxesIntoATensorMatchStridedCopy() {
        Random rnd = new Random(SEED);
        for (int round = 0; round < 200; round++) {
            int rank = 1 + rnd.nextInt(5);
            int elem = new int[]{1, 2, 4, 8}[rnd.nextInt(4)];
            long[] chunk = new long[rank];
            long[] tensor = new long[rank];
            for (int k = 0; k < rank; k++) {
                chunk[k] = 1 + rnd.nextInt(4);
                tensor[k] = chunk[k] * (1 + rnd.nextInt(3));
            }
            long chunkBytes = elem;
            for (long c : chunk) {
                chunkBytes *= c;
            }
            long tensorBytes = elem;
            for (long t : tensor) {
                tensorBytes *= t;
            }
            int nChunks = 1 + rnd.nextInt(6);
            long srcBase = 64;
            long dstBase = srcBase + nChunks * chunkBytes + 128;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment space = arena.allocate(dstBase + tensorBytes + 64);
                for (long i = 0; i < srcBase + nChunks * chunkBytes; i++) {
                    space.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
                }
                MemorySegment expected = arena.allocate(space.byteSize());
                MemorySegment.copy(space, 0, expected, 0, space.byteSize());
                long[] cs = StridedCopy.cByteStrides(chunk, elem);
                long[] ts = StridedCopy.cByteStrides(tensor, elem);
                List<ScatterTable.Entry> entries = new ArrayList<>();
                MemorySegment fill = arena.allocate(elem);
                fill.fill((byte) 0x5A);
                for (int c = 0; c < nChunks; c++) {
                    long[] start = new long[rank];
                    long[] ext = new long[rank];
                    long[] at = new long[rank];
                    long so = srcBase + c * chunkBytes;
                    long dof = dstBase;
                    for (int k = 0; k < rank; k++) {
                        start[k] = rnd.nextInt((int) chunk[k]);
                        ext[k] = 1 + rnd.nextInt((int) (chunk[k] - start[k]));
                        at[k] = rnd.nextInt((int) (tensor[k] - ext[k] + 1));
                        so += start[k] * cs[k];
                        dof += at[k] * ts[k];
                    }
                    boolean isFill = rnd.nextInt(5) == 0;
                    entries.add(new ScatterTable.Entry(isFill ? ScatterTable.FILL : so, isFill ? null : cs, dof, ts, ext));
                    if (isFill) {
                        StridedCopy.fill(expected, dof, ts, ext, fill);
                    } else {
                        StridedCopy.copy(expected, so, cs, expected, dof, ts, ext, elem);
                    }
                }
                List<ScatterTable.Group> groups = ScatterTable.plan(entries, elem);
                assertEquals(1, groups.size(), "one destination layout, one launch");
                for (ScatterTable.Group g : groups) {
                    int[] st = emulate(space, g, elem, fill);
                    for (int s : st) {
                        assertEquals(0, s, "seed " + SEED);
                    }
                }
                assertEquals(-1, space.mismatch(expected), "seed " + SEED + " round " + round);
            }
        }
    }

    @Test
    void contiguousByteCopiesAreRankOneBoxes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment space = arena.allocate(4096);
            for (int i = 0; i < 1024; i++) {
                space.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            List<ScatterTable.Entry> e = List.of(
                    new ScatterTable.Entry(0, new long[]{4}, 2048, new long[]{4}, new long[]{100}),
                    new ScatterTable.Entry(500, new long[]{4}, 3000, new long[]{4}, new long[]{3}));
            List<ScatterTable.Group> g = ScatterTable.plan(e, 4);
            assertEquals(1, g.size());
            assertArrayEquals(new int[]{0, 0}, emulate(space, g.getFirst(), 4, null));
            assertEquals(-1, space.asSlice(2048, 400).mismatch(space.asSlice(0, 400)));
            assertEquals(-1, space.asSlice(3000, 12).mismatch(space.asSlice(500, 12)));
        }
    }

    @Test
    void differentDestinationLayoutsAreSeparateLaunchesAndEmptyBoxesAreDropped() {
        List<ScatterTable.Entry> e = List.of(
                new ScatterTable.Entry(0, new long[]{8, 4}, 1000, new long[]{16, 4}, new long[]{2, 2}),
                new ScatterTable.Entry(0, new long[]{8, 4}, 2000, new long[]{32, 4}, new long[]{2, 2}),
                new ScatterTable.Entry(0, new long[]{8, 4}, 3000, new long[]{32, 4}, new long[]{0, 2}));
        assertEquals(2, ScatterTable.plan(e, 4).size());
    }

    @Test
    void sourcesThatAreNotCOrderBoxesAreRefusedWithTheStrides() {
        List<ScatterTable.Entry> e = List.of(
                new ScatterTable.Entry(0, new long[]{4, 16}, 1000, new long[]{16, 4}, new long[]{4, 4}));
        var ex = assertThrows(UnsupportedOperationException.class, () -> ScatterTable.plan(e, 4));
        assertTrue(ex.getMessage().contains("[4, 16]"), ex.getMessage());
    }

    @Test
    void footprintIsLastElementPlusOne() {
        assertEquals(0, ScatterTable.footprint(new long[]{3, 0}, new long[]{8, 4}, 4));
        assertEquals(2 * 8 + 1 * 4 + 4, ScatterTable.footprint(new long[]{3, 2}, new long[]{8, 4}, 4));
    }
}
