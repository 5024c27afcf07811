// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.opencl.OpenClBackend;

/**
 * What every OpenCL codec holds: its name, the {@code opencl:N} device it was made for and the
 * backend that made it ({@code null} for the codecs of the ServiceLoader's provider, which find
 * their backend from each batch's buffers: see {@link BatchRun}). A subclass implements one of the
 * codec interfaces, whose {@code name()}, {@code device()} and {@code provider()} these methods are.
 */
public abstract class OpenClDeviceCodec {

    /** The codec's name, as the metadata spells it. */
    protected final String name;
    /** The device the codec runs on. */
    protected final Device device;
    /** The backend that made it, or null. */
    protected final OpenClBackend backend;

    /**
     * @param name    the codec's name
     * @param device  the device it runs on
     * @param backend the backend that made it, or null
     */
    protected OpenClDeviceCodec(String name, Device device, OpenClBackend backend) {
        this.name = name;
        this.device = device;
        this.backend = backend;
    }

    /** @return the codec's name */
    public final String name() {
        return name;
    }

    /** @return the device the codec runs on */
    public final Device device() {
        return device;
    }

    /** @return {@code "opencl"} */
    public final String provider() {
        return "opencl";
    }
}
