// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdHuffmanStreams;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdNatives;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * What one thread needs to encode or decode Blosc buffers: native scratch for a shuffled block and
 * for a compressed stream, BloscLZ's hash table, and the per-compressor contexts (zlib, zstd). Taken
 * from a bounded pool for one item and given back after; never shared between threads at once.
 *
 * <p>LZ4 comes from lz4-java's fastest instance (its JNI binding of liblz4 where the bundled native
 * library loads, else its Java port); decoding always uses the bounds-checked "safe" decompressor.
 */
public final class BloscWorkspace implements AutoCloseable {

    private static final int KEEP = Math.max(2, 2 * Runtime.getRuntime().availableProcessors());
    private static final ArrayBlockingQueue<BloscWorkspace> POOL = new ArrayBlockingQueue<>(KEEP);
    private static final LZ4Factory LZ4 = LZ4Factory.fastestInstance();
    private static final LZ4SafeDecompressor LZ4_DECOMPRESSOR = LZ4.safeDecompressor();
    private static final LZ4Compressor LZ4_FAST = LZ4.fastCompressor();
    private static final LZ4Compressor[] LZ4_HIGH = new LZ4Compressor[18];

    private final Arena arena = Arena.ofShared();
    private MemorySegment block = MemorySegment.NULL;
    private MemorySegment stream = MemorySegment.NULL;
    private int[] table;
    private Deflater deflater;
    private int deflaterLevel = -2;
    private Inflater inflater;
    private ZstdCompressCtx zstdCompressor;
    private ZstdDecompressCtx zstdDecompressor;

    private BloscWorkspace() {
    }

    /** A workspace from the pool, or a new one. */
    public static BloscWorkspace take() {
        BloscWorkspace w = POOL.poll();
        return w != null ? w : new BloscWorkspace();
    }

    /** Gives {@code w} back to the pool, or frees it when the pool is full. */
    public static void give(BloscWorkspace w) {
        if (!POOL.offer(w)) {
            w.close();
        }
    }

    /** Scratch for one block of {@code bytes} bytes. */
    public MemorySegment block(long bytes) {
        if (block.byteSize() < bytes) {
            block = arena.allocate(Math.max(bytes, 2 * block.byteSize()), 64);
        }
        return block;
    }

    private MemorySegment stream(long bytes) {
        if (stream.byteSize() < bytes) {
            stream = arena.allocate(Math.max(bytes, 2 * stream.byteSize()), 64);
        }
        return stream;
    }

    /**
     * Compresses {@code len} bytes of {@code src} at {@code off} with {@code c} at Blosc level
     * {@code clevel} (1..9) and returns the compressed stream (a view of scratch valid until the next
     * call), or null when compressing does not make it smaller than {@code len} bytes.
     */
    public MemorySegment compress(BloscCompressor c, int clevel, MemorySegment src, long off, int len) {
        int n = switch (c) {
            case BLOSCLZ -> {
                if (table == null) {
                    table = new int[BloscLz.tableSize()];
                }
                yield BloscLz.compress(src, off, len, stream(len), 0, len - 1, table);
            }
            case LZ4, LZ4HC -> {
                LZ4Compressor lz4 = c == BloscCompressor.LZ4 ? LZ4_FAST : high(clevel);
                int bound = lz4.maxCompressedLength(len);
                MemorySegment s = stream(bound);
                yield lz4.compress(src.asSlice(off, len).asByteBuffer(), 0, len, s.asByteBuffer(), 0, bound);
            }
            case ZLIB -> {
                if (deflater == null || deflaterLevel != clevel) {
                    if (deflater != null) {
                        deflater.end();
                    }
                    deflater = new Deflater(clevel);
                    deflaterLevel = clevel;
                }
                long w = ZlibStreams.deflate(deflater, src, off, len, stream(len), 0, len - 1L);
                yield (int) Math.max(0, w);
            }
            case ZSTD -> {
                requireZstd();
                if (zstdCompressor == null) {
                    zstdCompressor = new ZstdCompressCtx();
                }
                int bound = (int) Zstd.compressBound(len);
                MemorySegment s = stream(bound);
                zstdCompressor.reset();
                zstdCompressor.setLevel(zstdLevel(clevel));
                yield zstdCompressor.compressDirectByteBuffer(s.asByteBuffer(), 0, bound,
                        src.asSlice(off, len).asByteBuffer(), 0, len);
            }
        };
        return n > 0 && n < len ? stream.asSlice(0, n) : null;
    }

