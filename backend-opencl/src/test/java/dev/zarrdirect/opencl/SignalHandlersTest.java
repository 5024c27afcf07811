// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The JVM's signal handlers survive finding OpenCL devices, opening a context and building a
 * program: PoCL's LLVM replaced them, and the JVM then died at its next implicit null check.
 */
class SignalHandlersTest {
    private static final int SIGBUS = 7, SIGUSR1 = 10, SIGSEGV = 11;

    @Test
    void jvmHandlersSurviveDriverLoadContextAndProgramBuild() {
        long segv = SignalHandlers.handler(SIGSEGV), bus = SignalHandlers.handler(SIGBUS);
        assumeTrue(segv > 1, "signal handlers cannot be read here (not Linux)");

        try (OpenClBackend backend = OpenCl.openOrSkip()) {
            backend.programs().kernel("signal-test", "__kernel void k(__global int *x) { x[0] = 1; }", "", "k");
        }

        assertEquals(segv, SignalHandlers.handler(SIGSEGV), "SIGSEGV handler replaced");
        assertEquals(bus, SignalHandlers.handler(SIGBUS), "SIGBUS handler replaced");
    }

    @Test
    void aHandlerChangedInsideAGuardedCallIsPutBack() throws Throwable {
        long before = SignalHandlers.handler(SIGUSR1);
        assumeTrue(before >= 0 && before != 1, "SIGUSR1 cannot be read here or is ignored already");
        Linker linker = Linker.nativeLinker();
        MethodHandle sigaction = linker.downcallHandle(linker.defaultLookup().find("sigaction").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));

        String r = SignalHandlers.keep(() -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment ignore = a.allocate(256, 16); // sa_handler = SIG_IGN, empty mask, no flags
                ignore.set(ValueLayout.JAVA_LONG, 0, 1L);
                assertEquals(0, (int) sigaction.invokeExact(SIGUSR1, ignore, MemorySegment.NULL));
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
            assertEquals(1L, SignalHandlers.handler(SIGUSR1), "the call changed the handler");
            return "done";
        });

        assertEquals("done", r);
        assertEquals(before, SignalHandlers.handler(SIGUSR1));
    }
}
