// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The c-blosc corpus (src/test/resources/blosc/corpus.bin, written by make-corpus.py) and a guarded
 * batch decode through the host build of the blosc kernels.
 */
final class BloscTestSupport {
    static final int GUARD = 64;
    static final byte POISON = (byte) 0xA5;
    static final long SEED = Long.getLong("zd.seed", 0xB105CL);
    /** Mode bits of zd_host_blosc_decode_batch (ZD_BLOSC_MODE_*): which kernel entry runs. */
    static final int ZSTD = 1, LZ_THREAD = 2, LZ_RESOLVE = 4, ZLIB = 8, LZ_OVERLAP = 16;
    /** The modes of zd_blosc_decode, the entry for every compressor. */
    static final int ALL = ZSTD | ZLIB;

    private BloscTestSupport() {}

    /** One frame of the corpus: its name (cname/level/shuffle/typesize/blocksize/data/size), the raw bytes, the frame. */
    record Case(String name, byte[] raw, byte[] frame) {
        int flags() {
            return frame[2] & 0xFF;
        }

        long blocksize() {
            return java.nio.ByteBuffer.wrap(frame, 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xFFFFFFFFL;
        }

        boolean memcpyed() {
            return (flags() & 0x02) != 0;
        }

        int codec() {
            return flags() >>> 5;
        }

        /** The status the entry for every compressor must give: snappy blocks are not decoded on the device. */
        int expectedStatus() {
            if (memcpyed() || raw.length == 0) return ZdStatusCodes.OK;
            if (codec() == 2) return ZdStatusCodes.BLOSC_CODEC_UNSUPPORTED;
            return ZdStatusCodes.OK;
        }

        /**
         * Whether an entry running {@code mode} may answer BLOSC_CODEC_UNSUPPORTED for this frame: its
         * compressor's decoder is not in that entry (a frame whose streams are all stored raw decodes
         * anyway, which is why this is "may").
         */
        boolean mayBeUnsupportedUnder(int mode) {
            return codec() == 4 && (mode & ZSTD) == 0 || codec() == 3 && (mode & ZLIB) == 0;
        }
    }

    private static List<Case> corpus;

    static synchronized List<Case> corpus() {
        if (corpus == null) corpus = List.copyOf(load());
        return corpus;
    }

