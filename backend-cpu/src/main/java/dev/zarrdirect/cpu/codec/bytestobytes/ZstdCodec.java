// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.ZstdSpec;
import dev.zarrdirect.cpu.codec.CodecItems;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * The {@code zstd} codec on the CPU, through zstd-jni straight on native memory.
 *
 * <h2>Decoding</h2>
 * One call of libzstd's one-shot decompressor into the output: it reads any number of
 * concatenated frames (and skippable frames), with or without a declared content size, and never
 * writes past the output. The result must be exactly the output's size; anything else, and every
 * libzstd error, fails the item with a {@link CorruptChunkException} naming the chunk, the zstd
 * error and the expected size. libzstd bounds-checks its input, so hostile frames cannot crash
 * the JVM. Empty input is corrupt (no frame at all), even for an empty chunk. After libzstd, each
 * Huffman literal stream is checked to be consumed exactly, as RFC 8878 4.2.2 requires and the
 * device kernels check, but libzstd's fast loop does not ({@link ZstdHuffmanStreams}): without it a
 * damaged frame could decode to wrong bytes here and fail on a device. The setting
 * {@code zarrdirect.cpu.zstdStreamCheck=false} ({@link dev.zarrdirect.cpu.CpuSettings#ZSTD_STREAM_CHECK})
 * leaves that check out, for libzstd's checks alone.
 *
 * <h2>Encoding</h2>
 * One frame per chunk with its content size, and a checksum when {@code checksum} is true.
 * Level 0 is zstd's default level (3); negative levels down to {@link Zstd#minCompressionLevel()}
 * and "ultra" levels up to {@link Zstd#maxCompressionLevel()} are accepted.
 *
 * <h2>Contexts</h2>
 * zstd contexts hold hundreds of KiB of tables; creating one per chunk would cost a large
 * allocation and its page faults each time. Contexts below 2 GiB of data are therefore taken from
 * small bounded pools shared by all instances (at most two per core are kept; others are closed).
 * Chunks of 2 GiB or more, which {@link java.nio.ByteBuffer}-based context calls cannot address,
 * use zstd-jni's address-based one-shot calls instead.
 */
public final class ZstdCodec implements BytesToBytesCodec {

    static final String NAME = "zstd";
    private static final int KEEP = Math.max(2, 2 * Runtime.getRuntime().availableProcessors());
    private static final ArrayBlockingQueue<ZstdCompressCtx> COMPRESSORS = new ArrayBlockingQueue<>(KEEP);
    private static final ArrayBlockingQueue<ZstdDecompressCtx> DECOMPRESSORS = new ArrayBlockingQueue<>(KEEP);

    private final int level;
    private final boolean checksum;
    private final boolean streamCheck;

    private ZstdCodec(int level, boolean checksum, boolean streamCheck) {
        this.level = level;
        this.checksum = checksum;
        this.streamCheck = streamCheck;
    }

    /**
     * Reads {@code {"level": int, "checksum": boolean}}; absent fields mean level 0 (zstd's default)
     * and no checksum. Decodes check the Huffman streams.
     *
     * @throws IllegalStateException when zstd-jni's natives did not load
     */
    public static ZstdCodec create(Map<String, Object> configuration) {
        return create(configuration, true);
    }

    /**
     * As {@link #create(Map)}; {@code streamCheck} false leaves out the check of the Huffman streams
     * after libzstd ({@link dev.zarrdirect.cpu.CpuSettings#zstdStreamCheck()}).
     *
     * @throws IllegalStateException when zstd-jni's natives did not load
     */
    public static ZstdCodec create(Map<String, Object> configuration, boolean streamCheck) {
        ZstdSpec spec = ZstdSpec.parse(configuration);
        if (!ZstdNatives.available()) {
            throw new IllegalStateException("codec \"zstd\" is unavailable on the CPU: " + ZstdNatives.failure());
        }
        return new ZstdCodec(spec.level(), spec.checksum(), streamCheck);
    }

    public int level() {
        return level;
    }

    public boolean checksum() {
        return checksum;
    }

    /** Whether decodes check that each Huffman stream is consumed exactly ({@link ZstdHuffmanStreams}). */
    public boolean streamCheck() {
        return streamCheck;
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
        return Zstd.compressBound(decodedSize);
    }

    /**
     * The sum of the content sizes the frames declare, or -1 when a frame does not declare one or the
     * data are not a sequence of whole frames. Used where the chain cannot tell the size (zstd after
     * {@code sharding_indexed}); the decode still checks that the frames really produce that many bytes.
     */
    @Override
    public long decodedSize(dev.zarrdirect.api.buffer.Buffer encoded) {
        if (!encoded.kind().hostAccessible() || encoded.byteSize() >= Integer.MAX_VALUE) {
            return -1;
        }
        java.nio.ByteBuffer bb = encoded.segment().asByteBuffer();
        long total = 0;
        int pos = 0;
        int n = bb.remaining();
        try {
            while (pos < n) {
                java.nio.ByteBuffer frame = bb.slice(pos, n - pos);
                long frameLen = Zstd.findFrameCompressedSize(frame);
                if (frameLen <= 0 || frameLen > n - pos) {
                    return -1;
                }
                int magic = frame.order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0);
                if ((magic & 0xFFFFFFF0) != 0x184D2A50) {
                    long content = Zstd.getDirectByteBufferFrameContentSize(bb, pos, (int) frameLen, false);
                    if (content < 0) {
                        return -1;
                    }
                    total = Math.addExact(total, content);
                }
                pos += (int) frameLen;
            }
        } catch (RuntimeException e) {
            // Damaged headers: let the decode itself report the corruption with the chunk's label.
            return -1;
        }
        return total;
    }

    @Override
    public void encode(CodecBatch batch) {
        CodecItems.forEach(NAME, "encode", batch, (i, in, out) -> {
            CodecItems.requireNative(NAME, in, out);
            long n = in.byteSize();
            long written;
            if (n <= Integer.MAX_VALUE && out.byteSize() <= Integer.MAX_VALUE) {
                ZstdCompressCtx ctx = COMPRESSORS.poll();
                if (ctx == null) {
                    ctx = new ZstdCompressCtx();
                }
                try {
                    ctx.setLevel(level == 0 ? Zstd.defaultCompressionLevel() : level);
                    ctx.setChecksum(checksum);
                    written = ctx.compressDirectByteBuffer(out.asByteBuffer(), 0, (int) out.byteSize(),
                            in.asByteBuffer(), 0, (int) n);
                } catch (ZstdException e) {
                    throw new IllegalArgumentException("zstd could not compress " + n + " bytes into "
                            + out.byteSize() + ": " + e.getMessage() + "; allocate maxEncodedSize(" + n + ") = "
                            + maxEncodedSize(n), e);
                } finally {
                    ctx.reset();
                    if (!COMPRESSORS.offer(ctx)) {
                        ctx.close();
                    }
                }
            } else {
                written = Zstd.compressUnsafe(out.address(), out.byteSize(), in.address(), n, level, checksum);
                if (Zstd.isError(written)) {
                    throw new IllegalArgumentException("zstd could not compress " + n + " bytes into "
                            + out.byteSize() + ": " + Zstd.getErrorName(written));
                }
            }
            batch.complete(i, written);
        });
    }

    @Override
    public void decode(CodecBatch batch) {
        CodecItems.forEach(NAME, "decode", batch, (i, in, out) -> {
            CodecItems.requireNative(NAME, in, out);
            long expected = out.byteSize();
            long n = in.byteSize();
            String label = batch.label(i);
            if (n == 0) {
                throw new CorruptChunkException(NAME, "zstd frame of " + label + " is empty: no frame in 0 bytes,"
                        + " expected " + expected + " decoded bytes");
            }
            long got;
            if (n <= Integer.MAX_VALUE && expected <= Integer.MAX_VALUE) {
                ZstdDecompressCtx ctx = DECOMPRESSORS.poll();
                if (ctx == null) {
                    ctx = new ZstdDecompressCtx();
                }
                try {
                    got = ctx.decompressDirectByteBuffer(out.asByteBuffer(), 0, (int) expected,
                            in.asByteBuffer(), 0, (int) n);
                } catch (ZstdException e) {
                    throw corrupt(label, e.getMessage(), expected, n, e);
                } finally {
                    ctx.reset();
                    if (!DECOMPRESSORS.offer(ctx)) {
                        ctx.close();
                    }
                }
            } else {
                got = Zstd.decompressUnsafe(out.address(), expected, in.address(), n);
                if (Zstd.isError(got)) {
                    throw corrupt(label, Zstd.getErrorName(got), expected, n, null);
                }
            }
            if (got != expected) {
                throw new CorruptChunkException(NAME, "zstd frame of " + label + " is short: decodes to " + got
                        + " bytes, expected " + expected + " decoded bytes (" + n + " encoded bytes)");
            }
            String bad = streamCheck ? ZstdHuffmanStreams.check(in) : null;
            if (bad != null) {
                throw new CorruptChunkException(NAME, "zstd frame of " + label + " is corrupt: " + bad + "; expected "
                        + expected + " decoded bytes (" + n + " encoded bytes)");
            }
            batch.complete(i, got);
        });
    }

    @Override
    public String toString() {
        return "ZstdCodec[level " + level + (checksum ? ", checksum" : "") + (streamCheck ? "" : ", no stream check")
                + "]";
    }

    private static CorruptChunkException corrupt(String label, String error, long expected, long n, Throwable cause) {
        return new CorruptChunkException(NAME, "zstd frame of " + label + " is undecodable: " + error
                + ", expected " + expected + " decoded bytes (" + n + " encoded bytes)", cause);
    }
}
