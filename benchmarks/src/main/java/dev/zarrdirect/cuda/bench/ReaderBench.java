// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.bench;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.CudaBackendProvider;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;
import dev.zarrdirect.cuda.io.CuFile;
import dev.zarrdirect.cuda.io.CuFileReader;
import dev.zarrdirect.cuda.io.ThreadedReader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * File-to-device read rates: a temporary file of {@code --file-gib} GiB (default 4), written and read
 * once so that it sits in the page cache, read whole into device memory as requests of
 * {@code --request-kib} (default 1024, like chunks) — some starting at unaligned offsets when
 * {@code --unaligned true} — by the threaded reader for every task size and thread count given,
 * and by the cuFile reader for every thread count; plus the raw pinned host-to-device copy rate.
 * Each case: {@code --reps} timed reads after one warm-up, median and spread in GB/s.
 *
 * <pre>bash .device/run main dev.zarrdirect.cuda.bench.ReaderBench [--file-gib 4] [--request-kib 1024]
 *     [--threads 4,8,16] [--task-mib 1,4,16] [--reps 3] [--unaligned false] [--dir /tmp]</pre>
 */
public final class ReaderBench {

    private ReaderBench() {
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> a = Args.parse(args);
        long fileBytes = (long) (Double.parseDouble(a.getOrDefault("file-gib", "4")) * (1L << 30));
        long request = Long.parseLong(a.getOrDefault("request-kib", "1024")) << 10;
        int[] threads = Arrays.stream(a.getOrDefault("threads", "4,8,16").split(",")).mapToInt(Integer::parseInt).toArray();
        long[] tasks = Arrays.stream(a.getOrDefault("task-mib", "1,4,16").split(",")).mapToLong(s -> Long.parseLong(s) << 20).toArray();
        int reps = Integer.parseInt(a.getOrDefault("reps", "3"));
        boolean unaligned = Boolean.parseBoolean(a.getOrDefault("unaligned", "false"));
        Path dir = Path.of(a.getOrDefault("dir", System.getProperty("java.io.tmpdir")));
        Path file = Files.createTempFile(dir, "zd-reader-bench", ".bin");
        List<String> table = new ArrayList<>();
        table.add(String.format(Locale.ROOT, "%-40s %9s %9s %9s", "case", "GB/s med", "GB/s min", "GB/s max"));
        try (CudaBackend backend = new CudaBackendProvider().open()) {
            Device dev = backend.defaultDevice();
            System.out.println("device: " + backend.cudaDevice(dev).describe() + "; file " + file + " of " + fileBytes + " bytes");
            write(file, fileBytes);
            List<DirectReader.Request> reqs;
            try (Buffer dst = backend.allocateUninitialized(dev, MemoryKind.DEVICE, fileBytes)) {
                reqs = requests(file, fileBytes, request, unaligned, dst);
                table.add(row("pinned H2D copy, 1 GiB", rawCopy(backend, dev, reps)));
                for (long task : tasks) {
                    for (int t : threads) {
                        try (ThreadedReader r = new ThreadedReader(backend, t, task)) {
                            table.add(row(r.describe(), time(r, reqs, fileBytes, reps)));
                            System.out.println(table.getLast());
                        }
                    }
                }
                if (CuFile.load().isPresent()) {
                    for (int t : threads) {
                        try (CuFileReader r = CuFileReader.open(backend, t, 16L << 20)) {
                            if (t == threads[0]) {
                                System.out.println("GDS: " + r.properties());
                            }
                            table.add(row(r.describe(), time(r, reqs, fileBytes, reps)));
                            System.out.println(table.getLast());
                        }
                    }
                } else {
                    table.add("cuFile: " + CuFile.failure());
                }
            }
        } finally {
            Files.deleteIfExists(file);
        }
        System.out.println();
        table.forEach(System.out::println);
    }

    private static void write(Path file, long bytes) throws IOException {
        Random rnd = new Random(7);
        byte[] block = new byte[8 << 20];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            for (long done = 0; done < bytes; ) {
                rnd.nextBytes(block);
                ByteBuffer bb = ByteBuffer.wrap(block, 0, (int) Math.min(block.length, bytes - done));
                while (bb.hasRemaining()) {
                    done += ch.write(bb, done);
                }
            }
        }
        try (FileChannel ch = FileChannel.open(file)) { // into the page cache
            ByteBuffer bb = ByteBuffer.allocateDirect(8 << 20);
            for (long pos = 0; pos < bytes; pos += bb.capacity()) {
                bb.clear();
                ch.read(bb, pos);
            }
        }
    }

    static List<DirectReader.Request> requests(Path file, long fileBytes, long request, boolean unaligned, Buffer dst) {
        List<DirectReader.Request> reqs = new ArrayList<>();
        long pos = 0;
        Random rnd = new Random(11);
        while (pos < fileBytes) {
            long len = Math.min(request, fileBytes - pos);
            if (unaligned && len > 8192) {
                len -= rnd.nextInt(4096);
            }
            reqs.add(new DirectReader.Request(file, pos, len, dst, pos));
            pos += len;
        }
        return reqs;
    }

    private static double[] time(DirectReader r, List<DirectReader.Request> reqs, long bytes, int reps) {
        r.read(reqs); // warm-up: threads, streams, bounce buffers
        double[] gbs = new double[reps];
        for (int i = 0; i < reps; i++) {
            long t0 = System.nanoTime();
            r.read(reqs);
            gbs[i] = bytes / ((System.nanoTime() - t0) / 1e9) / 1e9;
        }
        Arrays.sort(gbs);
        return gbs;
    }

    private static double[] rawCopy(CudaBackend backend, Device dev, int reps) {
        long n = 1L << 30;
        CudaDevice cd = backend.cudaDevice(dev);
        CudaDriver drv = cd.driver();
        try (Buffer h = backend.allocate(dev, MemoryKind.HOST_PINNED, n);
             Buffer d = backend.allocateUninitialized(dev, MemoryKind.DEVICE, n)) {
            h.segment().fill((byte) 1);
            cd.makeCurrent();
            long s = cd.acquireStream();
            long e0 = drv.eventCreate(CudaDriver.EVENT_DEFAULT);
            long e1 = drv.eventCreate(CudaDriver.EVENT_DEFAULT);
            double[] gbs = new double[reps];
            try {
                for (int i = -1; i < reps; i++) {
                    drv.eventRecord(e0, s);
                    drv.memcpyHtoDAsync(d.address(), h.address(), n, s);
                    drv.eventRecord(e1, s);
                    drv.eventSynchronize(e1);
                    if (i >= 0) {
                        gbs[i] = n / (CudaEvents.elapsedMillis(drv, e0, e1) / 1e3) / 1e9;
                    }
                }
            } finally {
                drv.eventDestroy(e0);
                drv.eventDestroy(e1);
                cd.releaseStream(s);
            }
            Arrays.sort(gbs);
            return gbs;
        }
    }

    private static String row(String what, double[] sorted) {
        return String.format(Locale.ROOT, "%-40s %9.2f %9.2f %9.2f", what, sorted[sorted.length / 2], sorted[0],
                sorted[sorted.length - 1]);
    }
}
