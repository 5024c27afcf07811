// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.bench;

import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.codec.bytestobytes.BloscCodec;
import dev.zarrdirect.opencl.ClKernel;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.OpenClBackendProvider;
import dev.zarrdirect.opencl.codec.ChunkTable;
import dev.zarrdirect.opencl.codec.KernelProgram;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClZstdCodec;
import dev.zarrdirect.testkit.SyntheticEra5;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.lwjgl.opencl.CL10.CL_KERNEL_LOCAL_MEM_SIZE;
import static org.lwjgl.opencl.CL10.CL_MEM_READ_WRITE;
import static org.lwjgl.opencl.CL11.CL_KERNEL_PRIVATE_MEM_SIZE;

/**
 * Throughput of the OpenCL blosc decoder ({@code opencl/zd_blosc.cl}) alone, in variants: {@code N}
 * chunks of {@code S} bytes of ERA5-like float32 data ({@link SyntheticEra5}) are compressed with the
 * CPU codec (blosc lz4, clevel 5, byte shuffle, typesize 4, blocks of {@code B} bytes: c-blosc 1.21
 * itself picks 512 KiB for this, the layout of zarr-python's and TensorStore's default v2 stores),
 * uploaded once, then decoded by each variant: a kernel ({@code lz}, {@code lz_thread},
 * {@code lz_resolve}), a group size, a group count and build options (after the backend's own, as
 * the codec builds the program). Reported per variant: decoded GB/s from the wall clock around the
 * decode launch and its wait (the plan launch and status read are outside), after one warm-up; the
 * decoded bytes are compared with the originals. Per distinct build options: the program's private
 * and local memory per kernel and, where the binary is PTX (NVIDIA), how many {@code bar.sync} and
 * fences it holds; {@code -Dbench.dumpDir=DIR} writes each binary there.
 *
 * <p>Usage: {@code BloscKernelBench [chunks=16] [chunkBytes=16777216] [runs=3] [variants] [blockBytes=262144]},
 * variants separated by {@code ;}, each {@code kernel|local|groups|options}, such as
 * {@code lz|64|2048|-cl-mad-enable}.
 *
 * <p>Measured (H100, NVIDIA's OpenCL 3.0, driver 580, 64 chunks of 16 MiB, blocks of 256 KiB, ratio
 * 2.82): {@code lz} 32 items and 1,024 groups 24.3 GB/s, 64 and 2,048 45.5, 64 and 4,224 49.2;
 * {@code lz_thread} 35.3, {@code lz_resolve} 33.1. The barriers compile to {@code bar.sync} alone
 * (no device-wide fence): spelling them with work-group scope, or without the global fence, changed
 * nothing (45.3 to 45.6).
 */
public final class BloscKernelBench {

    static final KernelProgram PROGRAM = new KernelProgram("opencl/zd_blosc.cl");
    static final String DEFAULT_VARIANTS = "lz|32|1024|;lz|64|2048|;lz|64|4224|;lz_thread|64|2048|;lz_resolve|64|2048|";
    private static final Pattern PTX_COUNTED = Pattern.compile("\\b(bar\\.sync|barrier\\.sync|bar\\.cta\\.sync"
            + "|membar\\.gl|membar\\.cta|membar\\.sys|fence\\.[a-z.]+)\\b");

    /** One variant: the kernel's suffix after {@code zd_blosc_decode_}, group size, group count, build options. */
    record Variant(String kernel, long local, int groups, String options) {
        static Variant parse(String s) {
            String[] p = s.split("\\|", -1);
            if (p.length != 4) {
                throw new IllegalArgumentException("variant \"" + s + "\" is not kernel|local|groups|options");
            }
            return new Variant(p[0].strip(), Long.parseLong(p[1].strip()), Integer.parseInt(p[2].strip()), p[3].strip());
        }
    }

    private BloscKernelBench() {
    }

    public static void main(String[] args) {
        int chunks = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int chunkBytes = args.length > 1 ? Integer.parseInt(args[1]) : 16 << 20;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        String variants = args.length > 3 ? args[3] : DEFAULT_VARIANTS;
        int blockBytes = args.length > 4 ? Integer.parseInt(args[4]) : 256 << 10;
        OpenClBackendProvider provider = new OpenClBackendProvider();
        ProbeResult probe = provider.probe();
        if (!probe.available()) {
            System.err.println(probe.reason());
            System.exit(2);
        }
        List<Variant> list = new ArrayList<>();
        for (String v : variants.split(";")) {
            if (!v.isBlank()) {
                list.add(Variant.parse(v));
            }
        }
        try (OpenClBackend backend = provider.open()) {
            run(backend, chunks, chunkBytes, blockBytes, runs, list, System.out);
        }
    }

