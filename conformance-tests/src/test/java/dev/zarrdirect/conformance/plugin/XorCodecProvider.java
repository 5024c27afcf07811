// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.plugin;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.CodecProvider;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A third-party codec as a plugin author would write one against the api alone: {@code example.xor}
 * XORs every byte with a key. Registered in this module's test resources through META-INF/services.
 */
public final class XorCodecProvider implements CodecProvider {

    public static final String NAME = "example.xor";

    @Override
    public String name() {
        return "example-plugin";
    }

    @Override
    public Set<DeviceType> deviceTypes() {
        return Set.of(DeviceType.CPU);
    }

    @Override
    public Set<String> codecNames() {
        return Set.of(NAME);
    }

    @Override
    public Optional<Codec> create(String codecName, Map<String, Object> configuration, Device device) {
        if (!NAME.equals(codecName) || !device.equals(Device.CPU)) {
            return Optional.empty();
        }
        if (!(configuration.get("key") instanceof Long key) || key < 0 || key > 255) {
            throw new IllegalArgumentException("\"key\" must be an integer 0..255, got " + configuration.get("key"));
        }
        return Optional.of(new XorCodec((byte) (long) key));
    }

    record XorCodec(byte key) implements BytesToBytesCodec {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public Device device() {
            return Device.CPU;
        }

        @Override
        public String provider() {
            return "example-plugin";
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
        public long decodedSize(long encodedSize) {
            return encodedSize;
        }

        @Override
        public void decode(CodecBatch batch) {
            apply(batch);
        }

        @Override
        public void encode(CodecBatch batch) {
            apply(batch);
        }

        private void apply(CodecBatch batch) {
            for (int i = 0; i < batch.size(); i++) {
                MemorySegment in = batch.input(i).segment();
                MemorySegment out = batch.output(i).segment();
                for (long b = 0; b < in.byteSize(); b++) {
                    out.set(ValueLayout.JAVA_BYTE, b, (byte) (in.get(ValueLayout.JAVA_BYTE, b) ^ key));
                }
                batch.complete(i, in.byteSize());
            }
        }
    }
}
