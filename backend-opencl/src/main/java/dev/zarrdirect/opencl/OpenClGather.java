// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.kernels.GatherTable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedDeque;

import static org.lwjgl.opencl.CL10.CL_DEVICE_EXTENSIONS;
import static org.lwjgl.opencl.CL10.CL_MEM_READ_ONLY;

/**
 * {@link PlaneGather} on an OpenCL device: one launch of {@code zd_gather} (the kernels module's
 * {@code opencl/zd_gather.cl}) per gather, after one upload of its plane table
 * ({@link GatherTable}). Dimension 1 of the NDRange strides over the planes, dimension 0 over the
 * elements of each; every plane starting 16-aligned gets four elements per access.
 *
 * <h2>Tables</h2>
 * The tables' device buffers are pooled: a gather takes one large enough (at least 4 KiB, room for
 * 170 planes), writes its table into it and gives it back after the launch, so a loader's gathers
 * allocate nothing on the device after the first. The pool holds one buffer per gather running at
 * once and is released with the backend ({@link #close()}).
 *
 * <h2>Float64 without {@code cl_khr_fp64}</h2>
 * A device without double precision cannot run a float64 gather. It is then run on the host
 * instead, with the same bytes: each source plane is read back, the planes are gathered on the
 * calling thread and each output plane is written back ({@link #gatherStaged}); the first such
 * gather says so once in the log. It is correct but moves every byte over the bus twice.
 */
final class OpenClGather {

    static final String SOURCE = KernelSource.KERNELS_PREFIX + "opencl/zd_gather.cl";
    /** No fast-math: the kernel's fma, conversions and NaN tests must keep their IEEE meaning. */
    static final String OPTIONS = "";
    /** Groups along dimension 0 at most, per plane: enough to fill a device when there are few planes. */
    static final long MAX_GROUPS = 1024;
    /** The smallest table buffer the pool makes. */
    static final long MIN_TABLE = 4096;

    /** A pooled table buffer: a {@code cl_mem} of {@code bytes}. */
    private record Table(long mem, long bytes) {
    }

    private final ConcurrentLinkedDeque<Table> tables = new ConcurrentLinkedDeque<>();

    private final OpenClBackend backend;
    private volatile String source;
    private volatile Boolean fp64;
    private volatile boolean warned;

    OpenClGather(OpenClBackend backend) {
        this.backend = backend;
    }

    /** True when the device has {@code cl_khr_fp64}, which the kernel's float64 path needs. */
    boolean hasFp64() {
        Boolean f = fp64;
        if (f == null) {
            String ext = ClDevices.deviceString(backend.deviceId(), CL_DEVICE_EXTENSIONS);
            f = (" " + ext + " ").contains(" cl_khr_fp64 ");
            fp64 = f;
        }
        return f;
    }

    ClKernel kernel() {
        String s = source;
        if (s == null) {
            s = KernelSource.loadFrom(backend.openClSettings().kernelsDir(), SOURCE, KernelSource.KERNELS_PREFIX);
            source = s;
        }
        return backend.programs().kernel(SOURCE, s, OPTIONS, "zd_gather");
    }

