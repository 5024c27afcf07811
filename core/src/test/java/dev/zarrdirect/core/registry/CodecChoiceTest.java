// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.registry;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingValues;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The global {@code zarrdirect.codec.<name>} choice, as resolve (not only describe) applies it. */
class CodecChoiceTest {

    /** A provider of codec "x" on the CPU whose codecs are identified by the provider's name. */
    private static CodecProvider provider(String name) {
        return new CodecProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Set<DeviceType> deviceTypes() {
                return Set.of(DeviceType.CPU);
            }

            @Override
            public Set<String> codecNames() {
                return Set.of("x");
            }

            @Override
            public Optional<Codec> create(String codecName, Map<String, Object> configuration, Device device) {
                return Optional.of(new dev.zarrdirect.core.registry.CodecChoiceTest.Named(name));
            }
        };
    }

    private static CodecRegistry registry(Map<String, String> settings) {
        SettingResolver r = new SettingResolver(SettingValues.of(settings), k -> null, k -> null);
        return new CodecRegistry(List.of(provider("first"), provider("second")), r);
    }

    private static String resolved(CodecRegistry reg, Map<String, String> perRead) {
        return ((Named) reg.resolve("x", Map.of(), Device.CPU, perRead, "test")).provider();
    }

    @Test
    void theGlobalChoiceIsAppliedWhenAReadSaysNothing() {
        assertEquals("first", resolved(registry(Map.of()), Map.of()));
        assertEquals("second", resolved(registry(Map.of("zarrdirect.codec.x", "second")), Map.of()));
        // a read's own choice wins over the global one
        assertEquals("first", resolved(registry(Map.of("zarrdirect.codec.x", "second")), Map.of("x", "first")));
    }

    @Test
    void autoSetByHandMeansTheDefaultAndAnUnknownProviderIsRefused() {
        assertEquals("first", resolved(registry(Map.of("zarrdirect.codec.x", "auto")), Map.of()));
        assertThrows(InvalidSettingException.class, () -> registry(Map.of("zarrdirect.codec.x", "nobody")));
    }

    private record Named(String provider) implements dev.zarrdirect.api.codec.BytesToBytesCodec {
        @Override
        public String name() {
            return "x";
        }

        @Override
        public Device device() {
            return Device.CPU;
        }

        @Override
        public long encodedSize(long decodedSize) {
            return decodedSize;
        }

        @Override
        public long maxEncodedSize(long decodedSize) {
            return decodedSize;
        }

        @Override
        public void decode(dev.zarrdirect.api.codec.CodecBatch batch) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void encode(dev.zarrdirect.api.codec.CodecBatch batch) {
            throw new UnsupportedOperationException();
        }
    }
}
