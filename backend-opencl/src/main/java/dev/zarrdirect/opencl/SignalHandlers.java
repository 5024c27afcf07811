// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.function.Supplier;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Keeps the process's signal handlers across calls that may load or start an OpenCL driver.
 *
 * <p>PoCL and Mesa's OpenCL drivers load LLVM, whose crash reporter installs its own handlers
 * for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGUSR2 and more, with {@code SA_RESETHAND} and without
 * calling the handlers it replaced. The JVM takes SIGSEGV on purpose (implicit null checks,
 * safepoint polls), so the next such trap reset the handler and killed the process with a bare
 * "Segmentation fault" and no hs_err report. Seen on the H200 machine in about one
 * {@code bench --generate} in three, even with {@code --backend cpu} (backends are probed at
 * start); found with {@code -Xcheck:jni}, which printed "SIGSEGV handler modified" and
 * libLLVM-16 as the owner.
 *
 * <p>Linux only (elsewhere calls run unguarded). Each guarded call puts back the handlers that
 * were in place when it started; signal dispositions are process-wide, so guarded calls take one
 * lock (program builds on several threads run one at a time; they are cached per backend).
 */
final class SignalHandlers {
    /** SIGHUP..SIGSYS on Linux: every signal the JVM or LLVM handles. */
    private static final int[] SIGNALS = {1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 15, 24, 25, 31};
    /** Bigger than struct sigaction on every Linux ABI (152 bytes on x86-64 and aarch64). */
    private static final long ACTION_BYTES = 256;
    private static final MethodHandle SIGACTION = lookup();
    private static final Object LOCK = new Object();

    private SignalHandlers() {
    }

    private static MethodHandle lookup() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("sigaction")
                    .map(f -> linker.downcallHandle(f, FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS)))
                    .orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null; // no native access: run unguarded rather than not at all
        }
    }

    /** Runs {@code call}, then puts back the signal handlers that were in place before it. */
    static <T> T keep(Supplier<T> call) {
        if (SIGACTION == null) {
            return call.get();
        }
        synchronized (LOCK) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment saved = arena.allocate(ACTION_BYTES * SIGNALS.length, 16);
                boolean[] ok = new boolean[SIGNALS.length];
                for (int i = 0; i < SIGNALS.length; i++) {
                    ok[i] = sigaction(SIGNALS[i], MemorySegment.NULL, saved.asSlice(i * ACTION_BYTES, ACTION_BYTES)) == 0;
                }
                try {
                    return call.get();
                } finally {
                    for (int i = 0; i < SIGNALS.length; i++) {
                        if (ok[i]) {
                            sigaction(SIGNALS[i], saved.asSlice(i * ACTION_BYTES, ACTION_BYTES), MemorySegment.NULL);
                        }
                    }
                }
            }
        }
    }

    /** The handler address of {@code signal} now (0: default, 1: ignored), or -1 where it cannot be read. */
    static long handler(int signal) {
        if (SIGACTION == null) {
            return -1;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(ACTION_BYTES, 16);
            return sigaction(signal, MemorySegment.NULL, a) == 0 ? a.get(JAVA_LONG, 0) : -1;
        }
    }

    private static int sigaction(int signal, MemorySegment act, MemorySegment old) {
        try {
            return (int) SIGACTION.invokeExact(signal, act, old);
        } catch (Throwable t) {
            throw new IllegalStateException("sigaction(" + signal + ") failed", t);
        }
    }
}
