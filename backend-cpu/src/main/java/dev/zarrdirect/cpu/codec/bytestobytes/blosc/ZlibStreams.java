// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import dev.zarrdirect.cpu.codec.CodecItems;
import dev.zarrdirect.cpu.codec.bytestobytes.LibDeflate;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Zlib streams (RFC 1950: header, deflate data, Adler-32) between native segments through the JDK's
 * {@link Deflater} and {@link Inflater} on {@link ByteBuffer} windows, with no copy to the heap.
 * Used by Blosc's {@code zlib} compressor and by {@code numcodecs.zlib}.
 */
public final class ZlibStreams {

    /** A zlib header's first byte for deflate with a 32 KiB window (CM 8, CINFO 7), which every zlib writes by default. */
    private static final byte ZLIB_CMF_32K = 0x78;

    private ZlibStreams() {
    }

    /** What {@link #inflate} found: bytes produced and bytes of input the stream used. */
    public record Inflated(long produced, long consumed) {
    }

    /**
     * Compresses {@code len} bytes of {@code src} from {@code off} into at most {@code cap} bytes of
     * {@code dst} from {@code dstOff} with {@code deflater} (which must write the zlib wrapper; it is
     * reset first) and returns the size written, or -1 when it does not fit.
     */
    public static long deflate(Deflater deflater, MemorySegment src, long off, long len, MemorySegment dst,
                               long dstOff, long cap) {
        deflater.reset();
        long inPos = off;
        long inEnd = off + len;
        long outPos = dstOff;
        long outEnd = dstOff + cap;
        if (len == 0) {
            deflater.setInput(ByteBuffer.allocate(0));
            deflater.finish();
        }
        while (!deflater.finished()) {
            if (deflater.needsInput() && inPos < inEnd) {
                ByteBuffer w = CodecItems.window(src, inPos, inEnd - inPos);
                inPos += w.remaining();
                deflater.setInput(w);
                if (inPos == inEnd) {
                    deflater.finish();
                }
            }
            if (outPos >= outEnd) {
                return -1;
            }
            outPos += deflater.deflate(CodecItems.window(dst, outPos, outEnd - outPos), Deflater.NO_FLUSH);
        }
        return outPos - dstOff;
    }

    /**
     * Decompresses the zlib stream at {@code src[off, off + len)} into {@code dst[dstOff, dstOff + cap)}
     * with {@code inflater} (which must expect the zlib wrapper; it is reset first). Zlib checks the
     * header and the Adler-32 itself.
     *
     * @throws IllegalArgumentException when the stream is damaged, truncated, asks for a dictionary or
     *                                  decodes to more than {@code cap} bytes; the message says which
     */
    public static Inflated inflate(Inflater inflater, MemorySegment src, long off, long len, MemorySegment dst,
                                   long dstOff, long cap) {
        return inflate(inflater, false, src, off, len, dst, dstOff, cap);
    }

    /**
     * As {@link #inflate(Inflater, MemorySegment, long, long, MemorySegment, long, long)}, first through
     * libdeflate when {@code libdeflate} is true and it is {@linkplain LibDeflate#available() available}:
     * a stream it decodes whole is done; any other stream (corrupt, too long, a preset dictionary) is
     * decoded again by {@code inflater}, which gives it zlib's result and message. Streams whose header
     * declares a window under 32 KiB go to zlib directly: zlib may reject a match reaching further back
     * than that window, libdeflate does not look.
     */
    public static Inflated inflate(Inflater inflater, boolean libdeflate, MemorySegment src, long off, long len,
                                   MemorySegment dst, long dstOff, long cap) {
        if (libdeflate && len >= 2 && LibDeflate.available() && src.isNative() && dst.isNative()
                && src.get(ValueLayout.JAVA_BYTE, off) == ZLIB_CMF_32K) {
            LibDeflate.Result r = LibDeflate.zlib(src, off, len, dst, dstOff, cap);
            if (r.ok()) {
                return new Inflated(r.produced(), r.consumed());
            }
        }
        inflater.reset();
        long inEnd = off + len;
        long outPos = dstOff;
        long outEnd = dstOff + cap;
        long winStart = off;
        long winLen = 0;
        byte[] probe = new byte[1];
        try {
            while (!inflater.finished()) {
                if (inflater.needsInput()) {
                    long next = winStart + winLen;
                    if (next >= inEnd) {
                        throw new IllegalArgumentException("zlib stream is truncated: input ended after " + len
                                + " bytes and " + (outPos - dstOff) + " decoded bytes");
                    }
                    ByteBuffer w = CodecItems.window(src, next, inEnd - next);
                    winStart = next;
                    winLen = w.remaining();
                    inflater.setInput(w);
                }
                if (inflater.needsDictionary()) {
                    throw new IllegalArgumentException("zlib stream asks for a preset dictionary, which is not"
                            + " given");
                }
                if (outPos == outEnd) {
                    if (inflater.inflate(probe) > 0) {
                        throw new IllegalArgumentException("zlib stream decodes to more than the expected " + cap
                                + " bytes");
                    }
                    continue;
                }
                outPos += inflater.inflate(CodecItems.window(dst, outPos, outEnd - outPos));
            }
        } catch (DataFormatException e) {
            throw new IllegalArgumentException("zlib stream is corrupt after " + (outPos - dstOff)
                    + " decoded bytes: " + e.getMessage(), e);
        }
        return new Inflated(outPos - dstOff, winStart + winLen - inflater.getRemaining() - off);
    }
}
