// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import java.util.zip.Inflater;

/**
 * Streams for the deflate, zlib and gzip kernels (inflate/*.h), made by java.util.zip, the host
 * decoder with poisoned guard bytes around dst, and a java.util.zip reference decoder with the
 * CPU codecs' rules (GzipCodec, ZlibCodec): exact output size, nothing after the stream.
 */
final class InflateTestSupport {
    static final long SEED = Long.getLong("zd.seed", 0x1F8B0800L);
    static final int RAW = 0, ZLIB = 1, GZIP = 2;
    static final String[] FORMATS = {"deflate", "zlib", "gzip"};
    static final int FTEXT = 1, FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16;
    static final String[] KINDS = {"zeros", "text", "random", "runs", "dist1", "far"};
    private static final int GUARD = 64;
    private static final byte POISON = (byte) 0xA5;

    private InflateTestSupport() {}

    /** kind: zeros; text; random; runs (short runs of few bytes); dist1 (long runs of one byte); far (a 32 KiB random block repeated: matches at distance 32768). */
    static byte[] data(String kind, int n, Random r) {
        byte[] b = new byte[n];
        switch (kind) {
            case "zeros" -> {}
            case "text" -> {
                byte[] t = ZstdTestSupport.text(n, r);
                System.arraycopy(t, 0, b, 0, n);
            }
            case "random" -> r.nextBytes(b);
            case "runs" -> {
                for (int i = 0; i < n; ) {
                    int len = 1 + r.nextInt(40);
                    byte v = (byte) r.nextInt(6);
                    for (int k = 0; k < len && i < n; k++) b[i++] = v;
                }
            }
            case "dist1" -> {
                for (int i = 0; i < n; ) {
                    int len = 1 + r.nextInt(5000);
                    byte v = (byte) r.nextInt(256);
                    for (int k = 0; k < len && i < n; k++) b[i++] = v;
                }
            }
            case "far" -> {
                byte[] unit = new byte[32768];
                r.nextBytes(unit);
                for (int i = 0; i < n; i++) b[i] = unit[i % unit.length];
            }
            default -> throw new IllegalArgumentException(kind);
        }
        return b;
    }

    /** Raw deflate (nowrap) or zlib by java.util.zip.Deflater. */
    static byte[] deflate(byte[] d, int level, int strategy, boolean nowrap) {
        Deflater def = new Deflater(level, nowrap);
        try {
            def.setStrategy(strategy);
            def.setInput(d);
            def.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(d.length / 2 + 64);
            byte[] buf = new byte[65536];
            while (!def.finished()) out.write(buf, 0, def.deflate(buf));
            return out.toByteArray();
        } finally {
            def.end();
        }
    }

    /** One stream of the format: raw deflate, zlib, or one gzip member with a plain header. */
    static byte[] encode(int format, byte[] d, int level, int strategy) {
        return switch (format) {
            case RAW -> deflate(d, level, strategy, true);
            case ZLIB -> deflate(d, level, strategy, false);
            default -> gzipMember(d, level, strategy, 0, null, null, null);
        };
    }

    /** What GZIPOutputStream writes. */
    static byte[] gzipStream(byte[] d) {
        try {
            ByteArrayOutputStream bo = new ByteArrayOutputStream();
            try (GZIPOutputStream g = new GZIPOutputStream(bo)) {
                g.write(d);
            }
            return bo.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A gzip member built by hand: the header fields of flags (FHCRC computed), raw deflate, CRC-32, ISIZE. */
    static byte[] gzipMember(byte[] d, int level, int strategy, int flags, byte[] extra, String name, String comment) {
        ByteArrayOutputStream h = new ByteArrayOutputStream();
        h.writeBytes(new byte[] {0x1f, (byte) 0x8b, 8, (byte) flags, 1, 2, 3, 4, 0, 3});
        if ((flags & FEXTRA) != 0) {
            h.write(extra.length & 255);
            h.write(extra.length >>> 8);
            h.writeBytes(extra);
        }
        if ((flags & FNAME) != 0) {
            h.writeBytes(name.getBytes(StandardCharsets.ISO_8859_1));
            h.write(0);
        }
        if ((flags & FCOMMENT) != 0) {
            h.writeBytes(comment.getBytes(StandardCharsets.ISO_8859_1));
            h.write(0);
        }
        if ((flags & FHCRC) != 0) {
            CRC32 c = new CRC32();
            c.update(h.toByteArray());
            h.write((int) c.getValue() & 255);
            h.write((int) (c.getValue() >>> 8) & 255);
        }
        h.writeBytes(deflate(d, level, strategy, true));
        CRC32 c = new CRC32();
        c.update(d);
        writeLe32(h, (int) c.getValue());
        writeLe32(h, d.length);
        return h.toByteArray();
    }

    static void writeLe32(ByteArrayOutputStream o, int v) {
        for (int i = 0; i < 4; i++) o.write(v >>> (8 * i));
    }

    record Decoded(int status, byte[] out, boolean guardsIntact) {}

    /** Decodes with the host kernels into dstLen bytes between poisoned guards. */
    static Decoded decode(byte[] stream, int dstLen, int format, int localSize) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = HostKernels.copyOf(a, stream);
            MemorySegment whole = a.allocate(dstLen + 2L * GUARD, 16);
            whole.fill(POISON);
            MemorySegment dst = whole.asSlice(GUARD, dstLen);
            int s = HostKernels.get().inflate(src, dst, format, localSize);
            boolean ok = true;
            for (int i = 0; i < GUARD; i++) {
                ok &= whole.get(ValueLayout.JAVA_BYTE, i) == POISON;
                ok &= whole.get(ValueLayout.JAVA_BYTE, GUARD + dstLen + i) == POISON;
            }
            return new Decoded(s, dst.toArray(ValueLayout.JAVA_BYTE), ok);
        }
    }

