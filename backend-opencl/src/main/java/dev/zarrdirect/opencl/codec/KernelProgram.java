// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec;

import dev.zarrdirect.opencl.ClKernel;
import dev.zarrdirect.opencl.KernelSource;
import dev.zarrdirect.opencl.OpenClBackend;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One OpenCL entry file of the kernels module ({@code opencl/zd_zstd.cl}, ...) as a codec uses it:
 * whether its source is on the class path, its text with the includes inlined (read once per
 * kernels directory, see {@link KernelSource#KERNELS_DIR_PROPERTY}), and its kernels built on a
 * backend. One instance per entry file, shared by every codec instance; thread-safe.
 */
public final class KernelProgram {

    private final String resource;
    private final ConcurrentHashMap<String, String> sources = new ConcurrentHashMap<>();

    /** @param entry the entry file under the kernels' resource directory, such as {@code "opencl/zd_zstd.cl"} */
    public KernelProgram(String entry) {
        this.resource = KernelSource.KERNELS_PREFIX + entry;
    }

    /** The resource path, which is also the program's key in the backend's cache. */
    public String resource() {
        return resource;
    }

    /** True when the entry's source can be read (the kernels module is on the class path). */
    public boolean available() {
        try {
            return KernelSource.exists(resource);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The source with its includes inlined, from {@code kernelsDir} (null: the jar's resources). */
    public String source(String kernelsDir) {
        return sources.computeIfAbsent(kernelsDir == null ? "" : kernelsDir,
                d -> KernelSource.loadFrom(kernelsDir, resource, KernelSource.KERNELS_PREFIX));
    }

    /** {@link #source(String)} from the kernels directory of {@code b}'s settings. */
    public String source(OpenClBackend b) {
        return source(b.openClSettings().kernelsDir());
    }

    /** Kernel {@code name} of this program on {@code b}, built with {@code options} on first use. */
    public ClKernel kernel(OpenClBackend b, String options, String name) {
        return b.programs().kernel(resource, source(b), options, name);
    }

    @Override
    public String toString() {
        return "KernelProgram[" + resource + "]";
    }
}
