// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.BloscSpec;
import dev.zarrdirect.cpu.codec.CodecItems;
import dev.zarrdirect.cpu.codec.bytestobytes.blosc.BitShuffle;
import dev.zarrdirect.cpu.codec.bytestobytes.blosc.BloscCompressor;
import dev.zarrdirect.cpu.codec.bytestobytes.blosc.BloscHeader;
import dev.zarrdirect.cpu.codec.bytestobytes.blosc.BloscWorkspace;
import dev.zarrdirect.cpu.codec.bytestobytes.blosc.ByteShuffle;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Map;

/**
 * The {@code blosc} codec on the CPU: the Blosc1 container (see {@link BloscHeader}) written and read
 * in Java, with LZ4 and LZ4HC from lz4-java, zstd from zstd-jni, zlib from the JDK and BloscLZ
 * implemented here. It reads what c-blosc 1.x writes (numcodecs, zarr-python v2 and v3, zarrita);
 * c-blosc reads what it writes.
 *
 * <h2>Configuration</h2>
 * {@code {"cname": "lz4"|"lz4hc"|"blosclz"|"zlib"|"zstd", "clevel": 0..9, "shuffle": "noshuffle"|
 * "shuffle"|"bitshuffle", "typesize": int >= 1, "blocksize": int >= 0}}. Absent fields: lz4, level 5,
 * shuffle (numcodecs' defaults), typesize 1, blocksize 0 (automatic). {@code shuffle} may also be
 * numcodecs' integer: 0, 1, 2, or -1 ("auto": bit shuffle for typesize 1, else byte shuffle). A
 * typesize above 255 is stored as 1, as c-blosc does. Decoding uses only the buffer's own header.
 *
 * <h2>Encoding</h2>
 * Blocks of the configured or automatic size are shuffled into scratch, split into typesize streams
 * where c-blosc would split them (never for zstd), and each stream is compressed or, when that does
 * not make it smaller, stored raw. When the whole would not be smaller than the input plus the
 * header, or for level 0 or inputs under 128 bytes, the buffer is stored "memcpyed". Hence
 * {@link #maxEncodedSize} is the input plus 16 bytes. Inputs above 2 GiB - 17 bytes do not fit the
 * format and fail their item.
 *
 * <h2>Decoding</h2>
 * Every offset and size is checked against the input before use: a header that declares another
 * decoded size than expected, a {@code cbytes} beyond the input, block offsets outside the buffer, a
 * stream that runs past its end or decodes to the wrong size fail the item with a
 * {@link CorruptChunkException} naming the chunk, the block and the values. Bytes after
 * {@code cbytes} are ignored, as c-blosc ignores them. Snappy blocks and Blosc2 buffers
 * (format version 3 and later) fail with a {@link CodecException} saying so. zstd streams get the
 * {@code zstd} codec's check of their Huffman streams after libzstd, unless
 * {@code zarrdirect.cpu.zstdStreamCheck} is false ({@link ZstdCodec}).
 */
public final class BloscCodec implements BytesToBytesCodec {

    public static final String NAME = "blosc";
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final BloscCompressor compressor;
    private final int clevel;
    private final BloscSpec.Shuffle shuffle;
    private final int typesize;
    private final long blocksize;
    private final boolean zstdStreamCheck;
    private final boolean libdeflate;

    private BloscCodec(BloscCompressor compressor, int clevel, BloscSpec.Shuffle shuffle, int typesize, long blocksize,
                       boolean zstdStreamCheck, boolean libdeflate) {
        this.compressor = compressor;
        this.clevel = clevel;
        this.shuffle = shuffle;
        this.typesize = typesize;
        this.blocksize = blocksize;
        this.zstdStreamCheck = zstdStreamCheck;
        this.libdeflate = libdeflate;
        if (libdeflate && compressor == BloscCompressor.ZLIB) {
            // bound now, not in the first chunk's decode; a blosc store of another compressor may
            // still hold zlib buffers (each names its own), which then bind it on first use
            LibDeflate.warm();
        }
    }

