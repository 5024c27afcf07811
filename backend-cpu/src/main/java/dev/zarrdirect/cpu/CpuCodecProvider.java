// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.cpu.codec.arraytoarray.DeltaCodec;
import dev.zarrdirect.cpu.codec.arraytoarray.TransposeCodec;
import dev.zarrdirect.cpu.codec.arraytobytes.BytesCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.BloscCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.Crc32cCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.GzipCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.ShuffleCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.ZlibCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdCodec;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdNatives;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The CPU implementations of {@code bytes}, {@code transpose}, {@code crc32c}, {@code gzip},
 * {@code zstd}, {@code blosc} and numcodecs' {@code numcodecs.zlib} (also as {@code zlib}),
 * {@code numcodecs.shuffle} and {@code numcodecs.delta}; {@code zstd} only when zstd-jni's natives
 * loaded (without them {@code blosc} still works, but not with cname zstd). Runs on {@link Device#CPU}.
 *
 * <h2>Settings</h2>
 * {@code zstd} and {@code blosc} follow {@link CpuSettings#ZSTD_STREAM_CHECK}; {@code gzip},
 * {@code numcodecs.zlib} and {@code blosc} follow {@link CpuSettings#LIBDEFLATE}. The provider of a
 * {@link CpuBackend} ({@link CpuBackend#codecs()}) has the value that backend resolved, explicit
 * values included. The instance {@link java.util.ServiceLoader} creates, which gives a context on a
 * GPU backend its CPU codecs, reads the system property or else the environment, and does so when it
 * makes its first codec rather than in its constructor: a ServiceLoader instance that fails to
 * construct is left out with a warning, and a mistyped value would then hide every CPU codec instead
 * of naming itself.
 */
public final class CpuCodecProvider implements CodecProvider {

    private volatile Boolean zstdStreamCheck; // null: the ServiceLoader instance before its first codec
    private volatile Boolean libdeflate; // likewise

    /** For {@link java.util.ServiceLoader}: settings from system properties and environment, read on first use. */
    public CpuCodecProvider() {
    }

    /** With the settings a backend resolved. */
    CpuCodecProvider(CpuSettings settings) {
        this.zstdStreamCheck = settings.zstdStreamCheck();
        this.libdeflate = settings.libdeflate();
    }

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
        Set<String> names = new TreeSet<>(Set.of("bytes", "transpose", "crc32c", "gzip", BloscCodec.NAME,
                ZlibCodec.NAME, ZlibCodec.V2_ID, ShuffleCodec.NAME, DeltaCodec.NAME));
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
            case "gzip" -> GzipCodec.create(configuration, libdeflate());
            case "zstd" -> ZstdNatives.available() ? ZstdCodec.create(configuration, zstdStreamCheck()) : null;
            case BloscCodec.NAME -> BloscCodec.create(configuration, zstdStreamCheck(), libdeflate());
            case ZlibCodec.NAME, ZlibCodec.V2_ID -> ZlibCodec.create(codecName, configuration, libdeflate());
            case ShuffleCodec.NAME -> ShuffleCodec.create(configuration);
            case DeltaCodec.NAME -> DeltaCodec.create(configuration);
            default -> null;
        });
    }

    private boolean zstdStreamCheck() {
        Boolean on = zstdStreamCheck;
        if (on == null) {
            // threads racing here read the same property and environment, so either may win
            on = SettingResolver.system().get(CpuSettings.ZSTD_STREAM_CHECK);
            zstdStreamCheck = on;
        }
        return on;
    }

    private boolean libdeflate() {
        Boolean on = libdeflate;
        if (on == null) {
            on = SettingResolver.system().get(CpuSettings.LIBDEFLATE);
            libdeflate = on;
        }
        return on;
    }

    @Override
    public String toString() {
        return "CpuCodecProvider" + codecNames();
    }
}
