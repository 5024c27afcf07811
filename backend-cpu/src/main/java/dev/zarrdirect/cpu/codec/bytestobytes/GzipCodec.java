// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.GzipSpec;
import dev.zarrdirect.cpu.codec.CodecItems;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The {@code gzip} codec on the CPU: RFC 1952 members around raw deflate, computed by the JDK's
 * zlib through {@link ByteBuffer} views of native segments (no copies to the heap). The header is
 * written and parsed here: decoding accepts FEXTRA, FNAME, FCOMMENT and FHCRC (whose CRC16 it
 * checks), several members one after the other, and checks each member's CRC32 and ISIZE.
 *
 * <p>Deflaters and inflaters hold native zlib state that is slow to set up, so they are kept in
 * small pools and reset between chunks instead of being created per chunk.
 *
 * <p>Where the system has libdeflate ({@link LibDeflate}) each member's deflate data is inflated by it
 * first; a member it does not decode whole is decoded again by zlib, which reports what is wrong
 * with it. The header, CRC32 and ISIZE are checked here either way.
 */
public final class GzipCodec implements BytesToBytesCodec {

    static final String NAME = "gzip";
    private static final int HEADER = 10;
    private static final int TRAILER = 8;
    private static final int FTEXT = 1;
    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort LE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ConcurrentLinkedQueue<Inflater> INFLATERS = new ConcurrentLinkedQueue<>();

    private final int level;
    private final boolean libdeflate;
    private final ConcurrentLinkedQueue<Deflater> deflaters = new ConcurrentLinkedQueue<>();

    private GzipCodec(int level, boolean libdeflate) {
        this.level = level;
        this.libdeflate = libdeflate;
        if (libdeflate) {
            LibDeflate.warm(); // bound now, not in the first chunk's decode
        }
    }

    /** Reads {@code {"level": 0..9}}; an absent level means 5, as zarr-python's default. */
    public static GzipCodec create(Map<String, Object> configuration) {
        return create(configuration, true);
    }

    /**
     * As {@link #create(Map)}; {@code libdeflate} false inflates with the JDK's zlib alone
     * ({@link dev.zarrdirect.cpu.CpuSettings#libdeflate()}).
     */
    public static GzipCodec create(Map<String, Object> configuration, boolean libdeflate) {
        return new GzipCodec(GzipSpec.parse(configuration).level(), libdeflate);
    }

    /** Whether members are tried with libdeflate first (where it is available). */
    public boolean libdeflate() {
        return libdeflate;
    }

    public int level() {
        return level;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Device device() {
        return Device.CPU;
    }

    @Override
    public String provider() {
        return "cpu";
    }

    @Override
    public long encodedSize(long decodedSize) {
        return -1;
    }

    /** zlib's deflateBound is {@code n + n/4096 + n/16384 + 7 + ...}; {@code n/1024 + 64} covers it with room. */
    @Override
    public long maxEncodedSize(long decodedSize) {
        return decodedSize + (decodedSize >>> 10) + 64 + HEADER + TRAILER;
    }

    @Override
    public void encode(CodecBatch batch) {
        CodecItems.forEach(NAME, "encode", batch, (i, in, out) -> {
            Deflater d = deflaters.poll();
            if (d == null) {
                d = new Deflater(level, true);
            }
            try {
                batch.complete(i, encodeOne(d, in, out, batch.label(i)));
            } finally {
                d.reset();
                deflaters.offer(d);
            }
        });
    }

    private long encodeOne(Deflater d, MemorySegment in, MemorySegment out, String label) {
        long n = in.byteSize();
        long limit = out.byteSize() - TRAILER;
        if (limit < HEADER) {
            throw new IllegalArgumentException("output of " + out.byteSize() + " bytes is too small for a gzip member");
        }
        out.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x1f);
        out.set(ValueLayout.JAVA_BYTE, 1, (byte) 0x8b);
        out.set(ValueLayout.JAVA_BYTE, 2, (byte) 8);
        out.set(ValueLayout.JAVA_BYTE, 3, (byte) 0);
        out.set(LE_INT, 4, 0); // no modification time: equal data gives equal chunks
        out.set(ValueLayout.JAVA_BYTE, 8, (byte) (level == 9 ? 2 : level == 1 ? 4 : 0));
        out.set(ValueLayout.JAVA_BYTE, 9, (byte) 255); // OS unknown
        long inPos = 0;
        long outPos = HEADER;
        if (n == 0) {
            d.setInput(ByteBuffer.allocate(0));
            d.finish();
        }
        while (!d.finished()) {
            if (d.needsInput() && inPos < n) {
                ByteBuffer w = CodecItems.window(in, inPos, n - inPos);
                inPos += w.remaining();
                d.setInput(w);
                if (inPos == n) {
                    d.finish();
                }
            }
            if (outPos >= limit) {
                throw new IllegalArgumentException("output of " + out.byteSize() + " bytes is too small for gzip of "
                        + n + " bytes of " + label + "; allocate maxEncodedSize(" + n + ") = " + maxEncodedSize(n));
            }
            ByteBuffer w = CodecItems.window(out, outPos, limit - outPos);
            outPos += d.deflate(w, Deflater.NO_FLUSH);
        }
        out.set(LE_INT, outPos, crc32(in, 0, n));
        out.set(LE_INT, outPos + 4, (int) n);
        return outPos + TRAILER;
    }