    /** Reads the configuration described in the class documentation; zstd streams get the Huffman stream check. */
    public static BloscCodec create(Map<String, Object> configuration) {
        return create(configuration, true);
    }

    /**
     * As {@link #create(Map)}; {@code zstdStreamCheck} false leaves out the check of the Huffman streams
     * after libzstd ({@link dev.zarrdirect.cpu.CpuSettings#zstdStreamCheck()}). Decoding takes the
     * compressor from each buffer's header, so the flag counts for zstd buffers whatever {@code cname} says.
     */
    public static BloscCodec create(Map<String, Object> configuration, boolean zstdStreamCheck) {
        return create(configuration, zstdStreamCheck, true);
    }

    /**
     * As {@link #create(Map, boolean)}; {@code libdeflate} false decodes zlib streams with the JDK's zlib
     * alone, true tries {@link LibDeflate} first where it is available
     * ({@link dev.zarrdirect.cpu.CpuSettings#libdeflate()}).
     */
    public static BloscCodec create(Map<String, Object> configuration, boolean zstdStreamCheck, boolean libdeflate) {
        BloscSpec spec = BloscSpec.parse(configuration);
        BloscCompressor compressor = BloscCompressor.forName(spec.cname());
        if (compressor == BloscCompressor.ZSTD && !ZstdNatives.available()) {
            throw new IllegalStateException("codec \"blosc\" with cname \"zstd\" is unavailable on the CPU: "
                    + ZstdNatives.failure());
        }
        return new BloscCodec(compressor, spec.clevel(), spec.shuffle(), spec.typesize(), spec.blocksize(),
                zstdStreamCheck, libdeflate);
    }

    public BloscCompressor compressor() {
        return compressor;
    }

    public int clevel() {
        return clevel;
    }

    public BloscSpec.Shuffle shuffle() {
        return shuffle;
    }

    /** The element size written to headers (1 for configured sizes above 255). */
    public int typesize() {
        return typesize;
    }

    /** Whether zstd streams are checked to consume each Huffman stream exactly, after libzstd. */
    public boolean zstdStreamCheck() {
        return zstdStreamCheck;
    }

