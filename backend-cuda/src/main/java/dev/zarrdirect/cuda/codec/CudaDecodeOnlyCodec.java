// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;

/**
 * What the CUDA compressors share (zstd, blosc, deflate): they decode on the device and leave
 * encoding to the CPU codec, whose output size they cannot know in advance.
 */
abstract class CudaDecodeOnlyCodec implements BytesToBytesCodec {

    final CudaBackend backend;
    final CudaDevice device;
    final String name;

    CudaDecodeOnlyCodec(CudaBackend backend, CudaDevice device, String name) {
        this.backend = backend;
        this.device = device;
        this.name = name;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final Device device() {
        return device.device();
    }

    @Override
    public final String provider() {
        return "cuda";
    }

    @Override
    public final long encodedSize(long decodedSize) {
        return -1;
    }

    /** @throws UnsupportedOperationException always: the registry picks the CPU codec for writes */
    @Override
    public final void encode(CodecBatch batch) {
        throw new UnsupportedOperationException(name + " encoding does not run on " + device + "; writes must use the"
                + " CPU " + name + " codec (the registry picks it for encoding, or set zarrdirect.codec." + name + "=cpu)");
    }
}
