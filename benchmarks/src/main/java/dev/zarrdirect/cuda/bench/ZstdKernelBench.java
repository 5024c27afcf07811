// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.bench;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.CudaBackendProvider;
import dev.zarrdirect.cuda.codec.CudaZstdCodec;
import dev.zarrdirect.cuda.codec.MultiPassLaunch;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;
import dev.zarrdirect.cuda.driver.KernelArgs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Times {@code zd_zstd_decode_batch} alone: frames of 64 KiB, 1 MiB and 4 MiB at levels 1, 3 and 9,
 * a batch of at least {@code --batch-gib} (default 1) GiB decoded, uploaded once; only the launches
 * are timed, with CUDA events, over {@code --reps} repetitions after {@code --warmup}. Prints decoded
 * GB/s (median, min, max) and the fraction of the memory bandwidth used (bytes in plus out per
 * second over {@code --peak-tbs}, 4.8 TB/s for an H200). The frames' data is ERA5-like
 * ({@link dev.zarrdirect.testkit.SyntheticEra5}, see {@link Data#era5Like}); the CPU encoder
 * (backend-cpu, found with ServiceLoader) writes the frames; every output is checked against the
 * input once.
 *
 * <pre>bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench [--batch-gib 1] [--reps 10] [--warmup 2]
 *     [--sizes 65536,1048576,4194304] [--levels 1,3,9] [--threads 32] [--peak-tbs 4.8] [--frames-from DIR]</pre>
 * With {@code --frames-from DIR} the frames are the zstd files found under DIR (for example the chunk
 * files of a store written by {@code zarr-direct bench --generate era5}) instead of generated ones.
 * Frames above {@code zarrdirect.cuda.zstdMultiPassMin} decoded bytes take the multi-pass path, as in
 * reads; its per-launch split is printed too.
 */
public final class ZstdKernelBench {

    private ZstdKernelBench() {
    }

    public static void main(String[] args) {
        Map<String, String> a = Args.parse(args);
        double batchGiB = Double.parseDouble(a.getOrDefault("batch-gib", "1"));
        int reps = Integer.parseInt(a.getOrDefault("reps", "10"));
        int warmup = Integer.parseInt(a.getOrDefault("warmup", "2"));
        int threads = Integer.parseInt(a.getOrDefault("threads", "32"));
        double peak = Double.parseDouble(a.getOrDefault("peak-tbs", "4.8")) * 1e12;
        long[] sizes = Arrays.stream(a.getOrDefault("sizes", "65536,1048576,4194304").split(",")).mapToLong(Long::parseLong).toArray();
        int[] levels = Arrays.stream(a.getOrDefault("levels", "1,3,9").split(",")).mapToInt(Integer::parseInt).toArray();
        long seed = Long.parseLong(a.getOrDefault("seed", "42"));
        String framesFrom = a.get("frames-from");

        CodecProvider cpu = ServiceLoader.load(CodecProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("cpu")).findFirst()
                .orElseThrow(() -> new IllegalStateException("the cpu codec provider (backend-cpu) is not on the class path"));
        List<String> table = new ArrayList<>();
        table.add(String.format(Locale.ROOT, "%-9s %-5s %7s %9s %9s %9s %9s %8s %7s", "frame", "level", "frames",
                "ratio", "GB/s med", "GB/s min", "GB/s max", "ms med", "of peak"));
        try (CudaBackend backend = new CudaBackendProvider().open()) {
            Device dev = backend.defaultDevice();
            CudaDevice cd = backend.cudaDevice(dev);
            CudaDriver drv = cd.driver();
            System.out.println("device: " + cd.describe() + "; " + threads + " threads per frame; seed " + seed);
            List<byte[]> fileFrames = new ArrayList<>(), fileData = new ArrayList<>();
            if (framesFrom != null) {
                // real frames (e.g. the chunk files of a store written by `zarr-direct bench --generate`),
                // all of one decoded size; the CPU codec decodes them for the reference bytes
                Codec dec = cpu.create("zstd", Map.of(), Device.CPU).orElseThrow();
                for (java.nio.file.Path f : Data.zstdFiles(java.nio.file.Path.of(framesFrom))) {
                    byte[] fr = Data.read(f);
                    byte[] d = decode((BytesToBytesCodec) dec, fr);
                    if (!fileData.isEmpty() && d.length != fileData.getFirst().length) {
                        continue; // a partial edge chunk: the batch layout needs one size
                    }
                    fileFrames.add(fr);
                    fileData.add(d);
                }
                if (fileFrames.isEmpty()) {
                    throw new IllegalArgumentException("no zstd frames under " + framesFrom);
                }
                sizes = new long[]{fileData.getFirst().length};
                levels = new int[]{0};
                System.out.println("frames: " + fileFrames.size() + " files under " + framesFrom + " of " + sizes[0] + " decoded bytes (level column: 0 = as found)");
            }
            for (long size : sizes) {
                for (int level : levels) {
                    int n = (int) Math.max(1, Math.ceil(batchGiB * (1L << 30) / size));
                    // A few distinct frames, repeated to fill the batch: encoding 1 GiB at level 9 would take minutes.
                    int distinct = framesFrom != null ? Math.min(n, fileFrames.size()) : Math.min(n, 16);
                    Codec enc = cpu.create("zstd", Map.of("level", (long) level), Device.CPU).orElseThrow();
                    List<byte[]> data = new ArrayList<>(fileData.subList(0, framesFrom != null ? distinct : 0));
                    List<byte[]> frames = new ArrayList<>(fileFrames.subList(0, framesFrom != null ? distinct : 0));
                    for (int i = data.size(); i < distinct; i++) {
                        byte[] d = Data.era5Like(seed + size * 31 + level, i, (int) size);
                        data.add(d);
                        frames.add(encode((BytesToBytesCodec) enc, d));
                    }
                    if (framesFrom != null) {
                        // as CudaZstdCodec orders a multi-pass batch (files come in array order)
                        long[] len = new long[distinct];
                        for (int i = 0; i < distinct; i++) len[i] = frames.get(i).length;
                        int[] order = MultiPassLaunch.frameOrder(len);
                        List<byte[]> d2 = new ArrayList<>(), f2 = new ArrayList<>();
                        for (int o : order) {
                            d2.add(data.get(o));
                            f2.add(frames.get(o));
                        }
                        data = d2;
                        frames = f2;
                    }
                    long inTotal = 0;
                    for (int i = 0; i < n; i++) {
                        inTotal += frames.get(i % distinct).length;
                    }
                    long outTotal = size * n;
                    try (Buffer inHost = backend.allocate(dev, MemoryKind.HOST_PINNED, inTotal);
                         Buffer in = backend.allocateUninitialized(dev, MemoryKind.DEVICE, inTotal);
                         Buffer out = backend.allocateUninitialized(dev, MemoryKind.DEVICE, outTotal);
                         Buffer scratch = backend.allocateUninitialized(dev, MemoryKind.DEVICE, CudaZstdCodec.SCRATCH_PER_FRAME * n);
                         Arena arena = Arena.ofConfined()) {
                        long[] so = new long[n];
                        long[] ss = new long[n];
                        long at = 0;
                        for (int i = 0; i < n; i++) {
                            byte[] f = frames.get(i % distinct);
                            MemorySegment.copy(MemorySegment.ofArray(f), 0, inHost.segment(), at, f.length);
                            so[i] = at;
                            ss[i] = f.length;
                            at += f.length;
                        }
                        backend.copy(inHost, 0, in, 0, inTotal);
                        // table: src_offsets | src_sizes | dst_offsets | dst_sizes | status
                        MemorySegment t = arena.allocate(36L * n, 8);
                        for (int i = 0; i < n; i++) {
                            t.setAtIndex(ValueLayout.JAVA_LONG, i, so[i]);
                            t.setAtIndex(ValueLayout.JAVA_LONG, n + i, ss[i]);
                            t.setAtIndex(ValueLayout.JAVA_LONG, 2L * n + i, size * i);
                            t.setAtIndex(ValueLayout.JAVA_LONG, 3L * n + i, size);
                        }
                        try (Buffer tableHost = backend.allocate(dev, MemoryKind.HOST_PINNED, t.byteSize());
                             Buffer devTable = backend.allocateUninitialized(dev, MemoryKind.DEVICE, t.byteSize())) {
                            MemorySegment.copy(t, 0, tableHost.segment(), 0, t.byteSize());
                            backend.copy(tableHost, 0, devTable, 0, t.byteSize());
                            long tb = devTable.address();
                            KernelArgs ka = new KernelArgs().u64(in.address()).u64(tb).u64(tb + 8L * n)
                                    .u64(out.address()).u64(tb + 16L * n).u64(tb + 24L * n)
                                    .u64(scratch.address()).u64(CudaZstdCodec.SCRATCH_PER_FRAME).u64(tb + 32L * n).u32(n);
                            MemorySegment params = ka.build(arena);
                            long fn = cd.function("zd_zstd_decode_batch");
                            // multi-pass path as CudaZstdCodec picks it: the device's policy (zarrdirect.cuda.zstdMultiPassMin)
                            boolean mp = backend.zstdPolicy(cd).multiPass(size);
                            long mpScr = 0, mpSlots = 0, mpMaxSlots = 0;
                            MemorySegment mpX = arena.allocate(8L * (2L * n + 1), 8);
                            for (int i = 0; i < n; i++) {
                                mpX.setAtIndex(ValueLayout.JAVA_LONG, i, mpScr);
                                mpX.setAtIndex(ValueLayout.JAVA_LONG, n + i, mpSlots);
                                mpScr += CudaZstdCodec.mpScratchBytes(size, ss[i]);
                                long slots = CudaZstdCodec.mpSlots(size, ss[i]);
                                mpSlots += slots;
                                mpMaxSlots = Math.max(mpMaxSlots, slots);
                            }
                            mpX.setAtIndex(ValueLayout.JAVA_LONG, 2L * n, mpSlots);
                            MultiPassLaunch mpl = MultiPassLaunch.of(cd);
                            Buffer mpScratch = mp ? backend.allocateUninitialized(dev, MemoryKind.DEVICE, mpScr) : null;
                            Buffer mpXh = backend.allocate(dev, MemoryKind.HOST_PINNED, mpX.byteSize());
                            Buffer mpXd = backend.allocateUninitialized(dev, MemoryKind.DEVICE, mpX.byteSize());
                            MemorySegment.copy(mpX, 0, mpXh.segment(), 0, mpX.byteSize());
                            backend.copy(mpXh, 0, mpXd, 0, mpX.byteSize());
                            long xd = mpXd.address();
                            long msc = mp ? mpScratch.address() : 0L;
                            // deferred execution's refs: frame i's at 4 * size * i, as its output (the table's dst offsets)
                            Buffer mpRefs = mp && mpl.defers(size)
                                    ? backend.allocateUninitialized(dev, MemoryKind.DEVICE, MultiPassLaunch.refBytes(outTotal)) : null;
                            long totalSlots = mpSlots;
                            if (mp) System.out.printf("multi-pass: %d frames, %d block slots, %.2f GiB scratch, %d exec threads,"
                                    + " blocks built %s%s, %s%s%n", n, mpSlots, mpScr / (double) (1L << 30), mpl.execThreads(),
                                    mpl.window() ? "in shared memory" : "in place",
                                    mpRefs != null ? " without waiting for each other (deferred, then resolved)" : "",
                                    mpl.window() && mpl.jump() ? "pointer jumping or " : "",
                                    mpl.sameRound() ? "same-round marks" : "marks a round later");
                            if (mp) System.out.printf("multi-pass entropy: %s, sequences %s%n",
                                    mpl.entropyPairs() ? "two blocks a group" : "one block a group",
                                    mpl.sequences().on() ? String.format(Locale.ROOT,
                                            "a block an item for blocks of %d and more (%d lanes a warp, %d items a group, %d groups a multiprocessor)",
                                            mpl.sequences().min(), mpl.sequences().lanes(), mpl.sequences().itemsPerGroup(),
                                            mpl.sequences().groupsPerSm()) : "in the entropy pass");
                            cd.makeCurrent();
                            long stream = cd.acquireStream();
                            long e0 = drv.eventCreate(CudaDriver.EVENT_DEFAULT);
                            long e1 = drv.eventCreate(CudaDriver.EVENT_DEFAULT);
                            double[] ms = new double[reps];
                            // multi-pass: an event after each launch (five to seven: the sequence pass, deferred
                            // execution's resolve), for a per-pass split
                            long[] passEv = new long[8];
                            for (int k = 0; k < passEv.length; k++) passEv[k] = drv.eventCreate(CudaDriver.EVENT_DEFAULT);
                            double[][] passMs = new double[reps][8];
                            List<String> passNames = new ArrayList<>();
                            int[] at1 = new int[1];
                            Map<String, MemorySegment> mpParams = new java.util.HashMap<>();
                            try {
                                for (int r = -warmup; r < reps; r++) {
                                    drv.eventRecord(e0, stream);
                                    if (mp) {
                                        at1[0] = 0;
                                        passNames.clear();
                                        mpl.enqueue((k, grid, block, shared, ka2) -> {
                                                    passNames.add(k.replace("zd_zstd_mp_", ""));
                                                    // the same arguments every repetition: packed once
                                                    MemorySegment packed = mpParams.computeIfAbsent(k, x -> ka2.build(arena));
                                                    drv.launch(cd.function(k, shared), k, grid, block, shared, stream, packed);
                                                    drv.eventRecord(passEv[at1[0]++], stream);
                                                },
                                                in.address(), tb, tb + 8L * n, out.address(), tb + 16L * n, tb + 24L * n,
                                                msc, xd, xd + 8L * n, tb + 32L * n, n, totalSlots, mpMaxSlots,
                                                n * MultiPassLaunch.minBlocks(size), mpRefs != null ? mpRefs.address() : 0L,
                                                tb + 16L * n);
                                    } else {
                                        drv.launch(fn, "zd_zstd_decode_batch", n, threads, 0, stream, params);
                                    }
                                    drv.eventRecord(e1, stream);
                                    drv.eventSynchronize(e1);
                                    if (r >= 0) {
                                        ms[r] = CudaEvents.elapsedMillis(drv, e0, e1);
                                        if (mp) {
                                            for (int k = 0; k < at1[0]; k++) {
                                                passMs[r][k] = CudaEvents.elapsedMillis(drv, k == 0 ? e0 : passEv[k - 1], passEv[k]);
                                            }
                                        }
                                    }
                                }
                                drv.streamSynchronize(stream, "bench");
                            } finally {
                                drv.eventDestroy(e0);
                                drv.eventDestroy(e1);
                                for (long ev : passEv) drv.eventDestroy(ev);
                                cd.releaseStream(stream);
                            }
                            verify(backend, dev, devTable, out, data, n, size);
                            if (mpRefs != null) mpRefs.close();
                            if (mp) {
                                double[] mid = passMs[java.util.stream.IntStream.range(0, reps).boxed()
                                        .sorted(java.util.Comparator.comparingDouble(r -> ms[r])).toList().get(reps / 2)];
                                StringBuilder split = new StringBuilder();
                                for (int k = 0; k < passNames.size(); k++) {
                                    split.append(k == 0 ? "" : ", ").append(passNames.get(k).replace("_pairs", "").replace("_win", ""))
                                            .append(String.format(Locale.ROOT, " %.3f", mid[k]));
                                }
                                System.out.println("multi-pass split of the median run: " + split + " ms");
                            }
                            Arrays.sort(ms);
                            double med = ms[reps / 2];
                            double gbs = outTotal / (med / 1e3) / 1e9;
                            double frac = (inTotal + outTotal) / (med / 1e3) / peak;
                            table.add(String.format(Locale.ROOT, "%-9s %-5d %7d %9.2f %9.1f %9.1f %9.1f %8.3f %6.1f%%",
                                    human(size), level, n, (double) outTotal / inTotal, gbs,
                                    outTotal / (ms[reps - 1] / 1e3) / 1e9, outTotal / (ms[0] / 1e3) / 1e9, med, 100 * frac));
                            System.out.println(table.getLast());
                        }
                    }
                }
            }
        }
        System.out.println();
        table.forEach(System.out::println);
    }

    static byte[] decode(BytesToBytesCodec dec, byte[] frame) {
        try (HostBuffer in = HostBuffer.allocate(frame.length)) {
            MemorySegment.copy(MemorySegment.ofArray(frame), 0, in.segment(), 0, frame.length);
            long size = dec.decodedSize(in);
            if (size < 0) {
                throw new IllegalArgumentException("a zstd frame without its content size: cannot size the batch");
            }
            try (HostBuffer out = HostBuffer.allocate(size)) {
                CodecBatch b = CodecBatch.of(in, out, "bench frame");
                dec.decode(b);
                b.throwIfFailed();
                return out.segment().toArray(ValueLayout.JAVA_BYTE);
            }
        }
    }

    static byte[] encode(BytesToBytesCodec enc, byte[] d) {
        try (HostBuffer in = HostBuffer.allocate(d.length); HostBuffer out = HostBuffer.allocate(enc.maxEncodedSize(d.length))) {
            MemorySegment.copy(MemorySegment.ofArray(d), 0, in.segment(), 0, d.length);
            CodecBatch b = CodecBatch.of(in, out, "bench frame");
            enc.encode(b);
            b.throwIfFailed();
            return out.segment().asSlice(0, b.written(0)).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static void verify(CudaBackend backend, Device dev, Buffer table, Buffer out, List<byte[]> data, int n, long size) {
        try (Buffer st = backend.allocate(dev, MemoryKind.HOST_PINNED, 4L * n);
             Buffer o = backend.allocate(dev, MemoryKind.HOST_PINNED, out.byteSize())) {
            backend.copy(table, 32L * n, st, 0, 4L * n);
            backend.copy(out, 0, o, 0, out.byteSize());
            for (int i = 0; i < n; i++) {
                int s = st.segment().getAtIndex(ValueLayout.JAVA_INT, i);
                if (s != 0) {
                    throw new IllegalStateException("frame " + i + " failed with status " + s);
                }
                if (o.segment().asSlice(size * i, size).mismatch(MemorySegment.ofArray(data.get(i % data.size()))) != -1) {
                    throw new IllegalStateException("frame " + i + " decoded to different bytes");
                }
            }
        }
    }

    static String human(long bytes) {
        return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }
}
