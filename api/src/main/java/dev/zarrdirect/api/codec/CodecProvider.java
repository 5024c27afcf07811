// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Offers codec implementations, found with {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/dev.zarrdirect.api.codec.CodecProvider}, with a public no-argument
 * constructor) or through a backend ({@link dev.zarrdirect.api.backend.Backend#codecs()}).
 * Several providers may implement the same codec name; the registry chooses among them.
 * Providers are called from many threads and must be thread-safe.
 *
 * {@snippet :
 * public final class XorCodecProvider implements CodecProvider {
 *     public String name() { return "example-xor"; }
 *     public Set<DeviceType> deviceTypes() { return Set.of(DeviceType.CPU); }
 *     public Set<String> codecNames() { return Set.of("xor"); }
 *     public Optional<Codec> create(String codecName, Map<String, Object> configuration, Device device) {
 *         if (!codecName.equals("xor") || device.type() != DeviceType.CPU) {
 *             return Optional.empty();
 *         }
 *         long key = CodecConfigReader.of(codecName, configuration, Set.of("key")).integer("key", 0, 255, 0x5A);
 *         return Optional.of(new XorCodec((byte) key, device));
 *     }
 * }
 * }
 *
 * <p>A provider for a codec the core does not know also defines it: its implementation's size math
 * and validation are the only ones applied to the configuration.
 */
public interface CodecProvider {

    /**
     * A short, unique name: {@code cpu}, {@code opencl}, {@code example-xor}; what
     * {@code zarrdirect.codec.NAME} selects and {@link Codec#provider()} reports.
     *
     * @return the name, never null
     */
    String name();

    /**
     * The device types this provider's implementations run on.
     *
     * @return the types; not empty
     */
    Set<DeviceType> deviceTypes();

    /**
     * The codec names this provider implements, as the metadata spells them.
     *
     * @return the names; {@link #create} is asked only for these
     */
    Set<String> codecNames();

    /**
     * An implementation of {@code codecName} configured with {@code configuration} (JSON values:
     * {@code String}, {@code Long}, {@code Double}, {@code Boolean}, {@code List}, {@code Map}, null)
     * for {@code device}, or empty when this provider has none for that device. Each call may
     * return a new codec; codecs are stateless, so the caller may cache and share them.
     *
     * @param codecName     the codec's name, one of {@link #codecNames()}
     * @param configuration the {@code configuration} object from the metadata; may be null or empty
     *                      when the metadata has none (read it with
     *                      {@link dev.zarrdirect.api.codec.spec.CodecConfigReader})
     * @param device        the device the codec will run on
     * @return the codec, or empty
     * @throws IllegalArgumentException when the configuration is invalid; the message says which field and why
     */
    Optional<Codec> create(String codecName, Map<String, Object> configuration, Device device);
}
