// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.Deflater;

import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.InflateTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Streams made by java.util.zip decode to the same bytes with the deflate, zlib and gzip kernels. */
class InflateRoundTripTest {
    private static final int[] LEVELS = {0, 1, 6, 9};
    private static final int[] STRATEGIES = {Deflater.DEFAULT_STRATEGY, Deflater.FILTERED, Deflater.HUFFMAN_ONLY};
    private static final int[] SIZES = {0, 1, 12_345, 1 << 20};

    private static void assertDecodes(byte[] stream, byte[] original, int format, int localSize, String what) {
        Decoded d = decode(stream, original.length, format, localSize);
        String where = what + " (" + FORMATS[format] + ", " + localSize + " items, seed=" + SEED + ")";
        assertTrue(d.guardsIntact(), "wrote outside dst: " + where);
        assertEquals(ZdStatusCodes.OK, d.status(), "status of " + where);
        assertTrue(Arrays.equals(original, d.out()), "bytes differ: " + where);
    }

    @Test
    void everyKindSizeLevelAndStrategyDecodesExactly() {
        Random r = new Random(SEED);
        int cases = 0;
        for (String kind : KINDS) {
            for (int size : SIZES) {
                byte[] d = data(kind, size, r);
                for (int level : LEVELS) {
                    for (int strategy : STRATEGIES) {
                        if (level == 0 && strategy != Deflater.DEFAULT_STRATEGY) continue; // stored either way
                        for (int format = RAW; format <= GZIP; format++) {
                            byte[] s = encode(format, d, level, strategy);
                            assertDecodes(s, d, format, 1, kind + " " + size + " B level " + level + " strategy " + strategy);
                            cases++;
                        }
                    }
                }
            }
        }
        System.out.println("inflate round trips: " + cases);
    }

    @Test
    void groupsOfSeveralItemsDecodeTheSameBytes() {
        Random r = new Random(SEED ^ 0x5EED);
        for (String kind : KINDS) {
            byte[] d = data(kind, 40_001 + r.nextInt(30_000), r);
            for (int level : new int[] {0, 1, 9}) {
                for (int format = RAW; format <= GZIP; format++) {
                    byte[] s = encode(format, d, level, Deflater.DEFAULT_STRATEGY);
                    for (int ls : new int[] {2, 5, 32}) assertDecodes(s, d, format, ls, kind + " level " + level);
                }
            }
        }
        byte[] big = data("text", 1 << 20, r);
        assertDecodes(encode(GZIP, big, 6, Deflater.DEFAULT_STRATEGY), big, GZIP, 64, "1 MiB text");
        assertDecodes(encode(ZLIB, big, 6, Deflater.DEFAULT_STRATEGY), big, ZLIB, 64, "1 MiB text");
        byte[] runs = data("runs", 300_000, r); // writers from item 32 on: the decoding warp alone
        assertDecodes(encode(RAW, runs, 9, Deflater.DEFAULT_STRATEGY), runs, RAW, 96, "runs");
    }

    /**
     * Without a barrier for part of a group (OpenCL's loop: every item meets at every segment, and
     * the writers chase bytes of their own segment up to ZD_INF_CHASE records back), several items
     * write the same bytes, whole streams and split ones. The other tests run the loop with the
     * writers' own barrier wherever a group has more than one item.
     */
    @Test
    void theLoopWithoutAPartBarrierDecodesTheSameBytes() {
        Random r = new Random(SEED ^ 0xB0A7);
        boolean before = HostKernels.get().setTailBarrier(false);
        try {
            for (String kind : KINDS) {
                byte[] d = data(kind, 40_001 + r.nextInt(30_000), r);
                for (int level : new int[] {1, 9}) {
                    for (int format = RAW; format <= GZIP; format++) {
                        byte[] s = encode(format, d, level, Deflater.DEFAULT_STRATEGY);
                        for (int ls : new int[] {2, 5, 64}) assertDecodes(s, d, format, ls, kind + " level " + level + ", no part barrier");
                    }
                }
            }
            // int16 planes: smooth high bytes (short matches into the bytes just written: chases;
            // InflateChaseTest makes chains of a known depth), then noise
            byte[] hi = InflateSplitTest.shuffledInt16(200_000, r);
            for (int format = RAW; format <= GZIP; format++) {
                assertDecodes(encode(format, hi, 1, Deflater.DEFAULT_STRATEGY), hi, format, 33, "int16 planes, no part barrier");
                long range = 4 << 10;
                byte[] s = encode(format, hi, 6, Deflater.DEFAULT_STRATEGY);
                InflateSplitTest.Split x = InflateSplitTest.split(s, hi.length, format, range,
                        InflateSplitTest.cells(range, s.length, hi.length), 5);
                assertEquals(ZdStatusCodes.OK, x.status(), "split, " + FORMATS[format] + ", no part barrier");
                assertArrayEquals(hi, x.out(), "split, " + FORMATS[format] + ", no part barrier");
            }
        } finally {
            HostKernels.get().setTailBarrier(before);
        }
    }

    @Test
    void gzipOutputStreamMembersDecode() {
        Random r = new Random(SEED ^ 1);
        for (String kind : KINDS) {
            for (int size : new int[] {0, 1, 777, 300_001}) {
                byte[] d = data(kind, size, r);
                assertDecodes(gzipStream(d), d, GZIP, 1, "GZIPOutputStream " + kind + " " + size);
            }
        }
    }