    /** The zstd level for a Blosc level, as c-blosc maps it: 9 is zstd's 19 ("ultra" levels are too slow). */
    static int zstdLevel(int clevel) {
        return clevel < 9 ? 2 * clevel - 1 : 19;
    }

    private static synchronized LZ4Compressor high(int clevel) {
        int level = Math.max(1, Math.min(17, clevel));
        if (LZ4_HIGH[level] == null) {
            LZ4_HIGH[level] = LZ4.highCompressor(level);
        }
        return LZ4_HIGH[level];
    }

    /**
     * Decompresses the stream {@code src[off, off + len)} written by {@code c} into exactly
     * {@code dstLen} bytes of {@code dst} at {@code dstOff}. A zstd stream that libzstd decodes is then
     * checked with {@link ZstdHuffmanStreams#check} when {@code zstdStreamCheck} is true (other
     * compressors ignore it); a zlib stream is tried with libdeflate first when {@code libdeflate} is true
     * ({@link ZlibStreams#inflate(Inflater, boolean, MemorySegment, long, long, MemorySegment, long, long)}).
     *
     * @throws IllegalArgumentException when the stream is malformed or decodes to another size; the
     *                                  message says what the compressor reported
     */
    public void decompress(BloscCompressor c, MemorySegment src, long off, int len, MemorySegment dst, long dstOff,
                           int dstLen, boolean zstdStreamCheck, boolean libdeflate) {
        long got = switch (c) {
            case BLOSCLZ -> BloscLz.decompress(src, off, len, dst, dstOff, dstLen);
            case LZ4, LZ4HC -> {
                long zero = Lz4ZeroOffsets.find(src, off, len);
                if (zero >= 0) {
                    throw new IllegalArgumentException("LZ4 stream has a match of offset 0 at its byte " + zero
                            + " (invalid in the LZ4 block format)");
                }
                try {
                    yield LZ4_DECOMPRESSOR.decompress(src.asSlice(off, len).asByteBuffer(), 0, len,
                            dst.asSlice(dstOff, dstLen).asByteBuffer(), 0, dstLen);
                } catch (LZ4Exception e) {
                    throw new IllegalArgumentException("LZ4 reports: " + e.getMessage(), e);
                }
            }
            case ZLIB -> {
                if (inflater == null) {
                    inflater = new Inflater();
                }
                ZlibStreams.Inflated r = ZlibStreams.inflate(inflater, libdeflate, src, off, len, dst, dstOff, dstLen);
                if (r.consumed() != len) {
                    throw new IllegalArgumentException("zlib stream ends after " + r.consumed() + " of its " + len
                            + " bytes");
                }
                yield r.produced();
            }
            case ZSTD -> {
                requireZstd();
                if (!src.isNative() || !dst.isNative()) {
                    throw new IllegalArgumentException("zstd streams need native memory, got a heap segment");
                }
                if (zstdDecompressor == null) {
                    zstdDecompressor = new ZstdDecompressCtx();
                }
                try {
                    zstdDecompressor.reset();
                    long n = zstdDecompressor.decompressDirectByteBuffer(dst.asSlice(dstOff, dstLen).asByteBuffer(), 0,
                            dstLen, src.asSlice(off, len).asByteBuffer(), 0, len);
                    // as the zstd codec does: the check libzstd skips, so that the device kernels agree
                    String bad = zstdStreamCheck ? ZstdHuffmanStreams.check(src.asSlice(off, len)) : null;
                    if (bad != null) {
                        throw new IllegalArgumentException("zstd stream is corrupt: " + bad);
                    }
                    yield n;
                } catch (ZstdException e) {
                    throw new IllegalArgumentException("zstd reports: " + e.getMessage(), e);
                }
            }
        };
        if (got != dstLen) {
            throw new IllegalArgumentException(c.cname() + " stream of " + len + " bytes decodes to " + got
                    + " bytes, expected " + dstLen);
        }
    }

    private static void requireZstd() {
        if (!ZstdNatives.available()) {
            throw new IllegalStateException("Blosc's zstd compressor is unavailable: zstd-jni's natives did not load ("
                    + ZstdNatives.failure() + ")");
        }
    }

    /** Frees the native scratch and contexts. */
    @Override
    public void close() {
        if (deflater != null) {
            deflater.end();
        }
        if (inflater != null) {
            inflater.end();
        }
        if (zstdCompressor != null) {
            zstdCompressor.close();
        }
        if (zstdDecompressor != null) {
            zstdDecompressor.close();
        }
        arena.close();
    }
}
