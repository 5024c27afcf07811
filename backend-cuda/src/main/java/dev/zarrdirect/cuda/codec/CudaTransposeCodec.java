// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.CodecConfigReader;
import dev.zarrdirect.api.codec.spec.TransposeOrder;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.KernelArgs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code transpose} codec on a CUDA device ({@code zd_transpose}: each output element, in C
 * order, read from the input through permuted strides). As the Zarr v3 specification defines it,
 * encoding permutes the axes ({@code encoded.shape[i] = decoded.shape[order[i]]}); decoding is the
 * inverse.
 *
 * <p>When the inputs of a batch are back-to-back chunks and so are the outputs, in the same order
 * (the core's batches), the whole batch is one launch over an extra leading batch axis; otherwise
 * one launch per chunk, all sharing one uploaded parameter table. Inputs and outputs must not
 * overlap. Ranks up to 7 (8 for single chunks).
 */
public final class CudaTransposeCodec implements ArrayToArrayCodec {

    static final String NAME = "transpose";
    static final int THREADS = 256;
    static final int MAX_RANK = 8;

    private final CudaBackend backend;
    private final CudaDevice device;
    private final TransposeOrder order;

    CudaTransposeCodec(CudaBackend backend, CudaDevice device, TransposeOrder order) {
        this.backend = backend;
        this.device = device;
        this.order = order;
    }

    static CudaTransposeCodec create(CudaBackend backend, CudaDevice device, Map<String, Object> configuration) {
        TransposeOrder order = TransposeOrder.parse(NAME, configuration);
        if (order.rank() > MAX_RANK) {
            throw CodecConfigReader.of(NAME, configuration, Set.of(TransposeOrder.FIELD)).bad(TransposeOrder.FIELD,
                    configuration.get(TransposeOrder.FIELD), "of rank at most " + MAX_RANK + " on " + device.device());
        }
        return new CudaTransposeCodec(backend, device, order);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Device device() {
        return device.device();
    }

    @Override
    public String provider() {
        return "cuda";
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

    /**
     * The kernel's parameter words: {@code out_shape[rank] | src_stride[rank]} (strides in elements),
     * with a leading batch axis of {@code batch} chunks when {@code batch > 0}.
     */
    static long[] params(long[] outShape, long[] srcStrides, long batch, long chunkElems) {
        int r = outShape.length;
        if (batch <= 0) {
            long[] p = new long[2 * r];
            System.arraycopy(outShape, 0, p, 0, r);
            System.arraycopy(srcStrides, 0, p, r, r);
            return p;
        }
        long[] p = new long[2 * (r + 1)];
        p[0] = batch;
        System.arraycopy(outShape, 0, p, 1, r);
        p[r + 1] = chunkElems;
        System.arraycopy(srcStrides, 0, p, r + 2, r);
        return p;
    }

    /** True when the addresses are {@code stride} apart in order. */
    static boolean backToBack(long[] addresses, long stride) {
        for (int i = 1; i < addresses.length; i++) {
            if (addresses[i] != addresses[i - 1] + stride) {
                return false;
            }
        }
        return true;
    }

    private void run(CodecBatch batch, String direction, ChunkSpec spec, long[] outShape, long[] srcStrides) {
        long size = spec.byteSize();
        int elem = spec.dataType().byteSize();
        long elems = spec.elementCount();
        List<Integer> items = new ArrayList<>();
        List<long[]> addr = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            try {
                long in = DeviceWork.address(NAME, batch, i, batch.input(i), "input", device);
                long out = DeviceWork.address(NAME, batch, i, batch.output(i), "output", device);
                if (batch.input(i).byteSize() != size) {
                    throw new CorruptChunkException(NAME, NAME + " " + direction + " of " + batch.label(i) + ": input is "
                            + batch.input(i).byteSize() + " bytes, expected " + size + " for " + spec);
                }
                if (batch.output(i).byteSize() < size) {
                    throw new CodecException(NAME, "output of " + batch.output(i).byteSize() + " bytes for "
                            + batch.label(i) + " is smaller than the " + size + " bytes of " + spec);
                }
                items.add(i);
                addr.add(new long[]{in, out});
            } catch (ZarrDirectException e) {
                batch.fail(i, e);
            }
        }
        int n = items.size();
        if (n == 0) {
            return;
        }
        if (elems > 0) {
            long[] ins = addr.stream().mapToLong(a -> a[0]).toArray();
            long[] outs = addr.stream().mapToLong(a -> a[1]).toArray();
            boolean oneLaunch = n > 1 && outShape.length < MAX_RANK && backToBack(ins, size) && backToBack(outs, size);
            int rank = outShape.length;
            try (DeviceWork w = new DeviceWork(backend, device)) {
                if (oneLaunch) {
                    long[] p = params(outShape, srcStrides, n, elems);
                    long table = w.upload(words(w, p));
                    long total = elems * n;
                    w.launch("zd_transpose", w.gridFor(total, THREADS), THREADS, 0, new KernelArgs()
                            .u64(ins[0]).u64(outs[0]).u64(table).u32(rank + 1).u32(elem).u64(total));
                } else {
                    long table = w.upload(words(w, params(outShape, srcStrides, 0, elems)));
                    for (int k = 0; k < n; k++) {
                        w.launch("zd_transpose", w.gridFor(elems, THREADS), THREADS, 0, new KernelArgs()
                                .u64(ins[k]).u64(outs[k]).u64(table).u32(rank).u32(elem).u64(elems));
                    }
                }
                w.sync("zd_transpose " + direction + " of " + n + " chunks of " + spec);
            }
        }
        for (int i : items) {
            batch.complete(i, size);
        }
    }

    private static MemorySegment words(DeviceWork w, long[] p) {
        MemorySegment s = w.arena.allocate(8L * p.length, 8);
        MemorySegment.copy(p, 0, s, ValueLayout.JAVA_LONG, 0, p.length);
        return s;
    }

    @Override
    public String toString() {
        return "CudaTransposeCodec[" + device.device() + ", " + order + "]";
    }
}