    @Test
    void gzipHeaderFieldsAreParsedAndChecked() {
        Random r = new Random(SEED ^ 2);
        byte[] d = data("text", 5000, r);
        byte[] extra = new byte[300];
        r.nextBytes(extra);
        for (int flags = 0; flags < 32; flags++) {
            byte[] s = gzipMember(d, 6, Deflater.DEFAULT_STRATEGY, flags, extra, "chunk-0.0.1", "written by a test");
            assertDecodes(s, d, GZIP, 1, "header flags 0x" + Integer.toHexString(flags));
            assertDecodes(s, d, GZIP, 3, "header flags 0x" + Integer.toHexString(flags));
        }
        byte[] s = gzipMember(d, 6, Deflater.DEFAULT_STRATEGY, FEXTRA | FNAME, new byte[0], "", null);
        assertDecodes(s, d, GZIP, 1, "empty FEXTRA and FNAME");
    }

    @Test
    void multiMemberGzipDecodesEveryMember() {
        Random r = new Random(SEED ^ 3);
        byte[] a = data("text", 70_000, r), b = new byte[0], c = data("far", 100_000, r), e = data("random", 999, r);
        byte[] whole = ZstdTestSupport.concat(a, b, c, e);
        byte[] s = ZstdTestSupport.concat(gzipMember(a, 9, Deflater.FILTERED, FNAME, null, "a", null), gzipStream(b),
                gzipMember(c, 1, Deflater.DEFAULT_STRATEGY, FHCRC | FCOMMENT, null, null, "c"),
                gzipMember(e, 0, Deflater.DEFAULT_STRATEGY, 0, null, null, null));
        assertNotNull(reference(s, whole.length, GZIP), "java.util.zip reference");
        assertDecodes(s, whole, GZIP, 1, "four members");
        assertDecodes(s, whole, GZIP, 8, "four members");
        // the matches of a member never reach into the previous one
        assertDecodes(ZstdTestSupport.concat(gzipStream(a), gzipStream(a)), ZstdTestSupport.concat(a, a), GZIP, 4, "a twice");
    }

    /** The batch entries: each chunk into its own range of one dst, with poisoned gaps between. */
    @Test
    void batchDecodesEachChunkIntoItsOwnRange() throws Throwable {
        Random r = new Random(SEED ^ 4);
        for (int format = RAW; format <= GZIP; format++) {
            int n = 23;
            List<byte[]> originals = new ArrayList<>(), streams = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] d = data(KINDS[i % KINDS.length], i == 0 ? 0 : r.nextInt(90_000), r);
                originals.add(d);
                byte[] s = encode(format, d, LEVELS[i % 4], STRATEGIES[i % 3]);
                if (i == 7) s = Arrays.copyOf(s, s.length / 2); // one bad chunk must not disturb the others
                streams.add(s);
            }
            try (Arena a = Arena.ofConfined()) {
                long srcTotal = 0, dstTotal = 0;
                long[] so = new long[n], ss = new long[n], dof = new long[n], ds = new long[n];
                for (int i = 0; i < n; i++) {
                    so[i] = srcTotal;
                    ss[i] = streams.get(i).length;
                    srcTotal += ss[i] + 3;
                    dof[i] = dstTotal + 16;
                    ds[i] = originals.get(i).length;
                    dstTotal = dof[i] + ds[i] + 16;
                }
                MemorySegment src = a.allocate(Math.max(1, srcTotal), 16), dst = a.allocate(dstTotal, 16);
                for (int i = 0; i < n; i++) MemorySegment.copy(streams.get(i), 0, src, ValueLayout.JAVA_BYTE, so[i], (int) ss[i]);
                dst.fill((byte) 0xA5);
                MemorySegment status = a.allocate(4L * n, 4);
                status.fill((byte) 0xFF);
                int rc = (int) HostKernels.get().inflateBatch[format].invokeExact(src, a.allocateFrom(ValueLayout.JAVA_LONG, so),
                        a.allocateFrom(ValueLayout.JAVA_LONG, ss), dst, a.allocateFrom(ValueLayout.JAVA_LONG, dof),
                        a.allocateFrom(ValueLayout.JAVA_LONG, ds), MemorySegment.NULL, 0L, status, n, 4);
                assertEquals(0, rc);
                for (int i = 0; i < n; i++) {
                    int st = status.getAtIndex(ValueLayout.JAVA_INT, i);
                    if (i == 7) assertNotEquals(0, st, "truncated chunk 7 of " + FORMATS[format]);
                    else {
                        assertEquals(0, st, "status of chunk " + i + " of " + FORMATS[format]);
                        assertArrayEquals(originals.get(i), dst.asSlice(dof[i], ds[i]).toArray(ValueLayout.JAVA_BYTE),
                                "chunk " + i + " of " + FORMATS[format]);
                    }
                    for (int g = 1; g <= 16; g++) {
                        assertEquals((byte) 0xA5, dst.get(ValueLayout.JAVA_BYTE, dof[i] - g), "gap before chunk " + i);
                        assertEquals((byte) 0xA5, dst.get(ValueLayout.JAVA_BYTE, dof[i] + ds[i] + g - 1), "gap after chunk " + i);
                    }
                }
            }
        }
    }

    @Test
    void localMemoryIsWithinTheDocumentedBudget() throws Throwable {
        for (int format = RAW; format <= GZIP; format++) {
            long b = (long) HostKernels.get().inflateLdsBytes.invokeExact(format);
            assertTrue(b <= 48 * 1024, FORMATS[format] + " local memory " + b);
        }
    }
}