    /** Runs every variant on {@code backend}; returns the GB/s of each, in order. */
    public static double[] run(OpenClBackend backend, int chunks, int chunkBytes, int blockBytes, int runs,
                               List<Variant> variants, PrintStream log) {
        if (chunks < 1 || chunkBytes < 4 || chunkBytes % 4 != 0 || runs < 1) {
            throw new IllegalArgumentException("need chunks >= 1, a chunk size that is a positive multiple of 4 and"
                    + " runs >= 1; got chunks=" + chunks + ", chunkBytes=" + chunkBytes + ", runs=" + runs);
        }
        BloscCodec cpu = BloscCodec.create(Map.of("cname", "lz4", "clevel", 5, "shuffle", 1, "typesize", 4,
                "blocksize", blockBytes));
        byte[][] raw = new byte[chunks][];
        byte[][] enc = new byte[chunks][];
        long encTotal = 0;
        for (int f = 0; f < chunks; f++) {
            raw[f] = DATA.bytes(chunkBytes, f, 16);
            enc[f] = encode(cpu, raw[f]);
            encTotal += enc[f].length;
        }
        long decTotal = (long) chunks * chunkBytes;
        long[] in = new long[2 * chunks];
        long[] out = new long[2 * chunks];
        double[] rates = new double[variants.size()];
        long srcMem = 0;
        long dstMem = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packed = arena.allocate(Math.max(1, encTotal), 64);
            long at = 0;
            for (int f = 0; f < chunks; f++) {
                MemorySegment.copy(MemorySegment.ofArray(enc[f]), 0, packed, at, enc[f].length);
                in[2 * f] = at;
                in[2 * f + 1] = enc[f].length;
                out[2 * f] = (long) f * chunkBytes;
                out[2 * f + 1] = chunkBytes;
                at += enc[f].length;
            }
            srcMem = backend.memory().createMemFrom(packed.asSlice(0, encTotal), "bench chunks");
            dstMem = backend.memory().createMem(decTotal, CL_MEM_READ_WRITE, "bench output");
            MemorySegment back = arena.allocate(decTotal, 64);
            MemorySegment zeros = arena.allocate(decTotal, 64);
            log.printf(Locale.ROOT, "blosc lz4 clevel 5 shuffle: %d chunks of %d bytes, blocks of %d, ratio %.2f, on %s%n",
                    chunks, chunkBytes, blockBytes, (double) decTotal / encTotal, backend.describe());
            java.util.Set<String> described = new java.util.HashSet<>();
            for (int v = 0; v < variants.size(); v++) {
                Variant var = variants.get(v);
                // the backend's own options first (PoCL's LLVM needs -cl-opt-disable for this program)
                String options = (OpenClZstdCodec.buildOptions(backend) + " " + var.options()).strip();
                long t0 = System.nanoTime();
                ClKernel dec = PROGRAM.kernel(backend, options, "zd_blosc_decode_" + var.kernel());
                ClKernel plan = PROGRAM.kernel(backend, options, "zd_blosc_plan");
                if (described.add(options)) {
                    log.printf(Locale.ROOT, "program \"%s\": built in %.0f ms; %s%n", options,
                            (System.nanoTime() - t0) / 1e6, describeBinary(backend, options));
                }
                log.printf(Locale.ROOT, "  %s: private %d B, local %d B, max group %d%n", dec.name(),
                        dec.workGroupInfoLong(backend.deviceId(), CL_KERNEL_PRIVATE_MEM_SIZE),
                        dec.workGroupInfoLong(backend.deviceId(), CL_KERNEL_LOCAL_MEM_SIZE),
                        dec.maxWorkGroupSize(backend.deviceId()));
                long local = Math.min(var.local(), dec.maxWorkGroupSize(backend.deviceId()));
                rates[v] = runVariant(backend, plan, dec, local, var.groups(), blockBytes, srcMem, dstMem, in, out, runs,
                        decTotal);
                backend.memory().read(dstMem, 0, back, 0, decTotal);
                for (int f = 0; f < chunks; f++) {
                    if (MemorySegment.mismatch(MemorySegment.ofArray(raw[f]), 0, chunkBytes, back,
                            (long) f * chunkBytes, (long) (f + 1) * chunkBytes) >= 0) {
                        throw new IllegalStateException("chunk " + f + " decoded by " + var + " on " + backend.device()
                                + " differs from its original");
                    }
                }
                backend.memory().write(dstMem, 0, zeros, 0, decTotal); // a failing variant cannot pass on the last one's output
                log.printf(Locale.ROOT, "%-12s local %3d groups %5d %-45s %8.2f GB/s%n", var.kernel(), local,
                        var.groups(), "\"" + var.options() + "\"", rates[v]);
            }
            return rates;
        } finally {
            backend.memory().releaseMem(srcMem);
            backend.memory().releaseMem(dstMem);
        }
    }

    private static double runVariant(OpenClBackend b, ClKernel plan, ClKernel dec, long local, int groups,
                                     long blockBytes, long srcMem, long dstMem, long[] in, long[] out, int runs,
                                     long decTotal) {
        int n = in.length / 2;
        long perGroup = (blockBytes + 15) & ~15L;
        long planMem = 0;
        long scratch = 0;
        try (ChunkTable t = new ChunkTable(b, in, out, "bench blosc")) {
            planMem = b.memory().createMem(8L * (n + 1), CL_MEM_READ_WRITE, "bench plan");
            scratch = b.memory().createMem(perGroup * groups, CL_MEM_READ_WRITE, "bench scratch");
            long planLocal = Math.max(1, Long.highestOneBit(Math.min(256, plan.maxWorkGroupSize(b.deviceId()))));
            b.launch(plan, new long[]{planLocal}, new long[]{planLocal}, new ClKernel.Mem(srcMem), t.srcOffsets(),
                    t.srcSizes(), t.dstSizes(), new ClKernel.Mem(planMem), t.status(), new ClKernel.U32(n));
            ClKernel.Arg[] io = t.io(srcMem, dstMem);
            long nanos = 0;
            for (int r = 0; r <= runs; r++) {
                long t0 = System.nanoTime();
                b.launch(dec, new long[]{groups * local}, new long[]{local}, io[0], io[1], io[2], io[3], io[4], io[5],
                        new ClKernel.Mem(planMem), new ClKernel.Mem(scratch), new ClKernel.U64(perGroup), t.status(),
                        new ClKernel.U32(n));
                if (r > 0) {
                    nanos += System.nanoTime() - t0;
                }
            }
            int[] st = t.readStatus();
            for (int f = 0; f < n; f++) {
                if (st[f] != 0) {
                    throw new IllegalStateException("bench chunk " + f + " failed to decode with " + dec.name()
                            + ": status " + st[f]);
                }
            }
            return decTotal * (double) runs / nanos;
        } finally {
            b.memory().releaseMem(planMem);
            b.memory().releaseMem(scratch);
        }
    }

    /** Sizes and, for PTX, counts of barriers and fences; the binary is written to {@code bench.dumpDir} if set. */
    private static String describeBinary(OpenClBackend b, String options) {
        byte[] bin = b.programs().binary(PROGRAM.resource(), PROGRAM.source(b), options);
        String dir = System.getProperty("bench.dumpDir");
        if (dir != null) {
            try {
                Path p = Path.of(dir, "zd_blosc" + options.replaceAll("[^A-Za-z0-9]+", "_") + ".bin");
                Files.createDirectories(p.getParent());
                Files.write(p, bin);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        String text = new String(bin, StandardCharsets.ISO_8859_1);
        if (!text.contains(".version") || !text.contains(".target")) {
            return "binary " + bin.length + " bytes (not PTX)";
        }
        java.util.TreeMap<String, Integer> counts = new java.util.TreeMap<>();
        Matcher m = PTX_COUNTED.matcher(text);
        while (m.find()) {
            counts.merge(m.group(1), 1, Integer::sum);
        }
        return "PTX " + bin.length + " bytes, " + counts;
    }

    private static byte[] encode(BloscCodec cpu, byte[] raw) {
        try (Buffer in = HostBuffer.allocate(raw.length); Buffer out = HostBuffer.allocate(cpu.maxEncodedSize(raw.length))) {
            MemorySegment.copy(MemorySegment.ofArray(raw), 0, in.segment(), 0, raw.length);
            CodecBatch batch = CodecBatch.of(in, out, "bench chunk");
            cpu.encode(batch);
            batch.throwIfFailed();
            return out.segment().asSlice(0, batch.written(0)).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

    private static final SyntheticEra5 DATA = new SyntheticEra5(721, 1440, 2020);
}
