// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.api.codec.spec.BloscSpec;
import dev.zarrdirect.api.codec.spec.DeltaSpec;
import dev.zarrdirect.api.codec.spec.GzipSpec;
import dev.zarrdirect.api.codec.spec.ShuffleSpec;
import dev.zarrdirect.api.codec.spec.ZlibSpec;
import dev.zarrdirect.opencl.codec.arraytoarray.OpenClDeltaCodec;
import dev.zarrdirect.opencl.codec.arraytoarray.OpenClTransposeCodec;
import dev.zarrdirect.opencl.codec.arraytobytes.OpenClBytesCodec;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClBloscCodec;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClCrc32cCodec;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClInflateCodec;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClShuffleCodec;
import dev.zarrdirect.opencl.codec.bytestobytes.OpenClZstdCodec;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The OpenCL implementations of {@code bytes}, {@code transpose}, {@code crc32c},
 * {@code numcodecs.shuffle} and, when the kernels module's sources are on the class path, {@code zstd},
 * {@code blosc}, {@code gzip}, {@code zlib} (decode only: see {@link OpenClZstdCodec}) and
 * {@code numcodecs.delta}. Each runs one launch per batch on {@code opencl:N} devices.
 *
 * <h2>Two instances</h2>
 * An {@link OpenClBackend}'s {@link OpenClBackend#codecs()} is bound to that backend. The instance
 * {@link java.util.ServiceLoader} creates is not: its codecs find the backend from the
 * {@link OpenClBuffer}s of each batch, and fail a batch that holds none.
 */
public final class OpenClCodecProvider implements CodecProvider {

    private final OpenClBackend backend; // null for the ServiceLoader instance

    /** The ServiceLoader constructor: codecs find their backend from their buffers. */
    public OpenClCodecProvider() {
        this(null);
    }

    OpenClCodecProvider(OpenClBackend backend) {
        this.backend = backend;
    }

    @Override
    public String name() {
        return "opencl";
    }

    @Override
    public Set<DeviceType> deviceTypes() {
        return Set.of(DeviceType.OPENCL);
    }

    @Override
    public Set<String> codecNames() {
        Set<String> names = new TreeSet<>(Set.of("bytes", "transpose", "crc32c", ShuffleSpec.NAME));
        if (OpenClZstdCodec.kernelAvailable()) {
            names.add("zstd");
        }
        if (OpenClBloscCodec.kernelAvailable()) {
            names.add(BloscSpec.NAME);
        }
        if (OpenClInflateCodec.kernelAvailable()) {
            names.addAll(List.of(GzipSpec.NAME, ZlibSpec.NAME, ZlibSpec.V2_ID));
        }
        if (OpenClDeltaCodec.kernelAvailable()) {
            names.add(DeltaSpec.NAME);
        }
        return Set.copyOf(names);
    }

    @Override
    public Optional<Codec> create(String codecName, Map<String, Object> configuration, Device device) {
        if (device.type() != DeviceType.OPENCL || backend != null && !backend.device().equals(device)) {
            return Optional.empty();
        }
        if (codecName.equals(BloscSpec.NAME)) {
            return OpenClBloscCodec.kernelAvailable()
                    ? OpenClBloscCodec.create(configuration, device, backend).map(c -> c) : Optional.empty();
        }
        if (codecName.equals(DeltaSpec.NAME)) {
            return OpenClDeltaCodec.kernelAvailable()
                    ? OpenClDeltaCodec.create(configuration, device, backend).map(c -> c) : Optional.empty();
        }
        return Optional.ofNullable(switch (codecName) {
            case "bytes" -> OpenClBytesCodec.create(configuration, device, backend);
            case "transpose" -> OpenClTransposeCodec.create(configuration, device, backend);
            case "crc32c" -> OpenClCrc32cCodec.create(configuration, device, backend);
            case ShuffleSpec.NAME -> OpenClShuffleCodec.create(configuration, device, backend);
            case "zstd" -> OpenClZstdCodec.kernelAvailable() ? OpenClZstdCodec.create(configuration, device, backend)
                    : null;
            case GzipSpec.NAME -> OpenClInflateCodec.kernelAvailable()
                    ? OpenClInflateCodec.gzip(configuration, device, backend) : null;
            case ZlibSpec.NAME, ZlibSpec.V2_ID -> OpenClInflateCodec.kernelAvailable()
                    ? OpenClInflateCodec.zlib(codecName, configuration, device, backend) : null;
            default -> null;
        });
    }

    @Override
    public String toString() {
        return "OpenClCodecProvider" + codecNames() + (backend == null ? "" : " on " + backend.device());
    }
}
