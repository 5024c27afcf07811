// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeviceTest {

    @Test
    void parseReadsTypeAndIndexIgnoringCaseAndSurroundingSpace() {
        assertEquals(new Device(DeviceType.CUDA, 1), Device.parse("cuda:1"));
        assertEquals(new Device(DeviceType.CUDA_MANAGED, 3), Device.parse(" CUDA_MANAGED:3 "));
        assertEquals(Device.CPU, Device.parse("cpu"));
        assertEquals(new Device(DeviceType.OPENCL, 0), Device.parse("opencl"));
    }

    @Test
    void toStringIsTheFormParseReads() {
        for (DeviceType t : DeviceType.values()) {
            Device d = new Device(t, 2);
            assertEquals(d, Device.parse(d.toString()));
        }
        assertEquals("cuda_host:0", new Device(DeviceType.CUDA_HOST, 0).toString());
        assertEquals("cpu:0", Device.CPU.toString());
    }

    @Test
    void parseRefusesUnknownTypesAndBadIndicesNamingTheInput() {
        IllegalArgumentException type = assertThrows(IllegalArgumentException.class, () -> Device.parse("tpu:0"));
        assertTrue(type.getMessage().contains("\"tpu\"") && type.getMessage().contains("cuda"), type.getMessage());
        IllegalArgumentException index = assertThrows(IllegalArgumentException.class, () -> Device.parse("cuda:x"));
        assertTrue(index.getMessage().contains("\"cuda:x\""), index.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Device.parse("cuda:-1"));
        assertThrows(IllegalArgumentException.class, () -> new Device(DeviceType.CPU, -1));
    }

    @Test
    void onlyCpuAndCudaHostMemoryAreHost() {
        assertTrue(Device.CPU.isHost());
        assertTrue(new Device(DeviceType.CUDA_HOST, 0).isHost());
        assertFalse(new Device(DeviceType.CUDA, 0).isHost());
        assertFalse(new Device(DeviceType.CUDA_MANAGED, 0).isHost());
    }

    @Test
    void deviceTypesMapToAndFromDlpackCodes() {
        for (DeviceType t : DeviceType.values()) {
            assertEquals(t, DeviceType.fromDlpackCode(t.dlpackCode()));
        }
        assertEquals(13, DeviceType.CUDA_MANAGED.dlpackCode());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeviceType.fromDlpackCode(7));
        assertTrue(e.getMessage().contains("code 7"), e.getMessage());
    }
}
