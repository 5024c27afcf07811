// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.Deflater;

import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.InflateTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Malformed deflate, zlib and gzip input: a status (or, where java.util.zip accepts too, its bytes), never a write outside dst. */
class InflateCorruptionTest {
    record Sample(String name, int format, byte[] original, byte[] stream) {}

    private static List<Sample> samples() {
        Random r = new Random(SEED ^ 0xC0);
        List<Sample> s = new ArrayList<>();
        int i = 0;
        for (String kind : KINDS) {
            byte[] d = data(kind, 3_000 + r.nextInt(60_000), r);
            for (int level : new int[] {0, 1, 9}) {
                int format = i++ % 3;
                int strategy = level == 9 && kind.equals("text") ? Deflater.HUFFMAN_ONLY : Deflater.DEFAULT_STRATEGY;
                byte[] z = format == GZIP && i % 2 == 0
                        ? gzipMember(d, level, strategy, FNAME | FHCRC | FEXTRA, new byte[] {1, 2, 3}, "n", null)
                        : encode(format, d, level, strategy);
                s.add(new Sample(kind + "/L" + level + "/" + FORMATS[format], format, d, z));
            }
        }
        return s;
    }

    @Test
    void everyTruncationIsRejected() {
        Random r = new Random(SEED ^ 0x7C);
        int cases = 0;
        for (int format = RAW; format <= GZIP; format++) {
            for (String kind : new String[] {"text", "runs", "random"}) {
                byte[] d = data(kind, 1500, r);
                for (int level : new int[] {0, 6}) {
                    byte[] s = format == GZIP ? gzipMember(d, level, Deflater.DEFAULT_STRATEGY, FNAME | FCOMMENT | FHCRC, null, "x", "y")
                            : encode(format, d, level, Deflater.DEFAULT_STRATEGY);
                    for (int cut = 0; cut < s.length; cut++) {
                        Decoded dec = decode(Arrays.copyOf(s, cut), d.length, format, cut % 5 == 0 ? 3 : 1);
                        String what = FORMATS[format] + " " + kind + " L" + level + " cut at " + cut + " of " + s.length;
                        assertTrue(dec.guardsIntact(), "guards " + what);
                        assertNotEquals(0, dec.status(), what + " seed=" + SEED);
                        cases++;
                    }
                }
            }
        }
        System.out.println("inflate truncations: " + cases);
    }

    /** Random bit flips: we accept exactly what java.util.zip accepts (with the CPU codecs' rules), with its bytes. */
    @Test
    void bitFlipsAgreeWithJavaUtilZip() {
        Random r = new Random(SEED ^ 0xF11B);
        int cases = 0, rejected = 0;
        for (Sample s : samples()) {
            for (int k = 0; k < 100; k++) {
                byte[] f = s.stream.clone();
                int flips = 1 + r.nextInt(3);
                for (int j = 0; j < flips; j++) f[r.nextInt(f.length)] ^= (byte) (1 << r.nextInt(8));
                Decoded d = decode(f, s.original.length, s.format, k % 10 == 0 ? 4 : 1);
                String what = s.name + " flip " + k + " seed=" + SEED;
                assertTrue(d.guardsIntact(), "guards " + what);
                byte[] ref = reference(f, s.original.length, s.format);
                if (d.status() == 0) {
                    assertNotNull(ref, "we accept what java.util.zip rejects: " + what);
                    assertArrayEquals(ref, d.out(), "output differs from java.util.zip: " + what);
                } else {
                    assertNull(ref, "we reject (status " + d.status() + ") what java.util.zip accepts: " + what);
                    rejected++;
                }
                cases++;
            }
        }
        System.out.println("inflate bit flips: " + cases + " cases, " + rejected + " rejected by both");
    }

    /** Bits of a hand-made deflate stream: fields least significant bit first, Huffman codes most significant first. */
    static final class Bits {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private int acc, n;

        Bits put(int v, int bits) {
            for (int i = 0; i < bits; i++) {
                acc |= ((v >>> i) & 1) << n;
                if (++n == 8) {
                    out.write(acc);
                    acc = 0;
                    n = 0;
                }
            }
            return this;
        }

        Bits code(int c, int len) {
            for (int i = len - 1; i >= 0; i--) put(c >>> i, 1);
            return this;
        }

        /** A symbol of the fixed literal/length code (RFC 1951 3.2.6). */
        Bits fixed(int sym) {
            if (sym < 144) return code(0x30 + sym, 8);
            if (sym < 256) return code(0x190 + sym - 144, 9);
            if (sym < 280) return code(sym - 256, 7);
            return code(0xC0 + sym - 280, 8);
        }

        byte[] bytes() {
            if (n > 0) out.write(acc);
            return out.toByteArray();
        }
    }

    static void expect(byte[] s, int dstLen, int format, int status, String what) {
        for (int ls : new int[] {1, 3}) {
            Decoded d = decode(s, dstLen, format, ls);
            assertTrue(d.guardsIntact(), "guards " + what);
            assertEquals(status, d.status(), what + " (" + FORMATS[format] + ", " + ls + " items)");
        }
    }

