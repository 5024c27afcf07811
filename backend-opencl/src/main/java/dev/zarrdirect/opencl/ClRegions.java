// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.Region;
import dev.zarrdirect.api.buffer.StridedCopy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.lwjgl.opencl.CL10.*;

/**
 * The region operations of one {@link OpenClBackend}: fills, batched strided region copies and
 * fills through the {@code zd_copy_regions} and {@code zd_fill_regions} kernels of
 * {@code zd_backend.cl} (rows built by {@link RegionDescriptors}), and the loader's plane gather.
 * The {@code cl_mem}s they stage through come from {@link ClMemory}. The backend's
 * {@code fill}, {@code copyRegions}, {@code fillRegions} and {@code gather} run here; codecs call
 * {@link #launchCopy} with rows of their own.
 *
 * <h2>Batch assembly</h2>
 * {@link OpenClBackend#gather} runs a loader's plane gather as one launch of the kernels module's
 * {@code zd_gather} ({@code OpenClGather}).
 *
 * <p>Thread-safe; every method returns when its work is complete. The backend checks that it is
 * open before it calls in here.
 */
public final class ClRegions {

    private static final int MAX_GROUPS_PER_ROW = 1024;

    private final OpenClBackend backend;
    private final ClMemory memory;
    private final int localSize;
    private final OpenClGather gather;

    /** Region operations of {@code backend}, its byte-level kernels run with {@code localSize} work-items. */
    ClRegions(OpenClBackend backend, ClMemory memory, int localSize) {
        this.backend = backend;
        this.memory = memory;
        this.localSize = localSize;
        this.gather = new OpenClGather(backend);
    }

    // ------------------------------------------------------------------ fills

    /** The body of {@link OpenClBackend#fill}, which documents it. */
    void fill(Buffer dst, long offset, long count, MemorySegment pattern) {
        long p = pattern.byteSize();
        if (p < 1 || p > 16) {
            throw new IllegalArgumentException("fill pattern must be 1 to 16 bytes, got " + p + " bytes");
        }
        if (count < 0) {
            throw new IllegalArgumentException("negative fill count " + count + " for " + dst);
        }
        long total = Math.multiplyExact(count, p);
        ClMemory.checkRange("fill destination", dst, offset, total);
        OpenClBuffer d = backend.device(dst, "fill destination");
        if (total == 0) {
            return;
        }
        if (d == null) {
            StridedCopy.fillRun(dst.segment(), offset, count, pattern, StridedCopy.isZero(pattern));
        } else {
            fillDevice(d.mem(), d.offset() + offset, total, pattern);
        }
    }

    /**
     * Fills {@code total} bytes of {@code mem} from {@code off} with {@code pattern}:
     * {@code clEnqueueFillBuffer} where {@link ClMemory#fillBuffer} can, else {@code zd_fill_regions}.
     */
    void fillDevice(long mem, long off, long total, MemorySegment pattern) {
        if (memory.fillBuffer(mem, off, total, pattern)) {
            return;
        }
        long p = pattern.byteSize();
        RegionDescriptors rows = new RegionDescriptors();
        rows.add(0, new long[]{0}, off, new long[]{p}, new long[]{total / p}, (int) p, true);
        launchFill(mem, rows, pattern);
    }

    // ------------------------------------------------------------------ region copies and fills

