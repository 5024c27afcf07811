// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.driver;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code zarrdirect.cuda.schedule}: the values a user may write and the CU_CTX_SCHED_* flags they stand for. */
class ScheduleFlagsTest {

    @Test
    void eachValueMapsToItsDriverFlag() {
        assertEquals(0x0, CudaDevice.scheduleFlags("auto"));
        assertEquals(0x1, CudaDevice.scheduleFlags("spin"));
        assertEquals(0x2, CudaDevice.scheduleFlags("yield"));
        assertEquals(0x4, CudaDevice.scheduleFlags(" Blocking "));
    }

    @Test
    void anUnknownValueSaysWhatIsAllowed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CudaDevice.scheduleFlags("busy"));
        assertTrue(e.getMessage().contains("zarrdirect.cuda.schedule=busy is not one of auto, spin, yield, blocking"),
                e.getMessage());
    }
}
