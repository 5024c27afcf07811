// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec.bytestobytes;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.ShuffleSpec;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.RegionDescriptors;
import dev.zarrdirect.opencl.codec.BatchRun;
import dev.zarrdirect.opencl.codec.DeviceItems;
import dev.zarrdirect.opencl.codec.OpenClDeviceCodec;

import java.util.Map;

import static org.lwjgl.opencl.CL10.CL_MEM_READ_WRITE;

/**
 * numcodecs' byte {@code shuffle} filter on an OpenCL device, both directions: a transpose of the
 * {@code [n, elementsize]} byte matrix run by the backend's region-copy kernel, the
 * {@code length % elementsize} trailing bytes copied as they are (as numcodecs leaves them).
 */
public final class OpenClShuffleCodec extends OpenClDeviceCodec implements BytesToBytesCodec {

    private final int elementsize;

    private OpenClShuffleCodec(int elementsize, Device device, OpenClBackend backend) {
        super(ShuffleSpec.NAME, device, backend);
        this.elementsize = elementsize;
    }

    /** The codec for {@code configuration}, checked as on every backend. */
    public static OpenClShuffleCodec create(Map<String, Object> configuration, Device device, OpenClBackend backend) {
        return new OpenClShuffleCodec(ShuffleSpec.parse(configuration).elementsize(), device, backend);
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
        long k = elementsize;
        BatchRun.run(backend, ShuffleSpec.NAME, shuffle ? "encode" : "decode", batch, new BatchRun.Work() {
            @Override
            public boolean check(int i) {
                if (batch.output(i).byteSize() < batch.input(i).byteSize()) {
                    throw new IllegalArgumentException("output of " + batch.output(i).byteSize() + " bytes for "
                            + batch.label(i) + " is smaller than its " + batch.input(i).byteSize() + " bytes");
                }
                return true;
            }

            @Override
            public void launch(OpenClBackend b, DeviceItems items, DeviceItems.Group g, long[] written) {
                long aside = 0;
                try {
                    for (int i : g.items()) {
                        long len = batch.input(i).byteSize();
                        long n = k > 1 ? len / k : 0;
                        long src = g.inMem();
                        long inOff = items.in(i).offset();
                        long outOff = items.out(i).offset();
                        if (n > 0 && g.inMem() == g.outMem() && inOff < outOff + len && outOff < inOff + len) {
                            // input and output share bytes: read from a copy made on the device first
                            b.memory().releaseMem(aside);
                            aside = b.memory().createMem(len, CL_MEM_READ_WRITE, "shuffle input copy");
                            b.memory().copyMem(g.inMem(), inOff, aside, 0, len);
                            src = aside;
                            inOff = 0;
                        }
                        if (n > 0) {
                            RegionDescriptors rows = new RegionDescriptors();
                            if (shuffle) { // out [k, n] <- in element e byte j at e*k + j
                                rows.add(inOff, new long[]{1, k}, outOff, new long[]{n, 1}, new long[]{k, n}, 1, false);
                            } else { // out [n, k] <- in byte j of element e at j*n + e
                                rows.add(inOff, new long[]{1, n}, outOff, new long[]{k, 1}, new long[]{n, k}, 1, false);
                            }
                            b.regions().launchCopy(src, g.outMem(), rows);
                        }
                        long from = n * k;
                        if (len > from && !(g.inMem() == g.outMem() && inOff == outOff && src == g.inMem())) {
                            b.memory().copyMem(src, inOff + from, g.outMem(), outOff + from, len - from);
                        }
                        written[i] = len;
                    }
                } finally {
                    b.memory().releaseMem(aside);
                }
            }
        });
    }

    @Override
    public String toString() {
        return "OpenClShuffleCodec[" + device + ", elementsize " + elementsize + "]";
    }
}