    /** The body of {@link OpenClBackend#copyRegions}, which documents it. */
    void copyRegions(List<Region.Copy> copies, int elemSize) {
        if (elemSize < 1) {
            throw new IllegalArgumentException("element size must be positive, got " + elemSize);
        }
        record Pair(long src, long dst) {
        }
        Map<Pair, RegionDescriptors> launches = new LinkedHashMap<>();
        List<Region.Copy> hostOnly = new ArrayList<>();
        List<Region.Copy> uploads = new ArrayList<>();
        List<Region.Copy> downloads = new ArrayList<>();
        for (Region.Copy c : copies) {
            long[] span = checkRegion("region copy source", c.src(), elemSize);
            checkRegion("region copy destination", c.dst(), elemSize);
            if (span == null) {
                continue; // empty box
            }
            OpenClBuffer s = backend.device(c.src().buffer(), "region copy source");
            OpenClBuffer d = backend.device(c.dst().buffer(), "region copy destination");
            if (s == null && d == null) {
                hostOnly.add(c);
            } else if (s == null) {
                uploads.add(c);
            } else if (d == null) {
                downloads.add(c);
            } else {
                launches.computeIfAbsent(new Pair(s.mem(), d.mem()), k -> new RegionDescriptors())
                        .add(s.offset() + c.src().offset(), c.src().byteStrides(), d.offset() + c.dst().offset(),
                                c.dst().byteStrides(), c.src().extent(), elemSize, false);
            }
        }
        for (Region.Copy c : hostOnly) {
            StridedCopy.copy(c.src().buffer().segment(), c.src().offset(), c.src().byteStrides(),
                    c.dst().buffer().segment(), c.dst().offset(), c.dst().byteStrides(), c.src().extent(), elemSize);
        }
        long upMem = 0;
        long downMem = 0;
        try {
            if (!uploads.isEmpty()) {
                long total = 0;
                for (Region.Copy c : uploads) {
                    total += c.src().elementCount() * elemSize;
                }
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment staging = a.allocate(total, 64);
                    long at = 0;
                    for (Region.Copy c : uploads) {
                        long[] ext = c.src().extent();
                        long[] packed = StridedCopy.cByteStrides(ext, elemSize);
                        StridedCopy.copy(c.src().buffer().segment(), c.src().offset(), c.src().byteStrides(), staging,
                                at, packed, ext, elemSize);
                        at += c.src().elementCount() * elemSize;
                    }
                    upMem = memory.createMemFrom(staging, "packed region-copy sources");
                }
                long at = 0;
                for (Region.Copy c : uploads) {
                    OpenClBuffer d = (OpenClBuffer) c.dst().buffer();
                    long[] ext = c.src().extent();
                    launches.computeIfAbsent(new Pair(upMem, d.mem()), k -> new RegionDescriptors())
                            .add(at, StridedCopy.cByteStrides(ext, elemSize), d.offset() + c.dst().offset(),
                                    c.dst().byteStrides(), ext, elemSize, false);
                    at += c.src().elementCount() * elemSize;
                }
            }
            long downTotal = 0;
            for (Region.Copy c : downloads) {
                downTotal += c.src().elementCount() * elemSize;
            }
            if (!downloads.isEmpty()) {
                downMem = memory.createMem(downTotal, CL_MEM_READ_WRITE, "packed region-copy destinations");
                long at = 0;
                for (Region.Copy c : downloads) {
                    OpenClBuffer s = (OpenClBuffer) c.src().buffer();
                    long[] ext = c.src().extent();
                    launches.computeIfAbsent(new Pair(s.mem(), downMem), k -> new RegionDescriptors())
                            .add(s.offset() + c.src().offset(), c.src().byteStrides(), at,
                                    StridedCopy.cByteStrides(ext, elemSize), ext, elemSize, false);
                    at += c.src().elementCount() * elemSize;
                }
            }
            for (var e : launches.entrySet()) {
                launchCopy(e.getKey().src(), e.getKey().dst(), e.getValue());
            }
            if (!downloads.isEmpty()) {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment staging = a.allocate(downTotal, 64);
                    memory.read(downMem, 0, staging, 0, downTotal);
                    long at = 0;
                    for (Region.Copy c : downloads) {
                        long[] ext = c.src().extent();
                        StridedCopy.copy(staging, at, StridedCopy.cByteStrides(ext, elemSize),
                                c.dst().buffer().segment(), c.dst().offset(), c.dst().byteStrides(), ext, elemSize);
                        at += c.src().elementCount() * elemSize;
                    }
                }
            }
        } finally {
            memory.releaseMem(upMem);
            memory.releaseMem(downMem);
        }
    }

    /** The body of {@link OpenClBackend#fillRegions}, which documents it. */
    void fillRegions(List<Region> regions, MemorySegment pattern) {
        int p = (int) pattern.byteSize();
        if (p < 1 || p > 16) {
            throw new IllegalArgumentException("fill pattern must be 1 to 16 bytes, got " + p + " bytes");
        }
        Map<Long, RegionDescriptors> launches = new LinkedHashMap<>();
        for (Region r : regions) {
            if (checkRegion("fill region", r, p) == null) {
                continue;
            }
            OpenClBuffer d = backend.device(r.buffer(), "fill region");
            if (d == null) {
                StridedCopy.fill(r.buffer().segment(), r.offset(), r.byteStrides(), r.extent(), pattern);
            } else {
                launches.computeIfAbsent(d.mem(), k -> new RegionDescriptors())
                        .add(0, r.byteStrides(), d.offset() + r.offset(), r.byteStrides(), r.extent(), p, true);
            }
        }
        for (var e : launches.entrySet()) {
            launchFill(e.getKey(), e.getValue(), pattern);
        }
    }

    /** One launch of {@code zd_copy_regions} for {@code rows} from {@code src} to {@code dst}. */
    public void launchCopy(long src, long dst, RegionDescriptors rows) {
        if (rows.isEmpty()) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment table = a.allocate(rows.tableBytes(), 8);
            rows.writeTo(table, 0);
            long t = memory.createMemFrom(table, "region-copy table");
            try {
                backend.launch(backend.backendKernel("zd_copy_regions"), global(rows), new long[]{localSize, 1},
                        new ClKernel.Mem(src), new ClKernel.Mem(dst), new ClKernel.Mem(t),
                        new ClKernel.U32(rows.size()));
            } finally {
                clReleaseMemObject(t);
            }
        }
    }

    private void launchFill(long dst, RegionDescriptors rows, MemorySegment pattern) {
        if (rows.isEmpty()) {
            return;
        }
        int p = (int) pattern.byteSize();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment table = a.allocate(40 + rows.tableBytes(), 8);
            for (int i = 0; i < 32; i++) {
                table.set(ValueLayout.JAVA_BYTE, i, pattern.get(ValueLayout.JAVA_BYTE, i % p));
            }
            table.set(ValueLayout.JAVA_LONG_UNALIGNED, 32, p);
            rows.writeTo(table, 40);
            long t = memory.createMemFrom(table, "region-fill table");
            try {
                backend.launch(backend.backendKernel("zd_fill_regions"), global(rows), new long[]{localSize, 1},
                        new ClKernel.Mem(dst), new ClKernel.Mem(t), new ClKernel.U32(rows.size()));
            } finally {
                clReleaseMemObject(t);
            }
        }
    }

    /** The NDRange of a row launch: dimension 0 strides over units, dimension 1 is the row. */
    private long[] global(RegionDescriptors rows) {
        long groups = Math.clamp((rows.maxUnits() + localSize * 4L - 1) / (localSize * 4L), 1, MAX_GROUPS_PER_ROW);
        return new long[]{groups * localSize, rows.size()};
    }

    // ------------------------------------------------------------------ batch assembly

    /** The body of {@link OpenClBackend#gather}, which documents it. */
    void gather(PlaneGather gather) {
        OpenClBuffer s = backend.device(gather.src(), "gather source");
        OpenClBuffer d = backend.device(gather.dst(), "gather output");
        if (s == null && d == null) {
            gather.runOnHost(0, gather.planes()); // both host memory: what Backend.gather does by default
        } else if (s == null || d == null) {
            throw new UnsupportedOperationException("the opencl backend gathers planes within one memory: the source "
                    + gather.src() + " and the output " + gather.dst() + " are not both on " + backend.device()
                    + " (or both on the host); copy the source to the output's side first");
        } else {
            this.gather.run(gather, s, d);
        }
    }

    /** The gather's machinery, for tests of the staged path. */
    OpenClGather gatherKernel() {
        return gather;
    }

    /** Releases the gather's pooled tables; the backend calls this when it closes. */
    void close() {
        gather.close();
    }

    // ------------------------------------------------------------------ checks

    /** The byte span [lo, hi) of a region's elements, or null when it is empty; throws when it leaves its buffer. */
    private static long[] checkRegion(String role, Region r, int elemSize) {
        long[] ext = r.extent();
        long[] st = r.byteStrides();
        long lo = r.offset();
        long hi = r.offset();
        for (int i = 0; i < ext.length; i++) {
            if (ext[i] < 0) {
                throw new IllegalArgumentException("negative extent in " + role + " " + java.util.Arrays.toString(ext));
            }
            if (ext[i] == 0) {
                return null;
            }
            long reach = Math.multiplyExact(ext[i] - 1, st[i]);
            if (reach < 0) {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        hi += elemSize;
        if (lo < 0 || hi > r.buffer().byteSize()) {
            throw new IndexOutOfBoundsException(role + " of extent " + java.util.Arrays.toString(ext) + ", strides "
                    + java.util.Arrays.toString(st) + " at offset " + r.offset() + " touches bytes [" + lo + ", " + hi
                    + ") outside " + r.buffer() + " of " + r.buffer().byteSize() + " bytes");
        }
        return new long[]{lo, hi};
    }
}