    private static int crc32(MemorySegment s, long offset, long length) {
        CRC32 crc = new CRC32();
        for (long done = 0; done < length; ) {
            ByteBuffer w = CodecItems.window(s, offset + done, length - done);
            done += w.remaining();
            crc.update(w);
        }
        return (int) crc.getValue();
    }

    @Override
    public void decode(CodecBatch batch) {
        CodecItems.forEach(NAME, "decode", batch, (i, in, out) -> {
            Inflater inf = INFLATERS.poll();
            if (inf == null) {
                inf = new Inflater(true);
            }
            try {
                decodeOne(inf, libdeflate, in, out, batch.label(i));
            } finally {
                inf.reset();
                INFLATERS.offer(inf);
            }
            batch.complete(i, out.byteSize());
        });
    }

    private static CorruptChunkException corrupt(String label, String what) {
        return new CorruptChunkException(NAME, "gzip data of " + label + " " + what);
    }

    private static void decodeOne(Inflater inf, boolean libdeflate, MemorySegment in, MemorySegment out,
                                  String label) {
        long size = in.byteSize();
        long expected = out.byteSize();
        if (size == 0) {
            throw corrupt(label, "is empty: no gzip member, expected " + expected + " decoded bytes");
        }
        long pos = 0;
        long outPos = 0;
        int member = 0;
        byte[] probe = new byte[1];
        while (pos < size) {
            long dataStart = parseHeader(in, pos, label, member);
            long memberStart = outPos;
            long trailer = -1;
            if (libdeflate && LibDeflate.available() && in.isNative() && out.isNative()) {
                LibDeflate.Result r = LibDeflate.raw(in, dataStart, size - dataStart, out, outPos, expected - outPos);
                if (r.ok()) {
                    trailer = dataStart + r.consumed();
                    outPos += r.produced();
                }
            }
            if (trailer < 0) {
                // zlib decodes what libdeflate did not, or is unavailable for: its result and message are the rule
                inf.reset();
                outPos = memberStart;
                long winStart = dataStart;
                long winLen = 0;
                try {
                    while (!inf.finished()) {
                        if (inf.needsInput()) {
                            long next = winStart + winLen;
                            if (next >= size) {
                                throw corrupt(label, "is truncated: deflate stream of member " + member
                                        + " ended at byte " + size + " after " + outPos + " decoded bytes, expected "
                                        + expected);
                            }
                            ByteBuffer w = CodecItems.window(in, next, size - next);
                            winStart = next;
                            winLen = w.remaining();
                            inf.setInput(w);
                        }
                        if (inf.needsDictionary()) {
                            throw corrupt(label, "asks for a preset dictionary, which gzip does not have");
                        }
                        if (outPos == expected) {
                            if (inf.inflate(probe) > 0) {
                                throw corrupt(label, "decodes to more than the expected " + expected + " bytes");
                            }
                            continue;
                        }
                        int k = inf.inflate(CodecItems.window(out, outPos, expected - outPos));
                        outPos += k;
                    }
                } catch (DataFormatException e) {
                    throw new CorruptChunkException(NAME, "gzip data of " + label + " is corrupt in member " + member
                            + " after " + outPos + " decoded bytes: " + e.getMessage() + "; expected " + expected
                            + " decoded bytes", e);
                }
                trailer = winStart + winLen - inf.getRemaining();
            }
            if (size - trailer < TRAILER) {
                throw corrupt(label, "is truncated: member " + member + " has " + (size - trailer)
                        + " of its 8 trailer bytes");
            }
            long memberBytes = outPos - memberStart;
            int storedCrc = in.get(LE_INT, trailer);
            int computedCrc = crc32(out, memberStart, memberBytes);
            if (storedCrc != computedCrc) {
                throw new CorruptChunkException(NAME, String.format("gzip data of %s has a bad CRC32 in member %d:"
                        + " stored 0x%08X, computed 0x%08X", label, member, storedCrc, computedCrc));
            }
            int storedSize = in.get(LE_INT, trailer + 4);
            if (storedSize != (int) memberBytes) {
                throw corrupt(label, "member " + member + " declares " + Integer.toUnsignedLong(storedSize)
                        + " bytes (mod 2^32) but decoded " + memberBytes);
            }
            pos = trailer + TRAILER;
            member++;
        }
        if (outPos != expected) {
            throw corrupt(label, "decodes to " + outPos + " bytes, expected " + expected);
        }
    }

