// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.bench;

import com.github.luben.zstd.Zstd;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.OpenClBackendProvider;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClZstdCodec;
import dev.zarrdirect.testkit.SyntheticEra5;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Locale;

import static org.lwjgl.opencl.CL10.CL_MEM_READ_WRITE;

/**
 * Throughput of the OpenCL zstd decoder ({@code zd_zstd_decode_batch}) alone: {@code N} frames of
 * {@code S} bytes of ERA5-like float32 data ({@link SyntheticEra5}) are compressed at level
 * {@code L} with zstd-jni, uploaded once into one device buffer, then decoded in one launch per
 * batch, {@code R} times after a warm-up launch (which also compiles the program). Reported: decoded
 * GB/s (10^9 bytes per second) from the wall clock around each whole batch call (table upload,
 * launch, status read-back); the backend's queue keeps no profiling counters, so there is no
 * device-time figure. The decoded bytes of the last run are compared with the originals.
 *
 * <p>Usage: {@code ZstdKernelBench [frames=64] [frameBytes=262144] [level=3] [runs=5]}; the device
 * is chosen as for the backend ({@code -Dzarrdirect.opencl.device}).
 */
public final class ZstdKernelBench {

    /** The figures of one bench run. */
    public record Result(String device, int frames, int frameBytes, int level, double ratio, double wallGBps) {
    }

    private ZstdKernelBench() {
    }

    public static void main(String[] args) {
        int frames = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int frameBytes = args.length > 1 ? Integer.parseInt(args[1]) : 256 << 10;
        int level = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        OpenClBackendProvider provider = new OpenClBackendProvider();
        ProbeResult probe = provider.probe();
        if (!probe.available()) {
            System.err.println(probe.reason());
            System.exit(2);
        }
        try (OpenClBackend backend = provider.open()) {
            run(backend, frames, frameBytes, level, runs, System.out);
        }
    }

    /** Runs the bench on {@code backend}, printing progress and the result to {@code log}. */
    public static Result run(OpenClBackend backend, int frames, int frameBytes, int level, int runs, PrintStream log) {
        if (frames < 1 || frameBytes < 4 || frameBytes % 4 != 0 || runs < 1) {
            throw new IllegalArgumentException("need frames >= 1, a frame size that is a positive multiple of 4 and"
                    + " runs >= 1; got frames=" + frames + ", frameBytes=" + frameBytes + ", runs=" + runs);
        }
        byte[][] raw = new byte[frames][];
        byte[][] enc = new byte[frames][];
        long encTotal = 0;
        for (int f = 0; f < frames; f++) {
            raw[f] = era5Like(frameBytes, f);
            enc[f] = Zstd.compress(raw[f], level);
            encTotal += enc[f].length;
        }
        long decTotal = (long) frames * frameBytes;
        long[] in = new long[2 * frames];
        long[] out = new long[2 * frames];
        long srcMem = 0;
        long dstMem = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packed = arena.allocate(Math.max(1, encTotal), 64);
            long at = 0;
            for (int f = 0; f < frames; f++) {
                MemorySegment.copy(MemorySegment.ofArray(enc[f]), 0, packed, at, enc[f].length);
                in[2 * f] = at;
                in[2 * f + 1] = enc[f].length;
                out[2 * f] = (long) f * frameBytes;
                out[2 * f + 1] = frameBytes;
                at += enc[f].length;
            }
            srcMem = backend.memory().createMemFrom(packed.asSlice(0, encTotal), "bench frames");
            dstMem = backend.memory().createMem(decTotal, CL_MEM_READ_WRITE, "bench output");
            double ratio = (double) decTotal / encTotal;
            log.printf(Locale.ROOT, "zstd level %d: %d frames of %d bytes, ratio %.2f, on %s%n", level, frames,
                    frameBytes, ratio, backend.describe());
            long t0 = System.nanoTime();
            check(OpenClZstdCodec.run(backend, srcMem, dstMem, in, out));
            log.printf(Locale.ROOT, "warm-up (includes the program build): %.1f ms%n", (System.nanoTime() - t0) / 1e6);
            long wallNanos = 0;
            for (int r = 0; r < runs; r++) {
                long w0 = System.nanoTime();
                check(OpenClZstdCodec.run(backend, srcMem, dstMem, in, out));
                wallNanos += System.nanoTime() - w0;
            }
            MemorySegment back = arena.allocate(decTotal, 64);
            backend.memory().read(dstMem, 0, back, 0, decTotal);
            for (int f = 0; f < frames; f++) {
                if (!Arrays.equals(raw[f], back.asSlice((long) f * frameBytes, frameBytes).toArray(ValueLayout.JAVA_BYTE))) {
                    throw new IllegalStateException("frame " + f + " decoded on " + backend.device()
                            + " differs from its original");
                }
            }
            double wall = decTotal * (double) runs / wallNanos;
            log.printf(Locale.ROOT, "decoded %d x %d bytes per run, %d runs: %.3f GB/s wall per batch call%n",
                    frames, frameBytes, runs, wall);
            return new Result(backend.device().toString(), frames, frameBytes, level, ratio, wall);
        } finally {
            backend.memory().releaseMem(srcMem);
            backend.memory().releaseMem(dstMem);
        }
    }

    private static void check(int[] status) {
        for (int f = 0; f < status.length; f++) {
            if (status[f] != 0) {
                throw new IllegalStateException("bench frame " + f + " failed to decode: status " + status[f]);
            }
        }
    }

    /**
     * Frame {@code f}'s decoded bytes: the ERA5-like array ({@link SyntheticEra5}, a quarter-degree
     * grid, sixteen channels, seed 2020) from the start of time step {@code f}.
     */
    static byte[] era5Like(int bytes, int f) {
        return DATA.bytes(bytes, f, 16);
    }

    private static final SyntheticEra5 DATA = new SyntheticEra5(721, 1440, 2020);
}
