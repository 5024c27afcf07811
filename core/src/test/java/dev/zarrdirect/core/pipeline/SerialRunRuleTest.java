// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.core.ReadSettings;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The arithmetic of {@code zarrdirect.serialRunsPerCore} (the reads under it: conformance-tests' SerialRunRuleTest). */
class SerialRunRuleTest {

    @Test
    void aBatchGoesToTheHostBelowTheThresholdOnly() {
        // 16 cores at the default: 128 runs
        long min = 16L * ReadSettings.SERIAL_RUNS_PER_CORE.defaultValue();
        assertTrue(DeviceDecoder.fewSerialRuns(4, 1, min), "4 plain zlib chunks of an ERA5-like store");
        assertTrue(DeviceDecoder.fewSerialRuns(127, 1, min));
        assertFalse(DeviceDecoder.fewSerialRuns(128, 1, min));
        assertFalse(DeviceDecoder.fewSerialRuns(4, 64, min), "4 blosc zlib chunks of 64 blocks each");
        assertTrue(DeviceDecoder.fewSerialRuns(1, 64, min), "one such chunk");
    }

    @Test
    void chainsWithoutSerialRunsAndARuleOfZeroStayOnTheDevice() {
        assertFalse(DeviceDecoder.fewSerialRuns(1, 0, 128));
        assertFalse(DeviceDecoder.fewSerialRuns(1, 5, 0));
        assertFalse(DeviceDecoder.fewSerialRuns(Integer.MAX_VALUE, Long.MAX_VALUE / 2, Long.MAX_VALUE), "no overflow to a negative count");
    }

    @Test
    void theSettingIsValidated() {
        assertThrows(dev.zarrdirect.api.InvalidSettingException.class, () -> ReadSettings.defaults().withSerialRunsPerCore(-1));
        assertThrows(dev.zarrdirect.api.InvalidSettingException.class, () -> ReadSettings.defaults().withSerialRunsPerCore(4097));
        assertEquals(0, ReadSettings.defaults().withSerialRunsPerCore(0).serialRunsPerCore());
    }
}