    /** Whether zlib streams are tried with libdeflate first. */
    public boolean libdeflate() {
        return libdeflate;
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

    @Override
    public long maxEncodedSize(long decodedSize) {
        return decodedSize + BloscHeader.SIZE;
    }

    /** The {@code nbytes} of the header, when {@code encoded} is a host buffer holding a Blosc1 header; else -1. */
    @Override
    public long decodedSize(dev.zarrdirect.api.buffer.Buffer encoded) {
        if (!encoded.kind().hostAccessible() || encoded.byteSize() < BloscHeader.SIZE) {
            return -1;
        }
        BloscHeader h = BloscHeader.read(encoded.segment());
        return h.version() >= 1 && h.version() <= BloscHeader.VERSION && h.cbytes() <= encoded.byteSize()
                ? h.nbytes() : -1;
    }

    // ------------------------------------------------------------------------------------------ encode

    @Override
    public void encode(CodecBatch batch) {
        CodecItems.forEach(NAME, "encode", batch, (i, in, out) -> {
            long n = in.byteSize();
            if (n > BloscHeader.MAX_BUFFERSIZE) {
                throw new IllegalArgumentException("blosc cannot hold " + n + " bytes of " + batch.label(i)
                        + " in one buffer: the Blosc1 format stops at " + BloscHeader.MAX_BUFFERSIZE + " bytes");
            }
            if (out.byteSize() < n + BloscHeader.SIZE) {
                throw new IllegalArgumentException("output of " + out.byteSize() + " bytes is too small for blosc of "
                        + n + " bytes of " + batch.label(i) + "; allocate maxEncodedSize(" + n + ") = "
                        + maxEncodedSize(n));
            }
            if (CodecItems.overlap(in, out)) {
                throw new IllegalArgumentException("blosc encode of " + batch.label(i)
                        + " needs distinct input and output, but they overlap");
            }
            if (compressor == BloscCompressor.ZSTD) {
                CodecItems.requireNative(NAME, in, out);
            }
            BloscWorkspace ws = BloscWorkspace.take();
            try {
                batch.complete(i, encodeOne(ws, in, out));
            } finally {
                BloscWorkspace.give(ws);
            }
        });
    }

    /** The block size for {@code n} bytes: the configured one, or one chosen from the level and compressor. */
    long blocksizeFor(long n) {
        long bs;
        if (blocksize > 0) {
            bs = Math.max(BloscHeader.MIN_BUFFERSIZE, blocksize);
        } else {
            // Larger blocks for higher levels and for the slower, stronger compressors.
            bs = switch (clevel) {
                case 0, 1, 2, 3 -> 32 << 10;
                case 4, 5 -> 64 << 10;
                case 6 -> 128 << 10;
                case 7 -> 256 << 10;
                default -> 512 << 10;
            };
            if (compressor == BloscCompressor.ZLIB || compressor == BloscCompressor.ZSTD
                    || compressor == BloscCompressor.LZ4HC) {
                bs *= 2;
            } else if (compressor == BloscCompressor.LZ4) {
                bs *= 4;
            }
            bs = Math.min(bs * Math.max(1, Math.min(typesize, 16)) / 4, 4 << 20);
            bs = Math.max(bs, 32 << 10);
        }
        bs = Math.min(bs, n);
        if (bs > typesize) {
            bs -= bs % typesize;
        }
        return Math.max(1, bs);
    }

    private int flags(boolean split) {
        int f = compressor.code() << 5;
        if (shuffle == BloscSpec.Shuffle.SHUFFLE) {
            f |= BloscHeader.DOSHUFFLE;
        } else if (shuffle == BloscSpec.Shuffle.BITSHUFFLE) {
            f |= BloscHeader.DOBITSHUFFLE;
        }
        return split ? f : f | BloscHeader.DONTSPLIT;
    }

    private long encodeOne(BloscWorkspace ws, MemorySegment in, MemorySegment out) {
        long n = in.byteSize();
        long bs = blocksizeFor(n);
        boolean split = compressor != BloscCompressor.ZSTD && typesize <= BloscHeader.MAX_SPLITS
                && bs / typesize >= BloscHeader.MIN_BUFFERSIZE;
        int flags = flags(split);
        if (clevel == 0 || n < BloscHeader.MIN_BUFFERSIZE) {
            return memcpyed(in, out, flags, bs);
        }
        BloscHeader header = new BloscHeader(BloscHeader.VERSION, 1, flags, typesize, n, bs, 0);
        long blocks = header.blocks();
        long limit = n + BloscHeader.SIZE; // never larger than a memcpyed buffer
        long pos = BloscHeader.SIZE + 4 * blocks;
        if (pos >= limit) {
            return memcpyed(in, out, flags, bs);
        }
        for (long b = 0; b < blocks; b++) {
            long start = b * bs;
            long bsize = Math.min(bs, n - start);
            out.set(LE_INT, BloscHeader.SIZE + 4 * b, (int) pos);
            MemorySegment src = in;
            long srcOff = start;
            if (shuffle == BloscSpec.Shuffle.SHUFFLE && typesize > 1) {
                src = ws.block(bsize);
                srcOff = 0;
                ByteShuffle.shuffle(in, start, src, 0, bsize, typesize);
            } else if (shuffle == BloscSpec.Shuffle.BITSHUFFLE) {
                src = ws.block(bsize);
                srcOff = 0;
                BitShuffle.shuffleBlock(in, start, src, 0, bsize, typesize);
            }
            int splits = header.splits(bsize);
            int neblock = (int) (bsize / splits);
            for (int s = 0; s < splits; s++) {
                MemorySegment packed = ws.compress(compressor, clevel, src, srcOff + (long) s * neblock, neblock);
                long size = packed == null ? neblock : packed.byteSize();
                if (pos + 4 + size >= limit) {
                    return memcpyed(in, out, flags, bs);
                }
                out.set(LE_INT, pos, (int) size);
                if (packed == null) {
                    MemorySegment.copy(src, srcOff + (long) s * neblock, out, pos + 4, neblock);
                } else {
                    MemorySegment.copy(packed, 0, out, pos + 4, size);
                }
                pos += 4 + size;
            }
        }
        new BloscHeader(BloscHeader.VERSION, 1, flags, typesize, n, bs, pos).write(out);
        return pos;
    }

    private long memcpyed(MemorySegment in, MemorySegment out, int flags, long bs) {
        long n = in.byteSize();
        new BloscHeader(BloscHeader.VERSION, 1, flags | BloscHeader.MEMCPYED, typesize, n, bs, n + BloscHeader.SIZE)
                .write(out);
        MemorySegment.copy(in, 0, out, BloscHeader.SIZE, n);
        return n + BloscHeader.SIZE;
    }

    // ------------------------------------------------------------------------------------------ decode

    @Override
    public void decode(CodecBatch batch) {
        CodecItems.forEach(NAME, "decode", batch, (i, in, out) -> {
            if (CodecItems.overlap(in, out)) {
                throw new IllegalArgumentException("blosc decode of " + batch.label(i)
                        + " needs distinct input and output, but they overlap");
            }
            BloscWorkspace ws = BloscWorkspace.take();
            try {
                decodeOne(ws, in, out, batch.label(i), zstdStreamCheck, libdeflate);
            } finally {
                BloscWorkspace.give(ws);
            }
            batch.complete(i, out.byteSize());
        });
    }

    private static CorruptChunkException corrupt(String label, String what) {
        return new CorruptChunkException(NAME, "blosc buffer of " + label + " " + what);
    }

    private static void decodeOne(BloscWorkspace ws, MemorySegment in, MemorySegment out, String label,
                                  boolean zstdStreamCheck, boolean libdeflate) {
        long size = in.byteSize();
        long expected = out.byteSize();
        if (size < BloscHeader.SIZE) {
            throw corrupt(label, "is truncated: " + size + " bytes, shorter than the 16-byte header; expected "
                    + expected + " decoded bytes");
        }
        BloscHeader h = BloscHeader.read(in);
        if (h.version() == 0 || h.version() > BloscHeader.VERSION) {
            throw h.version() > BloscHeader.VERSION
                    ? new CodecException(NAME, "blosc buffer of " + label + " has format version " + h.version()
                    + " (header: " + h.describe() + "); " + BloscSpec.BLOSC1_ONLY)
                    : corrupt(label, "has format version 0 (header: " + h.describe() + ")");
        }
        if (h.nbytes() != expected) {
            throw corrupt(label, "declares nbytes " + h.nbytes() + ", expected " + expected + " decoded bytes (header: "
                    + h.describe() + ")");
        }
        if (h.cbytes() > size) {
            throw corrupt(label, "is truncated: header declares cbytes " + h.cbytes() + " but the input has " + size
                    + " bytes (header: " + h.describe() + ")");
        }
        if (h.typesize() == 0) {
            throw corrupt(label, "declares typesize 0 (header: " + h.describe() + ")");
        }
        if (h.memcpyed()) {
            if (h.cbytes() != h.nbytes() + BloscHeader.SIZE) {
                throw corrupt(label, "is memcpyed but declares cbytes " + h.cbytes() + " for nbytes " + h.nbytes()
                        + ", expected " + (h.nbytes() + BloscHeader.SIZE) + " (header: " + h.describe() + ")");
            }
            MemorySegment.copy(in, BloscHeader.SIZE, out, 0, expected);
            return;
        }
        if (expected == 0) {
            return;
        }
        if (h.blocksize() == 0) {
            throw corrupt(label, "declares blocksize 0 for " + expected + " bytes (header: " + h.describe() + ")");
        }
        if (h.byteShuffle() && h.bitShuffle()) {
            throw corrupt(label, String.format("sets both the byte shuffle and the bit shuffle flag (flags 0x%02X;"
                    + " header: %s)", h.flags(), h.describe()));
        }
        int code = h.compressorCode();
        BloscCompressor compressor = BloscCompressor.forCode(code);
        if (compressor == null) {
            throw new CodecException(NAME, "blosc buffer of " + label + " uses compressor code " + code
                    + (code == BloscCompressor.SNAPPY_CODE ? " (snappy), which is not implemented here" : ", which Blosc1 does not define")
                    + "; implemented: blosclz (0), lz4/lz4hc (1), zlib (3), zstd (4) (header: " + h.describe() + ")");
        }
        if (compressor == BloscCompressor.ZSTD) {
            CodecItems.requireNative(NAME, in, out);
        }
        long blocks = h.blocks();
        long cbytes = h.cbytes();
        long firstData = BloscHeader.SIZE + 4 * blocks;
        if (firstData > cbytes) {
            throw corrupt(label, "is truncated: " + blocks + " block offsets need " + firstData
                    + " bytes, but cbytes is " + cbytes + " (header: " + h.describe() + ")");
        }
        boolean byteShuffled = h.byteShuffle() && h.typesize() > 1;
        for (long b = 0; b < blocks; b++) {
            long start = b * h.blocksize();
            long bsize = Math.min(h.blocksize(), expected - start);
            long bstart = Integer.toUnsignedLong(in.get(LE_INT, BloscHeader.SIZE + 4 * b));
            if (bstart < firstData || bstart > cbytes - 4) {
                throw corrupt(label, "has a bad offset for block " + b + " of " + blocks + ": " + bstart
                        + ", outside the data region [" + firstData + ", " + (cbytes - 4) + "] (header: "
                        + h.describe() + ")");
            }
            int splits = h.splits(bsize);
            if (bsize % splits != 0) {
                throw corrupt(label, "splits block " + b + " of " + bsize + " bytes into " + splits
                        + " streams, which do not divide it (header: " + h.describe() + ")");
            }
            int neblock = (int) (bsize / splits);
            boolean filtered = byteShuffled || h.bitShuffle();
            MemorySegment dst = filtered ? ws.block(bsize) : out;
            long dstOff = filtered ? 0 : start;
            long pos = bstart;
            for (int s = 0; s < splits; s++) {
                if (cbytes - pos < 4) {
                    throw corrupt(label, "is truncated in block " + b + ": stream " + s + " of " + splits
                            + " starts at " + pos + ", but cbytes is " + cbytes + " (header: " + h.describe() + ")");
                }
                long csize = in.get(LE_INT, pos);
                pos += 4;
                if (csize <= 0 || csize > cbytes - pos) {
                    throw corrupt(label, "declares " + csize + " compressed bytes for stream " + s + " of block " + b
                            + " at byte " + (pos - 4) + ", but " + (cbytes - pos) + " bytes remain before cbytes "
                            + cbytes + " (header: " + h.describe() + ")");
                }
                long to = dstOff + (long) s * neblock;
                if (csize == neblock) {
                    MemorySegment.copy(in, pos, dst, to, neblock);
                } else {
                    try {
                        ws.decompress(compressor, in, pos, (int) csize, dst, to, neblock, zstdStreamCheck, libdeflate);
                    } catch (IllegalArgumentException e) {
                        throw new CorruptChunkException(NAME, "blosc buffer of " + label + " has a bad "
                                + compressor.cname() + " stream " + s + " of block " + b + " (" + csize
                                + " bytes at byte " + pos + ", " + neblock + " decoded bytes expected): "
                                + e.getMessage() + " (header: " + h.describe() + ")", e);
                    }
                }
                pos += csize;
            }
            if (byteShuffled) {
                ByteShuffle.unshuffle(dst, 0, out, start, bsize, h.typesize());
            } else if (h.bitShuffle()) {
                BitShuffle.unshuffleBlock(dst, 0, out, start, bsize, h.typesize());
            }
        }
    }

    @Override
    public String toString() {
        return "BloscCodec[" + compressor.cname() + ", clevel " + clevel + ", " + shuffle.name().toLowerCase(
                java.util.Locale.ROOT) + ", typesize " + typesize + ", blocksize " + blocksize
                + (zstdStreamCheck ? "" : ", no zstd stream check") + (libdeflate ? "" : ", no libdeflate") + "]";
    }
}
