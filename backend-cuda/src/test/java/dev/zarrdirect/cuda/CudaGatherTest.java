// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The launch geometry of the plane gather (no GPU needed); the conformance suite runs the kernel. */
class CudaGatherTest {

    @Test
    void aBatchFillsTheDeviceWithAboutThirtyTwoBlocksPerMultiprocessor() {
        long era5 = 721L * 1440 / 4; // float32 planes, four elements an access
        assertArrayEquals(new int[]{11, 400}, CudaGather.grid(400, era5, 132));
        assertArrayEquals(new int[]{264, 16}, CudaGather.grid(16, era5, 132));
        assertArrayEquals(new int[]{1, 1}, CudaGather.grid(1, 1, 132));           // one element
        assertArrayEquals(new int[]{4, 1}, CudaGather.grid(1, 1000, 132));       // a small plane: no idle blocks
        assertArrayEquals(new int[]{1, 65535}, CudaGather.grid(100_000, era5, 132)); // rows stride over the planes
    }
}
