// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import com.github.luben.zstd.ZstdCompressCtx;

/** Data generators, guarded host decoding and a frame walker that tallies which zstd modes a corpus uses. */
final class ZstdTestSupport {
    static final int GUARD = 64;
    static final byte POISON = (byte) 0xA5;
    static final long SEED = Long.getLong("zd.seed", 0x5EED_2025L);

    private ZstdTestSupport() {}

    record Decoded(int status, byte[] out, boolean guardsIntact) {}

    /** Decodes src into exactly dstLen bytes surrounded by poisoned guards (dst and scratch). */
    static Decoded decode(byte[] src, int dstLen, int localSize) {
        HostKernels hk = HostKernels.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = HostKernels.copyOf(arena, src);
            MemorySegment buf = arena.allocate(dstLen + 2L * GUARD, 16).fill(POISON);
            long scratchLen = hk.scratchPerFrame;
            MemorySegment sbuf = arena.allocate(scratchLen + 2L * GUARD, 16).fill(POISON);
            int st = hk.decode(s, buf.asSlice(GUARD, dstLen), sbuf.asSlice(GUARD, scratchLen), localSize);
            boolean ok = poisoned(buf, 0, GUARD) && poisoned(buf, GUARD + dstLen, GUARD)
                    && poisoned(sbuf, 0, GUARD) && poisoned(sbuf, GUARD + scratchLen, GUARD);
            return new Decoded(st, buf.asSlice(GUARD, dstLen).toArray(ValueLayout.JAVA_BYTE), ok);
        }
    }

    static boolean poisoned(MemorySegment m, long off, long n) {
        for (long i = 0; i < n; i++) if (m.get(ValueLayout.JAVA_BYTE, off + i) != POISON) return false;
        return true;
    }

    static byte[] compress(byte[] data, int level, boolean checksum, boolean contentSize, boolean ldm) {
        try (ZstdCompressCtx c = new ZstdCompressCtx()) {
            c.setLevel(level).setChecksum(checksum).setContentSize(contentSize);
            if (ldm) c.setLong(27);
            return c.compress(data);
        }
    }

    // ------------------------------------------------------------------ data
    static final String[] KINDS = {"text", "floats", "zeros", "random", "pattern", "binary", "mixture"};

    static byte[] data(String kind, int n, Random r) {
        return switch (kind) {
            case "text" -> text(n, r);
            case "floats" -> floats(n, r);
            case "field" -> field(n, r);
            case "zeros" -> new byte[n];
            case "random" -> random(n, r);
            case "pattern" -> pattern(n, r);
            case "binary" -> binary(n, r);
            case "mixture" -> mixture(n, r);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    static byte[] random(int n, Random r) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    static byte[] text(int n, Random r) {
        String[] words = {"the", "zarr", "array", "chunk", "of", "decode", "kernel", "device", "memory", "and",
            "shard", "codec", "a", "is", "compressed", "float", "temperature", "pressure", "\n"};
        StringBuilder sb = new StringBuilder(n + 16);
        while (sb.length() < n) sb.append(words[(int) Math.abs(r.nextGaussian() * 5) % words.length]).append(' ');
        return sb.substring(0, n).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] floats(int n, Random r) {
        ByteBuffer bb = ByteBuffer.allocate(n + 4).order(ByteOrder.LITTLE_ENDIAN);
        double phase = r.nextDouble();
        for (int i = 0; bb.position() + 4 <= bb.capacity(); i++) {
            bb.putFloat((float) (280.0 + 15 * Math.sin(i * 1e-3 + phase) + r.nextGaussian() * 0.05));
        }
        byte[] b = new byte[n];
        System.arraycopy(bb.array(), 0, b, 0, n);
        return b;
    }

    /**
     * A smooth 2-D float32 field on a 1440-wide grid, quantized to 1/64: compresses like the ERA5
     * chunks (level 3: ratio ~6.9, ~0.4 literals a sequence, short literal runs), the data of
     * the execute pass's per-sequence literal copy.
     */
    static byte[] field(int n, Random r) {
        ByteBuffer bb = ByteBuffer.allocate(n + 4).order(ByteOrder.LITTLE_ENDIAN);
        double phase = r.nextDouble() * 6.28;
        for (int i = 0; bb.position() + 4 <= bb.capacity(); i++) {
            int lat = i / 1440, lon = i % 1440;
            double v = 250 + 30 * Math.cos(lat * 0.004 + phase) + 4 * Math.sin(lon * 0.0125 + lat * 0.002);
            bb.putFloat((float) (Math.round(v * 64) / 64.0));
        }
        byte[] b = new byte[n];
        System.arraycopy(bb.array(), 0, b, 0, n);
        return b;
    }

    static byte[] pattern(int n, Random r) {
        byte[] unit = random(1 + r.nextInt(17), r);
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = unit[i % unit.length];
        for (int k = 0; k < n / 200; k++) b[r.nextInt(n)] = (byte) r.nextInt(256);
        return b;
    }

    /** Bytes 0..3: tiny literal alphabets, where zstd describes Huffman weights directly. */
    static byte[] binary(int n, Random r) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) r.nextInt(4);
        return b;
    }

    static byte[] mixture(int n, Random r) {
        byte[] b = new byte[n];
        int p = 0;
        while (p < n) {
            int len = Math.min(n - p, 1 + r.nextInt(20000));
            byte[] part = data(KINDS[r.nextInt(KINDS.length - 1)], len, r);
            System.arraycopy(part, 0, b, p, len);
            p += len;
        }
        return b;
    }

    // ------------------------------------------------------------------ frame walking
    static int le(byte[] f, int p, int n) {
        int v = 0;
        for (int i = 0; i < n; i++) v |= (f[p + i] & 255) << (8 * i);
        return v;
    }

    /** Offset of the first block header of the zstd frame starting at p. */
    static int firstBlock(byte[] f, int p) {
        int fhd = f[p + 4] & 255;
        boolean single = ((fhd >> 5) & 1) == 1;
        int did = fhd & 3;
        int fcsFlag = fhd >> 6;
        int fcsSize = fcsFlag == 0 ? (single ? 1 : 0) : 1 << fcsFlag;
        return p + 5 + (single ? 0 : 1) + (did == 3 ? 4 : did) + fcsSize;
    }

    /** Adds one count per frame/block/literals/sequences feature seen in f. */
    static void tally(byte[] f, Map<String, Integer> cov) {
        int p = 0;
        while (p < f.length) {
            int magic = le(f, p, 4);
            if ((magic & 0xFFFFFFF0) == 0x184D2A50) {
                cov.merge("frame.skippable", 1, Integer::sum);
                p += 8 + le(f, p + 4, 4);
                continue;
            }
            int fhd = f[p + 4] & 255;
            boolean single = ((fhd >> 5) & 1) == 1;
            int fcsFlag = fhd >> 6;
            cov.merge("frame.fcs_bytes_" + (fcsFlag == 0 ? (single ? 1 : 0) : 1 << fcsFlag), 1, Integer::sum);
            cov.merge(single ? "frame.single_segment" : "frame.window_descriptor", 1, Integer::sum);
            boolean checksum = ((fhd >> 2) & 1) == 1;
            cov.merge(checksum ? "frame.checksum" : "frame.no_checksum", 1, Integer::sum);
            p = firstBlock(f, p);
            for (;;) {
                int bh = le(f, p, 3);
                p += 3;
                int type = (bh >> 1) & 3;
                int size = bh >>> 3;
                if (type == 0) {
                    cov.merge("block.raw", 1, Integer::sum);
                    p += size;
                } else if (type == 1) {
                    cov.merge("block.rle", 1, Integer::sum);
                    p += 1;
                } else {
                    cov.merge("block.compressed", 1, Integer::sum);
                    tallyCompressed(f, p, size, cov);
                    p += size;
                }
                if ((bh & 1) == 1) break;
            }
            if (checksum) p += 4;
        }
    }

    private static void tallyCompressed(byte[] f, int p, int size, Map<String, Integer> cov) {
        String[] lit = {"raw", "rle", "compressed", "treeless"};
        int b0 = f[p] & 255, lt = b0 & 3, sf = (b0 >> 2) & 3;
        int litBytes;
        if (lt <= 1) {
            int hl = sf == 1 ? 2 : sf == 3 ? 3 : 1;
            int rs = hl == 1 ? b0 >> 3 : le(f, p, hl) >>> 4;
            litBytes = hl + (lt == 0 ? rs : 1);
            cov.merge("literals." + lit[lt], 1, Integer::sum);
        } else {
            int hl = sf <= 1 ? 3 : sf + 2;
            int nb = sf <= 1 ? 10 : sf == 2 ? 14 : 18;
            long v = 0;
            for (int i = 0; i < hl; i++) v |= (long) (f[p + i] & 255) << (8 * i);
            int csize = (int) ((v >>> (4 + nb)) & ((1 << nb) - 1));
            litBytes = hl + csize;
            cov.merge("literals." + lit[lt] + (sf == 0 ? ".1_stream" : ".4_streams"), 1, Integer::sum);
            if (lt == 2) cov.merge((f[p + hl] & 255) >= 128 ? "huffman.weights_direct" : "huffman.weights_fse", 1, Integer::sum);
        }
        int q = p + litBytes;
        int b = f[q] & 255, nseq;
        if (b < 128) {
            nseq = b;
            q += 1;
            cov.merge("nseq.1_byte", 1, Integer::sum);
        } else if (b < 255) {
            nseq = ((b - 128) << 8) + (f[q + 1] & 255);
            q += 2;
            cov.merge("nseq.2_bytes", 1, Integer::sum);
        } else {
            nseq = (f[q + 1] & 255) + ((f[q + 2] & 255) << 8) + 0x7F00;
            q += 3;
            cov.merge("nseq.3_bytes", 1, Integer::sum);
        }
        if (nseq == 0) {
            cov.merge("sequences.none", 1, Integer::sum);
            return;
        }
        String[] mode = {"predefined", "rle", "fse", "repeat"};
        int m = f[q] & 255;
        cov.merge("seq.ll_" + mode[m >> 6], 1, Integer::sum);
        cov.merge("seq.of_" + mode[(m >> 4) & 3], 1, Integer::sum);
        cov.merge("seq.ml_" + mode[(m >> 2) & 3], 1, Integer::sum);
    }

    static Map<String, Integer> newCoverage() {
        return new TreeMap<>();
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) n += p.length;
        byte[] out = new byte[n];
        int o = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, o, p.length);
            o += p.length;
        }
        return out;
    }

    static byte[] bytes(int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) b[i] = (byte) v[i];
        return b;
    }

    static void copyInto(MemorySegment seg, byte[] b) {
        MemorySegment.copy(b, 0, seg, ValueLayout.JAVA_BYTE, 0, b.length);
    }
}