    /** Checks the member header at {@code pos} and returns where its deflate data starts. */
    private static long parseHeader(MemorySegment in, long pos, String label, int member) {
        long size = in.byteSize();
        String where = "member " + member + " at byte " + pos;
        if (size - pos < HEADER) {
            throw corrupt(label, "is truncated: " + where + " has " + (size - pos) + " of the 10 header bytes");
        }
        int id1 = in.get(ValueLayout.JAVA_BYTE, pos) & 0xff;
        int id2 = in.get(ValueLayout.JAVA_BYTE, pos + 1) & 0xff;
        if (id1 != 0x1f || id2 != 0x8b) {
            throw corrupt(label, "has no gzip magic at " + where + String.format(": 0x%02X 0x%02X", id1, id2)
                    + ", expected 0x1F 0x8B");
        }
        int cm = in.get(ValueLayout.JAVA_BYTE, pos + 2) & 0xff;
        if (cm != 8) {
            throw corrupt(label, "uses compression method " + cm + " in " + where + "; only 8 (deflate) exists");
        }
        int flags = in.get(ValueLayout.JAVA_BYTE, pos + 3) & 0xff;
        if ((flags & ~(FTEXT | FHCRC | FEXTRA | FNAME | FCOMMENT)) != 0) {
            throw corrupt(label, String.format("sets reserved header flags 0x%02X in %s", flags, where));
        }
        long p = pos + HEADER;
        if ((flags & FEXTRA) != 0) {
            if (size - p < 2) {
                throw corrupt(label, "is truncated in the FEXTRA length of " + where);
            }
            int xlen = Short.toUnsignedInt(in.get(LE_SHORT, p));
            p += 2;
            if (size - p < xlen) {
                throw corrupt(label, "is truncated in the FEXTRA field of " + where + ": " + xlen + " bytes declared, "
                        + (size - p) + " left");
            }
            p += xlen;
        }
        if ((flags & FNAME) != 0) {
            p = skipZeroTerminated(in, p, label, "FNAME", where);
        }
        if ((flags & FCOMMENT) != 0) {
            p = skipZeroTerminated(in, p, label, "FCOMMENT", where);
        }
        if ((flags & FHCRC) != 0) {
            if (size - p < 2) {
                throw corrupt(label, "is truncated in the FHCRC field of " + where);
            }
            int stored = Short.toUnsignedInt(in.get(LE_SHORT, p));
            int computed = crc32(in, pos, p - pos) & 0xffff;
            if (stored != computed) {
                throw corrupt(label, String.format("has a bad header CRC16 in %s: stored 0x%04X, computed 0x%04X",
                        where, stored, computed));
            }
            p += 2;
        }
        return p;
    }

    private static long skipZeroTerminated(MemorySegment in, long p, String label, String field, String where) {
        long size = in.byteSize();
        while (p < size) {
            if (in.get(ValueLayout.JAVA_BYTE, p++) == 0) {
                return p;
            }
        }
        throw corrupt(label, "is truncated in the " + field + " field of " + where + ": no terminating zero byte");
    }
}
