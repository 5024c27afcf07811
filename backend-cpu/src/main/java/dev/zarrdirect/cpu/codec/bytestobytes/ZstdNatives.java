// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.util.ZstdVersion;

/**
 * Whether zstd-jni's native library loaded. Asked once, without letting a {@link LinkageError}
 * escape, so that discovery of the CPU backend survives a platform zstd-jni has no binary for.
 */
public final class ZstdNatives {

    private static final String FAILURE = probe();

    private ZstdNatives() {
    }

    private static String probe() {
        try {
            Zstd.defaultCompressionLevel(); // the first native call loads the library
            return null;
        } catch (Throwable t) { // UnsatisfiedLinkError, ExceptionInInitializerError, NoClassDefFoundError
            return t.getClass().getSimpleName() + ": " + t.getMessage();
        }
    }

    /** True when zstd's native code can be called. */
    public static boolean available() {
        return FAILURE == null;
    }

    /** Why the natives did not load, or null when they did. */
    public static String failure() {
        return FAILURE;
    }

    /** The zstd-jni version, {@code 1.5.7-6}. */
    public static String version() {
        return ZstdVersion.VERSION;
    }
}
