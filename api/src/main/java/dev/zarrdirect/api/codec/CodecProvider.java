// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Offers codec implementations, found with {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/dev.zarrdirect.api.codec.CodecProvider}) or through a backend.
 * Several providers may implement the same codec name; the registry chooses among them.
 *
 * <p>A provider for a codec the core does not know also defines it: its implementation's size math
 * and validation are the only ones applied to the configuration.
 */
public interface CodecProvider {

    /** A short, unique name: {@code cpu}, {@code opencl}, {@code example-xor}. */
    String name();

    /** The device types this provider's implementations run on. */
    Set<DeviceType> deviceTypes();

    /** The codec names this provider implements. */
    Set<String> codecNames();

    /**
     * An implementation of {@code codecName} configured with {@code configuration} (JSON values:
     * {@code String}, {@code Long}, {@code Double}, {@code Boolean}, {@code List}, {@code Map}, null)
     * for {@code device}, or empty when this provider has none for that device.
     *
     * @throws IllegalArgumentException when the configuration is invalid; the message says which field and why
     */
    Optional<Codec> create(String codecName, Map<String, Object> configuration, Device device);
}
