// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.ShuffleSpec;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.KernelArgs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;

/**
 * numcodecs' byte {@code shuffle} filter on a CUDA device, both directions. Shuffling {@code n}
 * elements of {@code elementsize} bytes stores byte 0 of every element, then byte 1, and so on: a
 * transpose of an {@code [n, elementsize]} byte matrix, which is what the kernels module's
 * {@code zd_transpose} runs (one byte per thread). The {@code length % elementsize} trailing bytes
 * are left as they are, as numcodecs leaves them.
 */
public final class CudaShuffleCodec implements BytesToBytesCodec {

    static final String NAME = ShuffleSpec.NAME;
    static final int THREADS = 256;

    private final CudaBackend backend;
    private final CudaDevice device;
    private final int elementsize;

    private CudaShuffleCodec(CudaBackend backend, CudaDevice device, int elementsize) {
        this.backend = backend;
        this.device = device;
        this.elementsize = elementsize;
    }

    static CudaShuffleCodec create(CudaBackend backend, CudaDevice device, Map<String, Object> configuration) {
        return new CudaShuffleCodec(backend, device, ShuffleSpec.parse(configuration).elementsize());
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
    public long encodedSize(long decodedSize) {
        return decodedSize;
    }

    @Override
    public long maxEncodedSize(long decodedSize) {
        return decodedSize;
    }

    @Override
    public void encode(CodecBatch batch) {
        run(batch, true);
    }

    @Override
    public void decode(CodecBatch batch) {
        run(batch, false);
    }

    private void run(CodecBatch batch, boolean shuffle) {
        try (DeviceWork w = new DeviceWork(backend, device)) {
            int launched = 0;
            long[] sizes = new long[batch.size()];
            for (int i = 0; i < batch.size(); i++) {
                try {
                    long in = DeviceWork.address(NAME, batch, i, batch.input(i), "input", device);
                    long out = DeviceWork.address(NAME, batch, i, batch.output(i), "output", device);
                    long len = batch.input(i).byteSize();
                    if (batch.output(i).byteSize() < len) {
                        throw new CodecException(NAME, "output of " + batch.output(i).byteSize() + " bytes for "
                                + batch.label(i) + " is smaller than its " + len + " shuffled bytes");
                    }
                    long n = elementsize > 1 ? len / elementsize : 0;
                    long tail = len - n * elementsize;
                    if (n > 0) {
                        // out_shape | src_strides, in bytes: decode reads byte j of element i at j*n + i
                        long[] p = shuffle ? new long[]{elementsize, n, 1, elementsize}
                                : new long[]{n, elementsize, 1, n};
                        // a segment per chunk: the upload is asynchronous and reads it later
                        MemorySegment words = w.arena.allocate(32, 8);
                        MemorySegment.copy(p, 0, words, ValueLayout.JAVA_LONG, 0, 4);
                        long table = w.upload(words);
                        long elems = n * elementsize;
                        w.launch("zd_transpose", w.gridFor(elems, THREADS), THREADS, 0, new KernelArgs()
                                .u64(in).u64(out).u64(table).u32(2).u32(1).u64(elems));
                        launched++;
                    }
                    if (tail > 0 || (n == 0 && len > 0)) {
                        long from = n * elementsize;
                        w.driver.memcpyDtoDAsync(out + from, in + from, len - from, w.stream);
                    }
                    sizes[i] = len;
                } catch (ZarrDirectException e) {
                    batch.fail(i, e);
                    sizes[i] = -1;
                }
            }
            w.sync("zd_transpose (" + NAME + (shuffle ? " encode" : " decode") + ") of " + launched + " chunks");
            for (int i = 0; i < batch.size(); i++) {
                if (sizes[i] >= 0) {
                    batch.complete(i, sizes[i]);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "CudaShuffleCodec[" + device.device() + ", elementsize " + elementsize + "]";
    }
}
