// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.bench;

import dev.zarrdirect.cuda.driver.CudaDriver;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The time between two CUDA events, which only the benches read: {@code cuEventElapsedTime} bound
 * here rather than in the backend's {@link CudaDriver}, whose events only order work.
 */
final class CudaEvents {

    private static final MethodHandle ELAPSED = bind();

    private CudaEvents() {
    }

    /** Milliseconds between two recorded, completed events of {@code driver}'s context. */
    static float elapsedMillis(CudaDriver driver, long start, long end) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_FLOAT);
            driver.check((int) ELAPSED.invokeExact(v, start, end), "cuEventElapsedTime");
            return v.get(JAVA_FLOAT, 0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cuEventElapsedTime failed", t);
        }
    }

    private static MethodHandle bind() {
        SymbolLookup lib = SymbolLookup.libraryLookup(CudaDriver.LIBRARY, Arena.global());
        MemorySegment f = lib.find("cuEventElapsedTime_v2").or(() -> lib.find("cuEventElapsedTime"))
                .orElseThrow(() -> new IllegalStateException("no symbol cuEventElapsedTime_v2 or cuEventElapsedTime in "
                        + CudaDriver.LIBRARY));
        return Linker.nativeLinker().downcallHandle(f, FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    }
}
