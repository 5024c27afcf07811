package dev.zarrdirect.cpu;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.cpu.codec.arraytoarray.TransposeCodec;
import dev.zarrdirect.cpu.codec.arraytobytes.BytesCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.Crc32cCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.GzipCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdNatives;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The CPU implementations of {@code bytes}, {@code transpose}, {@code crc32c}, {@code gzip} and
 * {@code zstd}; {@code zstd} only when zstd-jni's natives loaded. Runs on {@link Device#CPU}.
 */
public final class CpuCodecProvider implements CodecProvider {

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public Set<DeviceType> deviceTypes() {
        return Set.of(DeviceType.CPU);
    }

    @Override
    public Set<String> codecNames() {
        Set<String> names = new TreeSet<>(Set.of("bytes", "transpose", "crc32c", "gzip"));
        if (ZstdNatives.available()) {
            names.add("zstd");
        }
        return Set.copyOf(names);
    }

    @Override
    public Optional<Codec> create(String codecName, Map<String, Object> configuration, Device device) {
        if (device.type() != DeviceType.CPU) {
            return Optional.empty();
        }
        return Optional.ofNullable(switch (codecName) {
            case "bytes" -> BytesCodec.create(configuration);
            case "transpose" -> TransposeCodec.create(configuration);
            case "crc32c" -> Crc32cCodec.create(configuration);
            case "gzip" -> GzipCodec.create(configuration);
            case "zstd" -> ZstdNatives.available() ? ZstdCodec.create(configuration) : null;
            default -> null;
        });
    }

    @Override
    public String toString() {
        return "CpuCodecProvider" + codecNames();
    }
}
