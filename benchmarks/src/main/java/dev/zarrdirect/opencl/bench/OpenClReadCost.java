// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.bench;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.opencl.ClCounters;
import dev.zarrdirect.opencl.OpenClBackend;

import java.nio.file.Path;
import java.util.Locale;

/**
 * What reading an array into OpenCL device memory asks of the driver: the array at {@code STORE}
 * is read whole in calls of {@code N} indices along dimension 0 ({@code readToDevice}, as
 * {@code zarr-direct bench} does), {@code passes} times after a warm-up pass, and for the last pass
 * the backend's {@link ClCounters} (buffer creations, launches, waits, blocking transfers, pinned
 * maps) are printed per call and per chunk, with the decoded GB/s of each pass.
 *
 * <p>Usage: {@code OpenClReadCost STORE [N=4] [passes=2]}; the device is chosen as for the backend
 * ({@code -Dzarrdirect.opencl.device}).
 */
public final class OpenClReadCost {

    private OpenClReadCost() {
    }

    public static void main(String[] args) {
        Path path = Path.of(args[0]);
        long step = args.length > 1 ? Long.parseLong(args[1]) : 4;
        int passes = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        try (ZarrContext ctx = ZarrContext.builder().backend("opencl").open();
             FileSystemStore store = FileSystemStore.open(path)) {
            OpenClBackend b = (OpenClBackend) ctx.backend();
            ZarrArray a = Zarr.openArray(ctx, store, "");
            long[] shape = a.shape();
            long[] chunk = a.chunkShape();
            System.out.printf(Locale.ROOT, "%s on %s; shape %s, chunks %s%n", path, b.describe(),
                    java.util.Arrays.toString(shape), java.util.Arrays.toString(chunk));
            ClCounters.Snapshot pass = null;
            int calls = 0;
            long chunks = 0;
            for (int p = 0; p <= passes; p++) {
                ClCounters.Snapshot before = b.counters().snapshot();
                long bytes = 0;
                calls = 0;
                chunks = 0;
                long t0 = System.nanoTime();
                for (long t = 0; t < shape[0]; t += step) {
                    long[] off = new long[shape.length];
                    long[] ext = shape.clone();
                    off[0] = t;
                    ext[0] = Math.min(step, shape[0] - t);
                    try (Tensor got = a.readToDevice(Selection.at(off, ext))) {
                        bytes += got.byteSize();
                    }
                    calls++;
                    chunks += (ext[0] + chunk[0] - 1) / chunk[0];
                }
                double gbps = bytes / (double) (System.nanoTime() - t0);
                pass = b.counters().snapshot().minus(before);
                System.out.printf(Locale.ROOT, "pass %d%s: %.2f GB/s decoded, %d calls, %d chunks%n", p,
                        p == 0 ? " (warm-up)" : "", gbps, calls, chunks);
            }
            System.out.println("last pass, per call:  " + per(pass, calls));
            System.out.println("last pass, per chunk: " + per(pass, chunks));
        }
    }

    private static String per(ClCounters.Snapshot s, long n) {
        return String.format(Locale.ROOT, "buffers created %.2f (%.1f MB), sub-buffers %.2f, launches %.2f, waits %.2f,"
                        + " blocking writes %.2f (%.1f MB), blocking reads %.2f (%.3f MB), pinned maps %.2f",
                s.buffersCreated() / (double) n, s.bytesCreated() / 1e6 / n, s.subBuffers() / (double) n,
                s.launches() / (double) n, s.waits() / (double) n, s.blockingWrites() / (double) n,
                s.bytesWritten() / 1e6 / n, s.blockingReads() / (double) n, s.bytesRead() / 1e6 / n,
                s.pinnedMaps() / (double) n);
    }
}
