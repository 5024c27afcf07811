// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.opencl.OpenClBackend;

/**
 * What the OpenCL compressors share (zstd, blosc, deflate), the counterpart of the CUDA backend's
 * {@code CudaDecodeOnlyCodec}: they decode on the device and leave encoding to the CPU codec, whose
 * output size they cannot know in advance.
 */
public abstract class OpenClDecodeOnlyCodec extends OpenClDeviceCodec implements BytesToBytesCodec {

    /**
     * @param name    the codec's name
     * @param device  the device it runs on
     * @param backend the backend that made it, or null
     */
    protected OpenClDecodeOnlyCodec(String name, Device device, OpenClBackend backend) {
        super(name, device, backend);
    }

    /** @return -1: the encoded size depends on the data */
    @Override
    public final long encodedSize(long decodedSize) {
        return -1;
    }

    /** @throws UnsupportedOperationException always: the CPU codec encodes (the registry picks it for writes) */
    @Override
    public final void encode(CodecBatch batch) {
        throw new UnsupportedOperationException("the opencl " + name + " codec decodes only; encode "
                + (batch.size() == 1 ? batch.label(0) : batch.size() + " chunks") + " with the cpu " + name + " codec"
                + " (set zarrdirect.codec." + name + "=cpu for writes)");
    }
}
