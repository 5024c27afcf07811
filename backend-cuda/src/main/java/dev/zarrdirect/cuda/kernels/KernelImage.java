// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.kernels;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The kernels module's CUDA fatbin ({@value #RESOURCE} on the class path), read once per process
 * into native memory for {@code cuModuleLoadData}. The fatbin is built ahead of time with
 * {@code nvcc -fatbin} (SASS for sm_80, sm_90, sm_100 and PTX), so no NVRTC is needed at run time.
 */
public final class KernelImage {

    public static final String RESOURCE = "dev/zarrdirect/kernels/zd_kernels.fatbin";

    /**
     * System property naming a fatbin file to load instead of {@link #RESOURCE}: for kernel work,
     * to time variants built with {@code nvcc -fatbin -D...} without rebuilding the jars
     * ({@code tools/gpu/kernel-variants.sh}).
     */
    public static final String FILE_PROPERTY = "zarrdirect.cuda.kernelImage";

    /** The magic number {@code nvcc -fatbin} files start with ({@code 0xBA55ED50}, little-endian). */
    public static final int FATBIN_MAGIC = 0xBA55ED50;

    private static volatile MemorySegment image;
    private static volatile String failure;

    private KernelImage() {
    }

    /**
     * The fatbin in native memory (kept for the life of the process: modules are loaded from it
     * per device), or null with {@link #failure()} saying why.
     */
    public static MemorySegment image() {
        if (image != null || failure != null) {
            return image;
        }
        synchronized (KernelImage.class) {
            if (image == null && failure == null) {
                try {
                    image = read(KernelImage.class.getClassLoader());
                } catch (IOException | RuntimeException e) {
                    failure = e.getMessage();
                }
            }
            return image;
        }
    }

    /** Why {@link #image()} is null, or null when it is not. */
    public static String failure() {
        image();
        return failure;
    }

    /** The image named by the setting {@value #FILE_PROPERTY} (system property or environment), else the jar's. */
    static MemorySegment read(ClassLoader loader) throws IOException {
        return read(loader, dev.zarrdirect.api.settings.SettingResolver.system()
                .get(dev.zarrdirect.cuda.CudaSettings.KERNEL_IMAGE));
    }

    /**
     * The fatbin file {@code file} in native memory (kept for the life of the process), for an
     * explicit {@code zarrdirect.cuda.kernelImage} given when a backend starts.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read or is not a fatbin
     */
    public static MemorySegment file(String file) {
        try {
            return read(KernelImage.class.getClassLoader(), file);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The fatbin file {@code file}, or the jar's where it is null. */
    static MemorySegment read(ClassLoader loader, String file) throws IOException {
        if (file != null && !file.isBlank()) {
            String what = "-D" + FILE_PROPERTY + "=" + file;
            byte[] bytes;
            try {
                bytes = java.nio.file.Files.readAllBytes(java.nio.file.Path.of(file));
            } catch (IOException e) {
                throw new IOException(what + ": cannot read it (" + e + ")", e);
            }
            check(what, bytes);
            return copyToNative(bytes);
        }
        InputStream found = dev.zarrdirect.kernels.KernelResources.open(RESOURCE);
        if (found == null && loader != null) {
            found = loader.getResourceAsStream(RESOURCE); // a fatbin put on the class path apart from the kernels jar
        }
        try (InputStream in = found) {
            if (in == null) {
                throw new IOException(RESOURCE + " is not on the class path (add the zarr-direct-kernels jar built with nvcc)");
            }
            byte[] bytes = in.readAllBytes();
            check(bytes);
            return copyToNative(bytes);
        }
    }

    private static MemorySegment copyToNative(byte[] bytes) {
        MemorySegment seg = Arena.global().allocate(bytes.length + 1L, 16);
        MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return seg;
    }

    /** Rejects what is not an nvcc fatbin, with the reason. */
    public static void check(byte[] bytes) throws IOException {
        check(RESOURCE, bytes);
    }

    private static void check(String what, byte[] bytes) throws IOException {
        if (bytes.length < 16) {
            throw new IOException(what + " is " + bytes.length + " bytes long, too short for a fatbin");
        }
        int magic = (bytes[0] & 0xFF) | (bytes[1] & 0xFF) << 8 | (bytes[2] & 0xFF) << 16 | (bytes[3] & 0xFF) << 24;
        if (magic != FATBIN_MAGIC) {
            throw new IOException(what + " does not start with the fatbin magic 0x" + Integer.toHexString(FATBIN_MAGIC)
                    + " (found 0x" + Integer.toHexString(magic) + ")");
        }
    }
}