    private static List<Case> load() {
        byte[] all;
        try (InputStream in = BloscTestSupport.class.getResourceAsStream("/blosc/corpus.bin")) {
            if (in == null) throw new IllegalStateException("test resource /blosc/corpus.bin is missing; run "
                    + "/usr/bin/python3 src/test/resources/blosc/make-corpus.py");
            all = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ByteBuffer b = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[8];
        b.get(magic);
        if (!new String(magic, StandardCharsets.US_ASCII).equals("ZDBLOSC1")) {
            throw new IllegalStateException("corpus.bin does not start with ZDBLOSC1");
        }
        List<byte[]> data = new ArrayList<>();
        int nd = b.getInt();
        for (int i = 0; i < nd; i++) {
            byte[] d = new byte[b.getInt()];
            b.get(d);
            data.add(d);
        }
        List<Case> cases = new ArrayList<>();
        int nc = b.getInt();
        for (int i = 0; i < nc; i++) {
            byte[] name = new byte[b.getShort() & 0xFFFF];
            b.get(name);
            int d = b.getInt();
            byte[] f = new byte[b.getInt()];
            b.get(f);
            cases.add(new Case(new String(name, StandardCharsets.UTF_8), data.get(d), f));
        }
        return cases;
    }

    /** What a batch decode gave: per-chunk status and bytes, and whether every guard byte is intact. */
    record Batch(int[] status, byte[][] out, boolean guardsIntact, int rc) {}

    /**
     * Decodes frames[i] into dstLens[i] bytes, all in one batch as the device does (plan, then a
     * grid of nGroups groups of localSize items). Every chunk's dst, the scratch of every group and
     * the plan sit between poisoned guards.
     */
    static Batch decode(List<byte[]> frames, int[] dstLens, int nGroups, int localSize, long scratchPerGroup,
                        int mode) {
        HostKernels hk = HostKernels.get();
        int n = frames.size();
        try (Arena arena = Arena.ofConfined()) {
            long srcTotal = 0, dstTotal = GUARD;
            long[] so = new long[n], doff = new long[n];
            for (int i = 0; i < n; i++) {
                so[i] = srcTotal;
                srcTotal += frames.get(i).length;
                doff[i] = dstTotal;
                dstTotal += dstLens[i] + GUARD;
            }
            MemorySegment src = arena.allocate(Math.max(1, srcTotal), 16);
            for (int i = 0; i < n; i++) {
                MemorySegment.copy(frames.get(i), 0, src, ValueLayout.JAVA_BYTE, so[i], frames.get(i).length);
            }
            MemorySegment dst = arena.allocate(dstTotal, 16).fill(POISON);
            MemorySegment srcOff = longs(arena, so), dstOff = longs(arena, doff);
            long[] ss = new long[n], ds = new long[n];
            for (int i = 0; i < n; i++) {
                ss[i] = frames.get(i).length;
                ds[i] = dstLens[i];
            }
            MemorySegment srcSizes = longs(arena, ss), dstSizes = longs(arena, ds);
            long scratchBytes = scratchPerGroup * nGroups;
            MemorySegment scratch = arena.allocate(scratchBytes + 2L * GUARD, 16).fill(POISON);
            long planBytes = 8L * (n + 1);
            MemorySegment plan = arena.allocate(planBytes + 2L * GUARD, 16).fill(POISON);
            MemorySegment status = arena.allocate(4L * Math.max(1, n), 4).fill((byte) 0x5A);
            int rc;
            try {
                rc = (int) hk.bloscDecodeBatch.invokeExact(src, srcOff, srcSizes, dst, dstOff, dstSizes,
                        plan.asSlice(GUARD, planBytes), scratch.asSlice(GUARD, scratchBytes), scratchPerGroup, status,
                        n, nGroups, localSize, mode);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            boolean ok = poisoned(scratch, 0, GUARD) && poisoned(scratch, GUARD + scratchBytes, GUARD)
                    && poisoned(plan, 0, GUARD) && poisoned(plan, GUARD + planBytes, GUARD) && poisoned(dst, 0, GUARD);
            int[] st = new int[n];
            byte[][] out = new byte[n][];
            for (int i = 0; i < n; i++) {
                st[i] = status.getAtIndex(ValueLayout.JAVA_INT, i);
                out[i] = dst.asSlice(doff[i], dstLens[i]).toArray(ValueLayout.JAVA_BYTE);
                ok &= poisoned(dst, doff[i] + dstLens[i], GUARD);
            }
            return new Batch(st, out, ok, rc);
        }
    }

    static Batch decodeOne(byte[] frame, int dstLen, int nGroups, int localSize, int mode) {
        return decode(List.of(frame), new int[] {dstLen}, nGroups, localSize, scratchPerGroup(1 << 20, mode), mode);
    }

    static long scratchPerGroup(long maxBlock, int mode) {
        try {
            return (long) HostKernels.get().bloscScratchPerGroup.invokeExact(maxBlock, mode);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static MemorySegment longs(Arena arena, long[] v) {
        MemorySegment m = arena.allocate(8L * Math.max(1, v.length), 8);
        for (int i = 0; i < v.length; i++) m.setAtIndex(ValueLayout.JAVA_LONG, i, v[i]);
        return m;
    }

    static boolean poisoned(MemorySegment m, long off, long n) {
        for (long i = 0; i < n; i++) if (m.get(ValueLayout.JAVA_BYTE, off + i) != POISON) return false;
        return true;
    }
}
