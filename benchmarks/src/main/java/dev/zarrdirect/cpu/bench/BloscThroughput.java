// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.bench;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import dev.zarrdirect.cpu.codec.bytestobytes.BloscCodec;
import net.jpountz.lz4.LZ4Factory;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Single-core blosc decode throughput of {@link BloscCodec} on ERA5-like float32 chunks (as
 * {@link ZstdThroughput} makes them), typesize 4. The log names the LZ4 implementation that the
 * codec uses (lz4-java's fastest instance, as in {@code BloscWorkspace}).
 * Chunks are encoded once, then decoded on one thread, one chunk per batch, after a warm-up; the
 * figure is decoded bytes per second. Run it with
 * {@code java -cp <benchmarks classes, dependencies> dev.zarrdirect.cpu.bench.BloscThroughput [totalMiB] [chunkKiB] [cname] [shuffle] [clevel]}.
 */
public final class BloscThroughput {

    private BloscThroughput() {
    }

    /** Decoded GB/s of one thread decoding {@code totalBytes} in chunks of {@code chunkBytes}; progress to {@code log}. */
    public static double decodeGBps(long totalBytes, int chunkBytes, String cname, String shuffle, int clevel,
                                    PrintStream log) {
        if (chunkBytes < 4 || chunkBytes % 4 != 0 || totalBytes < chunkBytes) {
            throw new IllegalArgumentException("need a chunk size that is a positive multiple of 4 bytes and at most"
                    + " the total, got chunkBytes=" + chunkBytes + ", totalBytes=" + totalBytes);
        }
        int chunks = (int) Math.min(Integer.MAX_VALUE, totalBytes / chunkBytes);
        BloscCodec codec = BloscCodec.create(Map.of("cname", cname, "shuffle", shuffle, "clevel", (long) clevel,
                "typesize", 4L));
        List<HostBuffer> encoded = new ArrayList<>();
        try (CpuBackend backend = new CpuBackend();
             HostBuffer raw = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST, chunkBytes);
             HostBuffer scratch = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST,
                     codec.maxEncodedSize(chunkBytes));
             HostBuffer out = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST, chunkBytes)) {
            long encodedTotal = 0;
            for (int c = 0; c < chunks; c++) {
                ZstdThroughput.era5Like(raw.segment(), c);
                CodecBatch b = CodecBatch.of(raw, scratch, "bench chunk " + c);
                codec.encode(b);
                b.throwIfFailed();
                long n = b.written(0);
                HostBuffer e = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST, n);
                encoded.add(e);
                MemorySegment.copy(scratch.segment(), 0, e.segment(), 0, n);
                encodedTotal += n;
            }
            log.printf(Locale.ROOT, "blosc %s/%s clevel %d (%s): %d chunks of %d bytes, ratio %.2f%n", cname, shuffle,
                    clevel, LZ4Factory.fastestInstance(), chunks, chunkBytes,
                    (double) chunks * chunkBytes / encodedTotal);
            ZstdThroughput.decodeAll(codec, encoded, out, Math.max(3, 256 / chunks));
            int rounds = 1;
            double seconds;
            while (true) {
                long t0 = System.nanoTime();
                ZstdThroughput.decodeAll(codec, encoded, out, rounds);
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

    /** {@code BloscThroughput [totalMiB=256] [chunkKiB=1024] [cname=lz4] [shuffle=shuffle] [clevel=5]}. */
    public static void main(String[] args) {
        long total = (args.length > 0 ? Long.parseLong(args[0]) : 256) << 20;
        int chunk = (args.length > 1 ? Integer.parseInt(args[1]) : 1024) << 10;
        String cname = args.length > 2 ? args[2] : "lz4";
        String shuffle = args.length > 3 ? args[3] : "shuffle";
        int clevel = args.length > 4 ? Integer.parseInt(args[4]) : 5;
        double gbps = decodeGBps(total, chunk, cname, shuffle, clevel, System.out);
        System.out.printf(Locale.ROOT, "%.3f%n", gbps);
    }
}
