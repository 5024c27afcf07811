// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.driver;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.*;

class KernelArgsTest {

    @Test
    void valuesSitAtTheirNaturalAlignmentInOrder() {
        KernelArgs a = new KernelArgs().u64(1).u32(2).u64(3).u32(4).u32(5).u64(6);
        assertArrayEquals(new long[]{0, 8, 16, 24, 28, 32}, a.offsets());
    }

    @Test
    void thePointerArrayPointsAtEachValue() {
        KernelArgs a = new KernelArgs().u64(0x1122334455667788L).u32(-7).u64(42).u32(9);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ptrs = a.build(arena);
            long[] want = {0x1122334455667788L, -7, 42, 9};
            for (int i = 0; i < 4; i++) {
                MemorySegment v = MemorySegment.ofAddress(ptrs.get(ValueLayout.JAVA_LONG, 8L * i)).reinterpret(8);
                long got = (i % 2 == 0) ? v.get(ValueLayout.JAVA_LONG, 0) : v.get(ValueLayout.JAVA_INT, 0);
                assertEquals(want[i], got, "argument " + i);
            }
        }
    }

    @Test
    void noArgumentsStillBuildsAnArray() {
        try (Arena arena = Arena.ofConfined()) {
            assertNotNull(new KernelArgs().build(arena));
        }
    }
}
