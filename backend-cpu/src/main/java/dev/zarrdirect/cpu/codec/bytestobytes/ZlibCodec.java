// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.ZlibSpec;
import dev.zarrdirect.cpu.codec.CodecItems;
import dev.zarrdirect.cpu.codec.bytestobytes.blosc.ZlibStreams;

import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * numcodecs' {@code zlib} codec on the CPU ({@code "numcodecs.zlib"} in Zarr v3, {@code "zlib"} as a
 * Zarr v2 compressor id): one zlib stream (RFC 1950: header, deflate, Adler-32) per chunk, computed
 * by the JDK's zlib on {@link java.nio.ByteBuffer} views of native memory.
 *
 * <p>Decoding checks zlib's header and Adler-32 (zlib itself does), that the stream decodes to
 * exactly the expected size, and that no bytes follow it; each failure is a
 * {@link CorruptChunkException} naming the chunk. Deflaters and inflaters are pooled.
 *
 * <p>Where the system has libdeflate ({@link LibDeflate}) a stream is decoded by it first, and only a
 * stream it does not decode whole goes to zlib, which then reports what is wrong with it.
 */
public final class ZlibCodec implements BytesToBytesCodec {

    /** The Zarr v3 name. */
    public static final String NAME = "numcodecs.zlib";
    /** The Zarr v2 compressor id, accepted as a name too. */
    public static final String V2_ID = "zlib";
    private static final ConcurrentLinkedQueue<Inflater> INFLATERS = new ConcurrentLinkedQueue<>();

    private final String name;
    private final int level;
    private final boolean libdeflate;
    private final ConcurrentLinkedQueue<Deflater> deflaters = new ConcurrentLinkedQueue<>();

    private ZlibCodec(String name, int level, boolean libdeflate) {
        this.name = name;
        this.level = level;
        this.libdeflate = libdeflate;
        if (libdeflate) {
            LibDeflate.warm(); // bound now, not in the first chunk's decode
        }
    }

    /**
     * Reads {@code {"level": -1..9}} (numcodecs' default 1; -1 is zlib's default, 6) under the name
     * {@code name} ({@link #NAME} or {@link #V2_ID}); an {@code "id"} field, if present, must be "zlib".
     */
    public static ZlibCodec create(String name, Map<String, Object> configuration) {
        return create(name, configuration, true);
    }

    /**
     * As {@link #create(String, Map)}; {@code libdeflate} false decodes with the JDK's zlib alone
     * ({@link dev.zarrdirect.cpu.CpuSettings#libdeflate()}).
     */
    public static ZlibCodec create(String name, Map<String, Object> configuration, boolean libdeflate) {
        ZlibSpec spec = ZlibSpec.parse(name, configuration);
        return new ZlibCodec(spec.name(), spec.level(), libdeflate);
    }

    /** Whether streams are tried with libdeflate first (where it is available). */
    public boolean libdeflate() {
        return libdeflate;
    }

    public int level() {
        return level;
    }

    @Override
    public String name() {
        return name;
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

    /** zlib's deflateBound plus its 6 wrapper bytes, with room: {@code n + n/1024 + 64}. */
    @Override
    public long maxEncodedSize(long decodedSize) {
        return decodedSize + (decodedSize >>> 10) + 64;
    }

    @Override
    public void encode(CodecBatch batch) {
        CodecItems.forEach(name, "encode", batch, (i, in, out) -> {
            Deflater d = deflaters.poll();
            if (d == null) {
                d = new Deflater(level);
            }
            try {
                long n = in.byteSize();
                long w = ZlibStreams.deflate(d, in, 0, n, out, 0, out.byteSize());
                if (w < 0) {
                    throw new IllegalArgumentException("output of " + out.byteSize() + " bytes is too small for zlib of "
                            + n + " bytes of " + batch.label(i) + "; allocate maxEncodedSize(" + n + ") = "
                            + maxEncodedSize(n));
                }
                batch.complete(i, w);
            } finally {
                deflaters.offer(d);
            }
        });
    }

    @Override
    public void decode(CodecBatch batch) {
        CodecItems.forEach(name, "decode", batch, (i, in, out) -> {
            String label = batch.label(i);
            long n = in.byteSize();
            long expected = out.byteSize();
            if (n == 0) {
                throw new CorruptChunkException(name, "zlib data of " + label + " is empty: no stream in 0 bytes,"
                        + " expected " + expected + " decoded bytes");
            }
            Inflater inf = INFLATERS.poll();
            if (inf == null) {
                inf = new Inflater();
            }
            ZlibStreams.Inflated r;
            try {
                r = ZlibStreams.inflate(inf, libdeflate, in, 0, n, out, 0, expected);
            } catch (IllegalArgumentException e) {
                throw new CorruptChunkException(name, "zlib data of " + label + " (" + n + " bytes) is undecodable: "
                        + e.getMessage() + "; expected " + expected + " decoded bytes", e);
            } finally {
                INFLATERS.offer(inf);
            }
            if (r.produced() != expected) {
                throw new CorruptChunkException(name, "zlib data of " + label + " decodes to " + r.produced()
                        + " bytes, expected " + expected);
            }
            if (r.consumed() != n) {
                throw new CorruptChunkException(name, "zlib data of " + label + " has " + (n - r.consumed())
                        + " bytes after the end of its stream (at byte " + r.consumed() + " of " + n + ")");
            }
            batch.complete(i, expected);
        });
    }
}
