// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.arraytoarray;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.TransposeOrder;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.RegionDescriptors;
import dev.zarrdirect.opencl.codec.BatchRun;
import dev.zarrdirect.opencl.codec.OpenClDeviceCodec;
import dev.zarrdirect.opencl.codec.DeviceItems;

import java.util.List;
import java.util.Map;

import static org.lwjgl.opencl.CL10.CL_MEM_READ_WRITE;

/**
 * The {@code transpose} codec on an OpenCL device: each chunk is one row of a
 * {@code zd_copy_regions} launch that writes the output in C order and reads the input with
 * permuted strides ({@code encoded.shape[i] = decoded.shape[order[i]]}, as the Zarr v3
 * specification defines it). One launch per batch. When input and output overlap in one
 * {@code cl_mem} (and the order is not the identity) the input is first copied aside on the device.
 */
public final class OpenClTransposeCodec extends OpenClDeviceCodec implements ArrayToArrayCodec {

    static final String NAME = "transpose";

    private final TransposeOrder order;

    private OpenClTransposeCodec(TransposeOrder order, Device device, OpenClBackend backend) {
        super(NAME, device, backend);
        this.order = order;
    }

    /** Reads {@code {"order": [permutation of 0..rank-1]}}; {@code backend} may be null. */
    public static OpenClTransposeCodec create(Map<String, Object> configuration, Device device, OpenClBackend backend) {
        return new OpenClTransposeCodec(TransposeOrder.parse(NAME, configuration), device, backend);
    }

    @Override
    public ChunkSpec encodedSpec(ChunkSpec decoded) {
        return order.encodedSpec(decoded);
    }

    @Override
    public void encode(ChunkSpec decoded, CodecBatch batch) {
        run(batch, "encode", decoded, encodedSpec(decoded).shape(), order.encodeInputStrides(decoded));
    }

    @Override
    public void decode(ChunkSpec decoded, CodecBatch batch) {
        run(batch, "decode", decoded, decoded.shape(), order.decodeInputStrides(decoded));
    }

    private void run(CodecBatch batch, String direction, ChunkSpec spec, long[] outShape, long[] inStrides) {
        long size = spec.byteSize();
        int elem = spec.dataType().byteSize();
        long[] inByteStrides = new long[inStrides.length];
        for (int i = 0; i < inStrides.length; i++) {
            inByteStrides[i] = inStrides[i] * elem;
        }
        long[] outByteStrides = TransposeOrder.cStrides(outShape);
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
                        if (overlaps && inOff == outOff && order.isIdentity()) {
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
                        aside = b.memory().createMem(size * overlapping.size(), CL_MEM_READ_WRITE,
                                "transpose input copies");
                        long at = 0;
                        for (int i : overlapping) {
                            b.memory().copyMem(g.inMem(), items.in(i).offset(), aside, at, size);
                            asideRows.add(at, inByteStrides, items.out(i).offset(), outByteStrides, outShape, elem,
                                    false);
                            at += size;
                        }
                    }
                    b.regions().launchCopy(g.inMem(), g.outMem(), rows);
                    b.regions().launchCopy(aside, g.outMem(), asideRows);
                } finally {
                    b.memory().releaseMem(aside);
                }
                for (int i : g.items()) {
                    written[i] = size;
                }
            }
        });
    }
}