    /** Runs {@code g} whose source and output are {@code s} and {@code d}, buffers of this backend. */
    void run(PlaneGather g, OpenClBuffer s, OpenClBuffer d) {
        if (g.planes() == 0) {
            return;
        }
        boolean f64 = DataType.FLOAT64.equals(g.srcType());
        if (f64 && !hasFp64()) {
            if (!warned) {
                warned = true;
                System.getLogger(OpenClGather.class.getName()).log(System.Logger.Level.WARNING, "a float64 plane gather"
                        + " on " + backend.device() + " (" + backend.describe() + ") runs on the host: the device has no"
                        + " cl_khr_fp64; convert the source to float32 to keep it on the device");
            }
            gatherStaged(g, s, d);
            return;
        }
        int es = g.srcType().byteSize();
        int ed = g.dstType().byteSize();
        long n = g.planeElements();
        long srcAt = s.offset() + g.srcOffset();
        long dstAt = d.offset() + g.dstOffset();
        long srcPlanes = (s.byteSize() - g.srcOffset()) / (n * es);
        long dstPlanes = (d.byteSize() - g.dstOffset()) / (n * ed);
        int[] writers = GatherTable.writers(g.dstPlane());
        int access = backend.memory().baseAlignBytes() >= 16 ? GatherTable.accessFlags(srcAt, es, dstAt, ed, n)
                : GatherTable.BYTES;
        int flags = GatherTable.typeFlags(es, ed, g.dstType() == PlaneGather.Output.BFLOAT16, g.replaceNan()) | access;
        long units = (flags & GatherTable.VEC4) != 0 ? n / 4 : n;
        int local = backend.localSize();
        long groups = Math.clamp((units + local - 1) / local, 1, MAX_GROUPS);
        long planesY = Math.min(writers.length, 65535);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment host = a.allocate(GatherTable.bytes(writers.length), 8);
            GatherTable.write(host, 0, writers, g.srcPlane(), g.dstPlane(), g.scale(), g.shift());
            Table table = takeTable(host.byteSize());
            try {
                backend.memory().write(table.mem(), 0, host, 0, host.byteSize());
                backend.launch(kernel(), new long[]{groups * local, planesY}, new long[]{local, 1},
                        new ClKernel.Mem(s.mem()), new ClKernel.U64(srcAt), new ClKernel.U64(srcPlanes),
                        new ClKernel.Mem(d.mem()), new ClKernel.U64(dstAt), new ClKernel.U64(dstPlanes),
                        new ClKernel.Mem(table.mem()), new ClKernel.U32(writers.length), new ClKernel.U64(n),
                        new ClKernel.U32(flags), new ClKernel.U32(Float.floatToRawIntBits(g.nanValue())));
            } finally {
                tables.push(table);
            }
        }
    }

    /** A pooled table buffer of at least {@code bytes}; a smaller one taken from the pool is replaced. */
    private Table takeTable(long bytes) {
        Table t = tables.poll();
        if (t != null && t.bytes() >= bytes) {
            return t;
        }
        if (t != null) {
            backend.memory().releaseMem(t.mem());
        }
        long size = Math.max(MIN_TABLE, Long.highestOneBit(bytes - 1) << 1);
        return new Table(backend.memory().createMem(size, CL_MEM_READ_ONLY, "plane gather table"), size);
    }

    /** Releases the pooled tables; the backend calls this when it closes. */
    void close() {
        Table t;
        while ((t = tables.poll()) != null) {
            backend.memory().releaseMem(t.mem());
        }
    }

    /** Table buffers in the pool, for tests. */
    int pooledTables() {
        return tables.size();
    }

    /**
     * Runs {@code g} on the host through staging: the source plane of each plane read back, the
     * gather run on the host into staging, and each output plane written to its place. The same bytes
     * as the kernel; for devices that cannot run it.
     */
    void gatherStaged(PlaneGather g, OpenClBuffer s, OpenClBuffer d) {
        int[] writers = GatherTable.writers(g.dstPlane());
        int k = writers.length;
        long n = g.planeElements();
        long sb = n * g.srcType().byteSize();
        long db = n * g.dstType().byteSize();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(Math.max(1, sb * k), 16);
            MemorySegment dst = a.allocate(Math.max(1, db * k), 16);
            long[] sp = new long[k];
            long[] dp = new long[k];
            float[] sc = new float[k];
            float[] sh = new float[k];
            for (int j = 0; j < k; j++) {
                int p = writers[j];
                backend.memory().read(s.mem(), s.offset() + g.srcOffset() + g.srcPlane()[p] * sb, src, j * sb, sb);
                sp[j] = j;
                dp[j] = j;
                sc[j] = g.scale()[p];
                sh[j] = g.shift()[p];
            }
            HostBuffer hs = HostBuffer.wrap(src.asSlice(0, sb * k));
            HostBuffer hd = HostBuffer.wrap(dst.asSlice(0, db * k));
            new PlaneGather(hs, 0, g.srcType(), hd, 0, g.dstType(), n, sp, dp, sc, sh, g.replaceNan(), g.nanValue())
                    .runOnHost(0, k);
            for (int j = 0; j < k; j++) {
                backend.memory().write(d.mem(), d.offset() + g.dstOffset() + g.dstPlane()[writers[j]] * db, dst, j * db,
                        db);
            }
        }
    }
}