    @Test
    void eachCorruptionHasItsStatus() {
        byte[] d = data("text", 20_000, new Random(SEED));
        byte[] gz = encode(GZIP, d, 6, Deflater.DEFAULT_STRATEGY);
        byte[] zl = encode(ZLIB, d, 6, Deflater.DEFAULT_STRATEGY);
        byte[] raw = encode(RAW, d, 6, Deflater.DEFAULT_STRATEGY);

        expect(new byte[0], 0, GZIP, ZdStatusCodes.TRUNCATED, "empty gzip");
        expect(new byte[0], 0, ZLIB, ZdStatusCodes.TRUNCATED, "empty zlib");
        expect(new byte[0], 0, RAW, ZdStatusCodes.TRUNCATED, "empty deflate");
        byte[] g = gz.clone();
        g[1] ^= 1;
        expect(g, d.length, GZIP, ZdStatusCodes.BAD_MAGIC, "gzip ID2");
        g = gz.clone();
        g[2] = 7;
        expect(g, d.length, GZIP, ZdStatusCodes.COMPRESSION_METHOD, "gzip CM 7");
        g = gz.clone();
        g[3] |= 0x20;
        expect(g, d.length, GZIP, ZdStatusCodes.RESERVED_BIT, "gzip reserved flag");
        g = gzipMember(d, 6, Deflater.DEFAULT_STRATEGY, FHCRC | FNAME, null, "name", null);
        g[15] ^= 0x40; // the stored header CRC-16 (10 + "name\0")
        expect(g, d.length, GZIP, ZdStatusCodes.GZIP_HEADER_CRC, "gzip FHCRC");
        g = gz.clone();
        g[g.length - 8] ^= 1;
        expect(g, d.length, GZIP, ZdStatusCodes.CHECKSUM, "gzip CRC-32");
        g = gz.clone();
        g[g.length - 1] ^= 1;
        expect(g, d.length, GZIP, ZdStatusCodes.GZIP_SIZE, "gzip ISIZE");
        expect(ZstdTestSupport.concat(gz, new byte[2]), d.length, GZIP, ZdStatusCodes.TRUNCATED, "gzip + 2 zero bytes");
        expect(ZstdTestSupport.concat(gz, new byte[10]), d.length, GZIP, ZdStatusCodes.BAD_MAGIC, "gzip + 10 zero bytes");
        expect(gz, d.length - 1, GZIP, ZdStatusCodes.OUTPUT_OVERFLOW, "gzip dst too small");
        expect(gz, d.length + 1, GZIP, ZdStatusCodes.OUTPUT_UNDERFLOW, "gzip dst too large");

        byte[] z = zl.clone();
        z[1] ^= 1;
        expect(z, d.length, ZLIB, ZdStatusCodes.ZLIB_HEADER_CHECK, "zlib FCHECK");
        expect(zlibHeader(0x87, zl), d.length, ZLIB, ZdStatusCodes.COMPRESSION_METHOD, "zlib CM 7");
        expect(zlibHeader(0x88, zl), d.length, ZLIB, ZdStatusCodes.COMPRESSION_METHOD, "zlib CINFO 8");
        Deflater def = new Deflater(6);
        def.setDictionary("zarr".getBytes());
        def.setInput(d);
        def.finish();
        byte[] buf = new byte[d.length + 100];
        int n = def.deflate(buf);
        def.end();
        expect(Arrays.copyOf(buf, n), d.length, ZLIB, ZdStatusCodes.DICTIONARY_NOT_SUPPORTED, "zlib FDICT");
        z = zl.clone();
        z[z.length - 1] ^= 1;
        expect(z, d.length, ZLIB, ZdStatusCodes.CHECKSUM, "zlib Adler-32");
        expect(ZstdTestSupport.concat(zl, new byte[1]), d.length, ZLIB, ZdStatusCodes.TRAILING_BYTES, "zlib + 1 byte");
        expect(ZstdTestSupport.concat(raw, new byte[1]), d.length, RAW, ZdStatusCodes.TRAILING_BYTES, "deflate + 1 byte");
        expect(zl, d.length - 1, ZLIB, ZdStatusCodes.OUTPUT_OVERFLOW, "zlib dst too small");
        expect(zl, d.length + 1, ZLIB, ZdStatusCodes.OUTPUT_UNDERFLOW, "zlib dst too large");

        byte[] st = encode(RAW, d, 0, Deflater.DEFAULT_STRATEGY);
        st[3] ^= 1; // NLEN of the first stored block
        expect(st, d.length, RAW, ZdStatusCodes.DEFLATE_STORED_LENGTH, "stored NLEN");
        expect(new Bits().put(1, 1).put(3, 2).put(0, 8).bytes(), 0, RAW, ZdStatusCodes.RESERVED_BIT, "block type 3");
        expect(new Bits().put(1, 1).put(2, 2).put(30, 5).put(0, 5).put(0, 4).bytes(), 0, RAW,
                ZdStatusCodes.DEFLATE_CODE_LENGTHS, "HLIT 287");
        expect(new Bits().put(1, 1).put(2, 2).put(0, 5).put(30, 5).put(0, 4).bytes(), 0, RAW,
                ZdStatusCodes.DEFLATE_CODE_LENGTHS, "HDIST 31");
        Bits over = new Bits().put(1, 1).put(2, 2).put(0, 5).put(0, 5).put(15, 4);
        for (int i = 0; i < 19; i++) over.put(1, 3); // 19 codes of one bit
        expect(over.bytes(), 0, RAW, ZdStatusCodes.DEFLATE_CODE_SET, "over-subscribed code length code");
        Bits under = new Bits().put(1, 1).put(2, 2).put(0, 5).put(0, 5).put(0, 4).put(2, 3).put(2, 3).put(2, 3).put(0, 3);
        expect(under.bytes(), 0, RAW, ZdStatusCodes.DEFLATE_CODE_SET, "incomplete code length code (three of two bits)");
        // code length code: symbols 16, 17, 18 and 0 of two bits each (codes 01, 10, 11, 00); then a
        // repeat (16) with no length before it
        Bits rep = new Bits().put(1, 1).put(2, 2).put(0, 5).put(0, 5).put(0, 4).put(2, 3).put(2, 3).put(2, 3).put(2, 3);
        expect(rep.code(1, 2).put(0, 2).bytes(), 0, RAW, ZdStatusCodes.DEFLATE_CODE_LENGTHS, "repeat of nothing");
        Bits noEob = new Bits().put(1, 1).put(2, 2).put(0, 5).put(0, 5).put(0, 4).put(2, 3).put(2, 3).put(2, 3).put(2, 3);
        noEob.code(3, 2).put(127, 7).code(3, 2).put(127, 7).code(3, 2).put(7, 7); // 18: 138 + 138 + 18 zeros = 294 > 258
        expect(noEob.bytes(), 0, RAW, ZdStatusCodes.DEFLATE_CODE_LENGTHS, "zero repeat past HLIT + HDIST");
        expect(new Bits().put(1, 1).put(1, 2).fixed('a').fixed(286).bytes(), 1, RAW, ZdStatusCodes.DEFLATE_SYMBOL,
                "length symbol 286");
        expect(new Bits().put(1, 1).put(1, 2).fixed('a').fixed(257).code(30, 5).bytes(), 4, RAW,
                ZdStatusCodes.DEFLATE_SYMBOL, "distance symbol 30");
        expect(new Bits().put(1, 1).put(1, 2).fixed('a').fixed(257).code(1, 5).fixed(256).bytes(), 4, RAW,
                ZdStatusCodes.DEFLATE_DISTANCE, "distance 2 after one byte");
        byte[] ok = new Bits().put(1, 1).put(1, 2).fixed('a').fixed(257).code(0, 5).fixed(256).bytes();
        expect(ok, 4, RAW, ZdStatusCodes.OK, "distance 1 after one byte");
        expect(ok, 3, RAW, ZdStatusCodes.OUTPUT_OVERFLOW, "match past dst");
        // a match with two errors reports the first in the decoder's order (the kernel tests a match
        // at one branch, then picks): the distance before the output, bits past the input before
        // the distance (24 bits: the distance code ends the input, its extra bit is past it)
        expect(new Bits().put(1, 1).put(1, 2).fixed('a').fixed(257).code(1, 5).fixed(256).bytes(), 2, RAW,
                ZdStatusCodes.DEFLATE_DISTANCE, "distance 2 after one byte, and past dst");
        expect(new Bits().put(1, 1).put(1, 2).fixed('a').fixed(265).put(0, 1).code(4, 5).bytes(), 100, RAW,
                ZdStatusCodes.TRUNCATED, "distance 5 after one byte, its extra bit past the input");
        // the second member's distance may not reach into the first member's output
        byte[] m2 = ZstdTestSupport.concat(gzipMember(new byte[] {'a'}, 6, 0, 0, null, null, null),
                gzipWrap(new Bits().put(1, 1).put(1, 2).fixed(257).code(0, 5).fixed(256).bytes(), new byte[] {'a', 'a', 'a'}));
        expect(m2, 4, GZIP, ZdStatusCodes.DEFLATE_DISTANCE, "match into the previous member");
    }

    private static byte[] zlibHeader(int cmf, byte[] zl) {
        byte[] z = zl.clone();
        z[0] = (byte) cmf;
        int flg = z[1] & 0xE0;
        flg += (31 - (cmf * 256 + flg) % 31) % 31;
        z[1] = (byte) flg;
        return z;
    }

    /** A gzip member around a given raw deflate stream that claims to decode to d. */
    private static byte[] gzipWrap(byte[] deflate, byte[] d) {
        java.util.zip.CRC32 c = new java.util.zip.CRC32();
        c.update(d);
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 255});
        o.writeBytes(deflate);
        writeLe32(o, (int) c.getValue());
        writeLe32(o, d.length);
        return o.toByteArray();
    }
}
