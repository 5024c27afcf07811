// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.backend;

import dev.zarrdirect.api.Device;

import java.util.List;
import java.util.Objects;

/**
 * What a backend found when it looked for its devices: the devices, or one sentence saying why
 * there are none ({@code "CUDA: libcuda.so.1 not found (no NVIDIA driver installed)"}). Immutable.
 *
 * {@snippet :
 * ProbeResult.available("CUDA 12.4: NVIDIA H100 80GB HBM3", List.of(new Device(DeviceType.CUDA, 0)));
 * ProbeResult.unavailable("CUDA: libcuda.so.1 not found (no NVIDIA driver installed)");
 * }
 *
 * @param available whether the backend can start
 * @param reason    for an available backend, a description of what was found; otherwise one
 *                  sentence saying why not, which {@link dev.zarrdirect.api.MissingBackendException}
 *                  and {@code doctor} print
 * @param devices   the devices found; copied; never empty for an available result (an unavailable
 *                  one made by {@link #unavailable} has none)
 */
public record ProbeResult(boolean available, String reason, List<Device> devices) {

    /**
     * Checks and copies the components.
     *
     * @throws NullPointerException     when {@code reason} or {@code devices} (or one of them) is null
     * @throws IllegalArgumentException when an available result lists no device
     */
    public ProbeResult {
        Objects.requireNonNull(reason, "reason");
        devices = List.copyOf(devices);
        if (available && devices.isEmpty()) {
            throw new IllegalArgumentException("an available backend has at least one device");
        }
    }

    /**
     * An available backend with its devices.
     *
     * @param description what was found (driver version, device names), kept as {@link #reason()}
     * @param devices     the devices; at least one
     * @return the result
     * @throws IllegalArgumentException when {@code devices} is empty
     */
    public static ProbeResult available(String description, List<Device> devices) {
        return new ProbeResult(true, description, devices);
    }

    /**
     * An unavailable backend, with no devices.
     *
     * @param reason one sentence naming the family, what is missing and, where it helps, what to
     *               install ({@code "CUDA: libcuda.so.1 not found (no NVIDIA driver installed)"})
     * @return the result
     */
    public static ProbeResult unavailable(String reason) {
        return new ProbeResult(false, reason, List.of());
    }
}
