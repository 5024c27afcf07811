// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.bench;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdCodec;
import dev.zarrdirect.testkit.SyntheticEra5;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Single-core zstd decode throughput of {@link ZstdCodec} on ERA5-like float32 chunks
 * ({@link SyntheticEra5}), which compress about as real reanalysis fields do. Chunks are encoded once, then decoded on one thread, one chunk per
 * batch as the CPU backend prefers, after a warm-up; the figure is decoded bytes per second.
 */
public final class ZstdThroughput {

    private ZstdThroughput() {
    }

    /**
     * Decoded GB/s (10^9 bytes per second) of one thread decoding {@code totalBytes} of data in chunks
     * of {@code chunkBytes} compressed at {@code level}; progress goes to {@code log}.
     */
    public static double decodeGBps(long totalBytes, int chunkBytes, int level, PrintStream log) {
        if (chunkBytes < 4 || chunkBytes % 4 != 0 || totalBytes < chunkBytes) {
            throw new IllegalArgumentException("need a chunk size that is a positive multiple of 4 bytes and at most"
                    + " the total, got chunkBytes=" + chunkBytes + ", totalBytes=" + totalBytes);
        }
        int chunks = (int) Math.min(Integer.MAX_VALUE, totalBytes / chunkBytes);
        ZstdCodec codec = ZstdCodec.create(Map.of("level", (long) level, "checksum", false));
        List<HostBuffer> encoded = new ArrayList<>();
        try (CpuBackend backend = new CpuBackend();
             HostBuffer raw = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST, chunkBytes);
             HostBuffer scratch = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST,
                     codec.maxEncodedSize(chunkBytes));
             HostBuffer out = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST, chunkBytes)) {
            long encodedTotal = 0;
            for (int c = 0; c < chunks; c++) {
                era5Like(raw.segment(), c);
                CodecBatch b = CodecBatch.of(raw, scratch, "bench chunk " + c);
                codec.encode(b);
                b.throwIfFailed();
                long n = b.written(0);
                HostBuffer e = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST, n);
                encoded.add(e);
                MemorySegment.copy(scratch.segment(), 0, e.segment(), 0, n);
                encodedTotal += n;
            }
            log.printf(Locale.ROOT, "zstd level %d: %d chunks of %d bytes, ratio %.2f%n", level, chunks, chunkBytes,
                    (double) chunks * chunkBytes / encodedTotal);
            decodeAll(codec, encoded, out, Math.max(3, 256 / chunks)); // warm-up: JIT and caches
            int rounds = 1;
            double seconds;
            while (true) {
                long t0 = System.nanoTime();
                decodeAll(codec, encoded, out, rounds);
                seconds = (System.nanoTime() - t0) / 1e9;
                if (seconds >= 1.0 || rounds >= 1 << 20) {
                    break;
                }
                rounds *= 2;
            }
            double gbps = (double) chunks * chunkBytes * rounds / seconds / 1e9;
            log.printf(Locale.ROOT, "decoded %d x %d chunks in %.3f s on one thread: %.3f GB/s%n", rounds, chunks,
                    seconds, gbps);
            return gbps;
        } finally {
            encoded.forEach(HostBuffer::close);
        }
    }

    /** Decodes every chunk {@code rounds} times into {@code out}; shared by the other codec harnesses. */
    static void decodeAll(dev.zarrdirect.api.codec.BytesToBytesCodec codec, List<HostBuffer> encoded, HostBuffer out,
                          int rounds) {
        for (int r = 0; r < rounds; r++) {
            for (HostBuffer e : encoded) {
                CodecBatch b = CodecBatch.of(e, out, "bench chunk");
                codec.decode(b);
                b.throwIfFailed();
            }
        }
    }

    /**
     * Chunk {@code chunk} of the bench data: the ERA5-like array ({@link SyntheticEra5} on a one-degree
     * grid, eight channels, seed 2020) from the start of time step {@code chunk}, as much as fits;
     * shared by the other codec harnesses.
     */
    static void era5Like(MemorySegment s, int chunk) {
        DATA.fillFlat(s, chunk, SyntheticEra5.CHANNELS.size());
    }

    private static final SyntheticEra5 DATA = new SyntheticEra5(181, 360, 2020);

    /** {@code ZstdThroughput [totalMiB=256] [chunkKiB=1024] [level=3]}. */
    public static void main(String[] args) {
        long total = (args.length > 0 ? Long.parseLong(args[0]) : 256) << 20;
        int chunk = (args.length > 1 ? Integer.parseInt(args[1]) : 1024) << 10;
        int level = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        double gbps = decodeGBps(total, chunk, level, System.out);
        System.out.printf(Locale.ROOT, "%.3f%n", gbps);
    }
}
