// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Runs code with the process's file descriptor 2 pointed at /dev/null, for the tests that make a
 * native library print on purpose (PoCL's clang prints "1 error generated." for a program that
 * does not compile, besides putting it in the build log the test checks). Java's System.err is
 * not involved: it is the native stderr that is silenced, and restored afterwards.
 */
final class NativeStderr {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle DUP = libc("dup", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle DUP2 = libc("dup2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = libc("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle OPEN = libc("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final int O_WRONLY = 1;

    private NativeStderr() {
    }

    private static MethodHandle libc(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd);
    }

    interface Body<T> {
        T run() throws Throwable;
    }

    static <T> T silenced(Body<T> body) throws Throwable {
        System.err.flush();
        int saved = (int) DUP.invokeExact(2);
        int devNull;
        try (Arena a = Arena.ofConfined()) {
            devNull = (int) OPEN.invokeExact(a.allocateFrom("/dev/null"), O_WRONLY);
        }
        if (saved < 0 || devNull < 0) { // cannot redirect: run as is
            if (saved >= 0) {
                int ignored = (int) CLOSE.invokeExact(saved);
            }
            return body.run();
        }
        int r = (int) DUP2.invokeExact(devNull, 2);
        try {
            return body.run();
        } finally {
            System.err.flush();
            r = (int) DUP2.invokeExact(saved, 2);
            r = (int) CLOSE.invokeExact(saved);
            r = (int) CLOSE.invokeExact(devNull);
        }
    }
}
