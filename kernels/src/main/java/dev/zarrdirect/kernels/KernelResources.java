// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.io.InputStream;

/**
 * Reads the resources this module ships (kernel sources, the CUDA fatbin) on behalf of the device
 * backends. On the module path a package's resources are private to their module, so a
 * {@code ClassLoader.getResourceAsStream} from another module finds nothing; the lookup has to be
 * made from here. On the class path it behaves like the class loader's.
 */
public final class KernelResources {

    /** Where every resource of this module lives, with a trailing slash. */
    public static final String PREFIX = "dev/zarrdirect/kernels/";

    private KernelResources() {
    }

    /**
     * Opens one resource of this module.
     *
     * @param path the resource name from the class path root, e.g.
     *             {@code dev/zarrdirect/kernels/zd_kernels.fatbin}
     * @return the open stream, which the caller closes, or null where this module has no such
     *         resource (a kernels jar built without nvcc has no fatbin)
     */
    public static InputStream open(String path) {
        return KernelResources.class.getResourceAsStream("/" + path);
    }
}
