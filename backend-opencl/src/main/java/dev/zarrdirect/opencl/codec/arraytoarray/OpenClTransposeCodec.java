package dev.zarrdirect.opencl.codec.arraytoarray;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.RegionDescriptors;
import dev.zarrdirect.opencl.codec.BatchRun;
import dev.zarrdirect.opencl.codec.ClCodecConfig;
import dev.zarrdirect.opencl.codec.DeviceItems;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.lwjgl.opencl.CL10.CL_MEM_READ_WRITE;

/**
 * The {@code transpose} codec on an OpenCL device: each chunk is one row of a
 * {@code zd_copy_regions} launch that writes the output in C order and reads the input with
 * permuted strides ({@code encoded.shape[i] = decoded.shape[order[i]]}, as the Zarr v3
 * specification defines it). One launch per batch. When input and output overlap in one
 * {@code cl_mem} (and the order is not the identity) the input is first copied aside on the device.
 */
public final class OpenClTransposeCodec implements ArrayToArrayCodec {

    static final String NAME = "transpose";

    private final int[] order;
    private final int[] inverse;
    private final Device device;
    private final OpenClBackend backend;

    private OpenClTransposeCodec(int[] order, Device device, OpenClBackend backend) {
        this.order = order;
        this.inverse = new int[order.length];
        for (int i = 0; i < order.length; i++) {
            inverse[order[i]] = i;
        }
        this.device = device;
        this.backend = backend;
    }

    /** Reads {@code {"order": [permutation of 0..rank-1]}}; {@code backend} may be null. */
    public static OpenClTransposeCodec create(Map<String, Object> configuration, Device device, OpenClBackend backend) {
        ClCodecConfig c = ClCodecConfig.of(NAME, configuration, Set.of("order"));
        List<?> list = c.list("order");
        int n = list.size();
        int[] order = new int[n];
        boolean[] seen = new boolean[n];
        for (int i = 0; i < n; i++) {
            Object v = list.get(i);
            if (!(v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte)) {
                throw c.bad("order", list, "a permutation of 0.." + (n - 1) + ", but element " + i + " is " + v);
            }
            long a = ((Number) v).longValue();
            if (a < 0 || a >= n) {
                throw c.bad("order", list, "a permutation of 0.." + (n - 1) + ", but element " + i + " is " + a
                        + ", out of range");
            }
            if (seen[(int) a]) {
                throw c.bad("order", list, "a permutation of 0.." + (n - 1) + ", but axis " + a + " appears twice");
            }
            seen[(int) a] = true;
            order[i] = (int) a;
        }
        return new OpenClTransposeCodec(order, device, backend);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public String provider() {
        return "opencl";
    }

    private void checkRank(ChunkSpec spec) {
        if (spec.rank() != order.length) {
            throw new IllegalArgumentException("codec \"" + NAME + "\" with order " + Arrays.toString(order)
                    + " needs rank " + order.length + ", but the chunk is " + spec + " of rank " + spec.rank());
        }
    }

    @Override
    public ChunkSpec encodedSpec(ChunkSpec decoded) {
        checkRank(decoded);
        long[] d = decoded.shape();
        long[] e = new long[d.length];
        for (int i = 0; i < d.length; i++) {
            e[i] = d[order[i]];
        }
        return new ChunkSpec(decoded.dataType(), e);
    }

    @Override
    public void encode(ChunkSpec decoded, CodecBatch batch) {
        ChunkSpec encoded = encodedSpec(decoded);
        long[] inStrides = strides(decoded.shape());
        long[] s = new long[order.length];
        for (int i = 0; i < order.length; i++) {
            s[i] = inStrides[order[i]];
        }
        run(batch, "encode", decoded, encoded.shape(), s);
    }

    @Override
    public void decode(ChunkSpec decoded, CodecBatch batch) {
        ChunkSpec encoded = encodedSpec(decoded);
        long[] inStrides = strides(encoded.shape());
        long[] s = new long[order.length];
        for (int j = 0; j < order.length; j++) {
            s[j] = inStrides[inverse[j]];
        }
        run(batch, "decode", decoded, decoded.shape(), s);
    }

    private void run(CodecBatch batch, String direction, ChunkSpec spec, long[] outShape, long[] inStrides) {
        long size = spec.byteSize();
        int elem = spec.dataType().byteSize();
        long[] inByteStrides = new long[inStrides.length];
        for (int i = 0; i < inStrides.length; i++) {
            inByteStrides[i] = inStrides[i] * elem;
        }
        long[] outByteStrides = strides(outShape);
        for (int i = 0; i < outByteStrides.length; i++) {
            outByteStrides[i] *= elem;
        }
        BatchRun.run(backend, NAME, direction, batch, new BatchRun.Work() {
            @Override
            public boolean check(int i) {
                if (batch.input(i).byteSize() != size) {
                    throw new CorruptChunkException(NAME, NAME + " " + direction + " of " + batch.label(i)
                            + ": input is " + batch.input(i).byteSize() + " bytes, expected " + size + " for " + spec);
                }
                if (batch.output(i).byteSize() < size) {
                    throw new IllegalArgumentException("output of " + batch.output(i).byteSize()
                            + " bytes is smaller than the " + size + " bytes of " + spec);
                }
                return true;
            }

            @Override
            public void launch(OpenClBackend b, DeviceItems items, DeviceItems.Group g, long[] written) {
                RegionDescriptors rows = new RegionDescriptors();
                RegionDescriptors asideRows = new RegionDescriptors();
                long aside = 0;
                try {
                    List<Integer> overlapping = new java.util.ArrayList<>();
                    for (int i : g.items()) {
                        long inOff = items.in(i).offset();
                        long outOff = items.out(i).offset();
                        boolean overlaps = g.inMem() == g.outMem() && inOff < outOff + size && outOff < inOff + size;
                        if (overlaps && inOff == outOff && isIdentity()) {
                            continue; // in place, nothing moves
                        }
                        if (overlaps) {
                            overlapping.add(i);
                        } else {
                            rows.add(inOff, inByteStrides, outOff, outByteStrides, outShape, elem, false);
                        }
                    }
                    if (!overlapping.isEmpty()) {
                        // Input and output share bytes: read from a copy made on the device first.
                        aside = b.createMem(size * overlapping.size(), CL_MEM_READ_WRITE, "transpose input copies");
                        long at = 0;
                        for (int i : overlapping) {
                            b.copyMem(g.inMem(), items.in(i).offset(), aside, at, size);
                            asideRows.add(at, inByteStrides, items.out(i).offset(), outByteStrides, outShape, elem,
                                    false);
                            at += size;
                        }
                    }
                    b.launchCopy(g.inMem(), g.outMem(), rows);
                    b.launchCopy(aside, g.outMem(), asideRows);
                } finally {
                    b.releaseMem(aside);
                }
                for (int i : g.items()) {
                    written[i] = size;
                }
            }
        });
    }

    private boolean isIdentity() {
        for (int i = 0; i < order.length; i++) {
            if (order[i] != i) {
                return false;
            }
        }
        return true;
    }

    private static long[] strides(long[] shape) {
        long[] s = new long[shape.length];
        long acc = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= shape[i];
        }
        return s;
    }
}
