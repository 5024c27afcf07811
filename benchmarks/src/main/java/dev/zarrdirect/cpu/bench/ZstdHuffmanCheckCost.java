// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.bench;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdHuffmanStreams;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@link ZstdHuffmanStreams#check} costs on one thread: for ERA5-like float32 chunks
 * ({@link ZstdThroughput#era5Like}) at each level, with and without a content checksum, it times
 * libzstd alone (the same decompressor {@link ZstdCodec} calls), the codec (libzstd and the check)
 * and the check alone, in decoded GB/s. The three are timed in turn, several times, and the best
 * of each is kept: on a shared machine the best is the least disturbed. Times are the thread's CPU
 * time, not wall time. It also prints what the
 * literals of the frames are made of (sections by type and stream count, literal bytes, Huffman
 * bits per literal), which is what the check's cost depends on.
 */
public final class ZstdHuffmanCheckCost {

    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ZstdHuffmanCheckCost() {
    }

    /** The three rates for one configuration, in decoded GB/s. */
    public record Rates(double libzstd, double codec, double checkAlone) {
        /** Codec time over libzstd time. */
        public double slowdown() {
            return libzstd / codec;
        }
    }

    /**
     * Times {@code chunks} chunks of {@code chunkBytes} compressed at {@code level} (with a content
     * checksum when {@code checksum}); each timing runs for at least {@code seconds}, {@code repeats}
     * times in turn.
     */
    public static Rates measure(int chunkBytes, int chunks, int level, boolean checksum, double seconds, int repeats,
                                PrintStream log) {
        ZstdCodec codec = ZstdCodec.create(Map.of("level", (long) level, "checksum", checksum));
        try (Arena arena = Arena.ofConfined(); ZstdDecompressCtx dctx = new ZstdDecompressCtx()) {
            List<MemorySegment> encoded = new ArrayList<>();
            MemorySegment raw = arena.allocate(chunkBytes, 64);
            MemorySegment out = arena.allocate(chunkBytes, 64);
            long encodedTotal = 0;
            try (ZstdCompressCtx cctx = new ZstdCompressCtx()) {
                cctx.setLevel(level);
                cctx.setChecksum(checksum);
                for (int c = 0; c < chunks; c++) {
                    ZstdThroughput.era5Like(raw, c);
                    byte[] frame = cctx.compress(raw.toArray(ValueLayout.JAVA_BYTE));
                    MemorySegment e = arena.allocate(frame.length, 64);
                    MemorySegment.copy(MemorySegment.ofArray(frame), 0, e, 0, frame.length);
                    encoded.add(e);
                    encodedTotal += frame.length;
                }
            }
            log.printf(Locale.ROOT, "level %d, checksum %b, %d chunks of %d KiB: ratio %.3f; %s%n", level, checksum,
                    chunks, chunkBytes >> 10, (double) chunks * chunkBytes / encodedTotal, literalStats(encoded));
            HostBuffer outBuf = HostBuffer.wrap(out);
            List<HostBuffer> inBufs = encoded.stream().map(HostBuffer::wrap).toList();
            Runnable libzstd = () -> {
                for (MemorySegment e : encoded) {
                    long n = dctx.decompressDirectByteBuffer(out.asByteBuffer(), 0, chunkBytes, e.asByteBuffer(), 0,
                            (int) e.byteSize());
                    if (n != chunkBytes) {
                        throw new AssertionError("decoded " + n);
                    }
                }
            };
            Runnable viaCodec = () -> {
                for (HostBuffer e : inBufs) {
                    CodecBatch b = CodecBatch.of(e, outBuf, "bench chunk");
                    codec.decode(b);
                    b.throwIfFailed();
                }
            };
            Runnable check = () -> {
                for (MemorySegment e : encoded) {
                    if (ZstdHuffmanStreams.check(e) != null) {
                        throw new AssertionError("false alarm");
                    }
                }
            };
            double bytes = (double) chunks * chunkBytes;
            double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
            Runnable[] runs = {libzstd, viaCodec, check};
            for (Runnable r : runs) {
                time(r, seconds / 2); // warm-up: JIT and caches
            }
            for (int rep = 0; rep < repeats; rep++) {
                for (int k = 0; k < runs.length; k++) {
                    best[k] = Math.min(best[k], time(runs[k], seconds));
                }
            }
            Rates rates = new Rates(bytes / best[0] / 1e9, bytes / best[1] / 1e9, bytes / best[2] / 1e9);
            log.printf(Locale.ROOT, "  libzstd %.3f GB/s, libzstd+check %.3f GB/s (%.2fx the time), check alone %.3f GB/s"
                            + " (%.1f%% of libzstd's time)%n", rates.libzstd(), rates.codec(), rates.slowdown(),
                    rates.checkAlone(), 100 * rates.libzstd() / rates.checkAlone());
            return rates;
        }
    }

    /**
     * CPU seconds per run of {@code r} (this thread's CPU time, so that time spent descheduled on a
     * shared machine does not count): the mean over as many runs as fill {@code seconds} of it.
     */
    private static double time(Runnable r, double seconds) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long runs = 0;
        long t0 = mx.getCurrentThreadCpuTime();
        long t;
        do {
            r.run();
            runs++;
            t = mx.getCurrentThreadCpuTime();
        } while (t - t0 < seconds * 1e9);
        return (t - t0) / 1e9 / runs;
    }

    /** The literals sections of the frames by kind, and what the Huffman-coded ones hold. */
    static String literalStats(List<MemorySegment> frames) {
        long blocks = 0;
        long[] types = new long[4];
        long oneStream = 0;
        long huffLiterals = 0;
        long huffBytes = 0;
        long decoded = 0;
        for (MemorySegment in : frames) {
            long n = in.byteSize();
            long p = 0;
            while (p < n) {
                int fhd = in.get(ValueLayout.JAVA_BYTE, p + 4) & 0xFF;
                boolean single = (fhd & 0x20) != 0;
                int fcsFlag = fhd >>> 6;
                int didSize = new int[]{0, 1, 2, 4}[fhd & 3];
                int fcsSize = fcsFlag == 0 ? (single ? 1 : 0) : 1 << fcsFlag;
                p += 5 + (single ? 0 : 1) + didSize + fcsSize;
                while (true) {
                    int h = in.get(LE_INT, p) & 0xFFFFFF;
                    p += 3;
                    int type = (h >>> 1) & 3;
                    long size = type == 1 ? 1 : h >>> 3;
                    blocks++;
                    if (type == 2) {
                        long v = in.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), p);
                        int lt = (int) (v & 3);
                        int sf = (int) (v >>> 2) & 3;
                        types[lt]++;
                        if (lt >= 2) {
                            int nbits = sf <= 1 ? 10 : sf == 2 ? 14 : 18;
                            long mask = (1L << nbits) - 1;
                            long regen = (v >>> 4) & mask;
                            long csize = (v >>> (4 + nbits)) & mask;
                            oneStream += sf == 0 ? 1 : 0;
                            huffLiterals += regen;
                            huffBytes += csize;
                        }
                    }
                    p += size;
                    if ((h & 1) != 0) {
                        break;
                    }
                }
                p += (fhd & 4) != 0 ? 4 : 0;
            }
            decoded += n;
        }
        return String.format(Locale.ROOT, "%d blocks, literals raw %d, rle %d, huffman %d (new table) + %d (repeated),"
                        + " %d of them one stream; %d Huffman literals (%.2f bits each)", blocks, types[0], types[1],
                types[2], types[3], oneStream, huffLiterals, 8.0 * huffBytes / Math.max(1, huffLiterals));
    }

    /**
     * {@code ZstdHuffmanCheckCost [chunkKiB=4096,1024] [levels=1,3,9] [checksum=false,true]
     * [seconds=0.5] [repeats=3] [chunks=8]}.
     */
    public static void main(String[] args) {
        int[] chunkKiB = ints(args.length > 0 ? args[0] : "4096,1024");
        int[] levels = ints(args.length > 1 ? args[1] : "1,3,9");
        String[] sums = (args.length > 2 ? args[2] : "false,true").split(",");
        double seconds = args.length > 3 ? Double.parseDouble(args[3]) : 0.5;
        int repeats = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        int chunks = args.length > 5 ? Integer.parseInt(args[5]) : 8;
        for (int kib : chunkKiB) {
            for (int level : levels) {
                for (String s : sums) {
                    measure(kib << 10, chunks, level, Boolean.parseBoolean(s), seconds, repeats, System.out);
                }
            }
        }
    }

    private static int[] ints(String csv) {
        return java.util.Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
    }
}
