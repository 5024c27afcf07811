// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.backend;

import dev.zarrdirect.api.Device;

import java.util.List;
import java.util.Objects;

/**
 * What a backend found when it looked for its devices: the devices, or one sentence saying why
 * there are none ({@code "CUDA: libcuda.so.1 not found (no NVIDIA driver installed)"}).
 */
public record ProbeResult(boolean available, String reason, List<Device> devices) {

    public ProbeResult {
        Objects.requireNonNull(reason, "reason");
        devices = List.copyOf(devices);
        if (available && devices.isEmpty()) {
            throw new IllegalArgumentException("an available backend has at least one device");
        }
    }

    public static ProbeResult available(String description, List<Device> devices) {
        return new ProbeResult(true, description, devices);
    }

    public static ProbeResult unavailable(String reason) {
        return new ProbeResult(false, reason, List.of());
    }
}