    /** java.util.zip's answer with the CPU codecs' rules: the decoded bytes, or null where they reject. */
    static byte[] reference(byte[] s, int dstLen, int format) {
        if (format != GZIP) {
            long[] end = new long[1];
            byte[] out = inflateRef(s, 0, dstLen, format == RAW, end);
            return out != null && out.length == dstLen && end[0] == s.length ? out : null;
        }
        if (s.length == 0) return null;
        byte[] all = new byte[dstLen];
        int o = 0, pos = 0;
        while (pos < s.length) {
            int data = gzipHeaderRef(s, pos);
            if (data < 0) return null;
            long[] end = new long[1];
            byte[] m = inflateRef(s, data, dstLen - o, true, end);
            if (m == null || s.length - end[0] < 8) return null;
            int e = (int) end[0];
            CRC32 c = new CRC32();
            c.update(m);
            if (ZstdTestSupport.le(s, e, 4) != (int) c.getValue() || ZstdTestSupport.le(s, e + 4, 4) != m.length) return null;
            System.arraycopy(m, 0, all, o, m.length);
            o += m.length;
            pos = e + 8;
        }
        return o == dstLen ? all : null;
    }

    /** One raw or zlib stream from s[from..): at most max bytes, else null; end[0] = where it ends. */
    private static byte[] inflateRef(byte[] s, int from, int max, boolean nowrap, long[] end) {
        Inflater inf = new Inflater(nowrap);
        try {
            inf.setInput(s, from, s.length - from);
            byte[] buf = new byte[max + 1];
            int n = 0;
            while (!inf.finished()) {
                int k = inf.inflate(buf, n, buf.length - n);
                n += k;
                if (n > max || k == 0 && !inf.finished()) return null;
            }
            end[0] = s.length - inf.getRemaining();
            return Arrays.copyOf(buf, n);
        } catch (DataFormatException e) {
            return null;
        } finally {
            inf.end();
        }
    }

    private static int gzipHeaderRef(byte[] s, int pos) {
        if (s.length - pos < 10 || (s[pos] & 255) != 0x1f || (s[pos + 1] & 255) != 0x8b || s[pos + 2] != 8) return -1;
        int flg = s[pos + 3] & 255;
        if ((flg & 0xE0) != 0) return -1;
        int p = pos + 10;
        if ((flg & FEXTRA) != 0) {
            if (s.length - p < 2) return -1;
            int xlen = ZstdTestSupport.le(s, p, 2);
            p += 2;
            if (s.length - p < xlen) return -1;
            p += xlen;
        }
        for (int f : new int[] {FNAME, FCOMMENT}) {
            if ((flg & f) == 0) continue;
            while (p < s.length && s[p] != 0) p++;
            if (p >= s.length) return -1;
            p++;
        }
        if ((flg & FHCRC) != 0) {
            if (s.length - p < 2) return -1;
            CRC32 c = new CRC32();
            c.update(s, pos, p - pos);
            if (ZstdTestSupport.le(s, p, 2) != ((int) c.getValue() & 0xffff)) return -1;
            p += 2;
        }
        return p;
    }
}
