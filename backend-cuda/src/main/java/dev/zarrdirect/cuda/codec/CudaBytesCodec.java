// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.codec.ArrayToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.BytesEndian;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.KernelArgs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code bytes} codec on a CUDA device. Little-endian (and one-byte types) is the identity: the
 * inputs are copied to the outputs in one scatter launch (nothing at all when they are the same
 * memory). Big-endian copies the same way and then reverses each swap unit in place with
 * {@code zd_byteswap}, one launch per run of outputs that lie back to back in memory (one launch for
 * the core's batches, whose outputs are consecutive slices).
 */
public final class CudaBytesCodec implements ArrayToBytesCodec {

    static final String NAME = "bytes";
    static final int THREADS = 256;

    private final CudaBackend backend;
    private final CudaDevice device;
    private final BytesEndian endian;

    CudaBytesCodec(CudaBackend backend, CudaDevice device, BytesEndian endian) {
        this.backend = backend;
        this.device = device;
        this.endian = endian;
    }

    static CudaBytesCodec create(CudaBackend backend, CudaDevice device, Map<String, Object> configuration) {
        return new CudaBytesCodec(backend, device, BytesEndian.parse(NAME, configuration));
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
    public long encodedSize(ChunkSpec decoded) {
        endian.needsSwap(decoded.dataType());
        return decoded.byteSize();
    }

    @Override
    public long maxEncodedSize(ChunkSpec decoded) {
        return encodedSize(decoded);
    }

    @Override
    public void decode(ChunkSpec decoded, CodecBatch batch) {
        run(decoded, batch, "decode");
    }

    @Override
    public void encode(ChunkSpec decoded, CodecBatch batch) {
        run(decoded, batch, "encode");
    }

    private void run(ChunkSpec spec, CodecBatch batch, String direction) {
        boolean swap = endian.needsSwap(spec.dataType());
        long size = spec.byteSize();
        int unit = spec.dataType().swapUnit();
        DeviceCopies copies = new DeviceCopies();
        List<long[]> outs = new ArrayList<>(); // {address, item}
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
                copies.add(in, out, size);
                outs.add(new long[]{out, i});
            } catch (ZarrDirectException e) {
                batch.fail(i, e);
            }
        }
        if (outs.isEmpty()) {
            return;
        }
        copies.run(backend, device, NAME + " " + direction + " of " + outs.size() + " chunks");
        if (swap && size > 0) {
            try (DeviceWork w = new DeviceWork(backend, device)) {
                for (long[] run : runs(outs, size)) {
                    long elems = run[1] / unit;
                    w.launch("zd_byteswap", w.gridFor(elems, THREADS), THREADS, 0,
                            new KernelArgs().u64(run[0]).u64(elems).u32(unit));
                }
                w.sync("zd_byteswap over " + outs.size() + " chunks");
            }
        }
        for (long[] o : outs) {
            batch.complete((int) o[1], size);
        }
    }

    /** Runs of back-to-back outputs of {@code size} bytes each: {@code {address, bytes}}. */
    static List<long[]> runs(List<long[]> outs, long size) {
        List<long[]> sorted = new ArrayList<>(outs);
        sorted.sort((a, b) -> Long.compareUnsigned(a[0], b[0]));
        List<long[]> runs = new ArrayList<>();
        long[] cur = null;
        for (long[] o : sorted) {
            if (cur != null && cur[0] + cur[1] == o[0]) {
                cur[1] += size;
            } else if (cur == null || o[0] >= cur[0] + cur[1]) {
                cur = new long[]{o[0], size};
                runs.add(cur);
            } else {
                throw new CodecException(NAME, "outputs of one batch overlap at 0x" + Long.toHexString(o[0]));
            }
        }
        return runs;
    }

    @Override
    public String toString() {
        return "CudaBytesCodec[" + device.device() + ", " + endian + "]";
    }
}
