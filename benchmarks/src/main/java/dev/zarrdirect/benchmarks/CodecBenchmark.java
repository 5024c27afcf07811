// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.benchmarks;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import dev.zarrdirect.cpu.codec.bytestobytes.BloscCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.Crc32cCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.GzipCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdCodec;
import dev.zarrdirect.testkit.SyntheticEra5;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * CPU codecs on one 1 MiB ERA5-like float32 chunk ({@link #chunk}: the t2m field of
 * {@link SyntheticEra5} on a 512 x 512 grid), one chunk per operation on one thread. Each op is
 * {@link #CHUNK_ELEMENTS} * 4 = 1,048,576 decoded bytes,
 * so MB/s = 1,048,576 / (µs per op).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class CodecBenchmark {

    static final long SEED = 42;

    /** Elements in the 1 MiB float32 chunk. */
    static final int CHUNK_ELEMENTS = 512 * 512;

    /** Writes the chunk into {@code out}: time step 0 of t2m ({@link SyntheticEra5}, 512 x 512, seed {@value #SEED}). */
    static void chunk(MemorySegment out) {
        new SyntheticEra5(512, 512, SEED).fill(out, 0, 1, 1);
    }

    /** The chunk, encoded once by a codec, with buffers for decoding it and encoding it again. */
    public abstract static class CodecState {
        CpuBackend backend;
        BytesToBytesCodec codec;
        HostBuffer decoded;
        HostBuffer encoded;
        long encodedBytes;
        HostBuffer decodeOut;
        HostBuffer encodeOut;

        abstract BytesToBytesCodec codec();

        @Setup(Level.Trial)
        public void setUp() {
            backend = new CpuBackend();
            codec = codec();
            long n = CHUNK_ELEMENTS * 4L;
            decoded = backend.allocate(Device.CPU, MemoryKind.HOST, n);
            chunk(decoded.segment());
            encoded = backend.allocate(Device.CPU, MemoryKind.HOST, codec.maxEncodedSize(n));
            CodecBatch b = CodecBatch.of(decoded, encoded, "era5-like chunk");
            codec.encode(b);
            b.throwIfFailed();
            encodedBytes = b.written(0);
            decodeOut = backend.allocate(Device.CPU, MemoryKind.HOST, n);
            encodeOut = backend.allocate(Device.CPU, MemoryKind.HOST, codec.maxEncodedSize(n));
            System.out.printf("%n# %s: %d -> %d bytes (ratio %.3f)%n", getClass().getSimpleName(), n, encodedBytes,
                    (double) n / encodedBytes);
        }

        /** Decodes the encoded chunk into {@code decodeOut}; returns the bytes written. */
        long decode() {
            CodecBatch b = CodecBatch.of(encoded.slice(0, encodedBytes), decodeOut, "era5-like chunk");
            codec.decode(b);
            b.throwIfFailed();
            return b.written(0);
        }

        /** Encodes the chunk into {@code encodeOut}; returns the bytes written. */
        long encode() {
            CodecBatch b = CodecBatch.of(decoded, encodeOut, "era5-like chunk");
            codec.encode(b);
            b.throwIfFailed();
            return b.written(0);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            decoded.close();
            encoded.close();
            decodeOut.close();
            encodeOut.close();
            backend.close();
        }
    }

    @State(Scope.Thread)
    public static class Zstd extends CodecState {
        @Param({"1", "3"})
        public int level;

        @Override
        BytesToBytesCodec codec() {
            return ZstdCodec.create(Map.of("level", (long) level, "checksum", false));
        }
    }

    @State(Scope.Thread)
    public static class Gzip extends CodecState {
        @Override
        BytesToBytesCodec codec() {
            return GzipCodec.create(Map.of("level", 5L));
        }
    }

    @State(Scope.Thread)
    public static class BloscLz4Shuffle extends CodecState {
        @Override
        BytesToBytesCodec codec() {
            return BloscCodec.create(Map.of("cname", "lz4", "clevel", 5L, "shuffle", "shuffle", "typesize", 4L,
                    "blocksize", 0L));
        }
    }

    @State(Scope.Thread)
    public static class Crc32c extends CodecState {
        @Override
        BytesToBytesCodec codec() {
            return Crc32cCodec.create(Map.of());
        }
    }

    @Benchmark
    public long zstdDecode(Zstd s) {
        return s.decode();
    }

    @Benchmark
    public long zstdEncode(Zstd s) {
        return s.encode();
    }

    @Benchmark
    public long gzipDecode(Gzip s) {
        return s.decode();
    }

    @Benchmark
    public long bloscLz4ShuffleDecode(BloscLz4Shuffle s) {
        return s.decode();
    }

    /** Computes and appends the checksum. */
    @Benchmark
    public long crc32cEncode(Crc32c s) {
        return s.encode();
    }

    /** Verifies and strips the checksum. */
    @Benchmark
    public long crc32cDecode(Crc32c s) {
        return s.decode();
    }
}
