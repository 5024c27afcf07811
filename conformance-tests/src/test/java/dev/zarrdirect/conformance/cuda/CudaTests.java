// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.CudaBackendProvider;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;

/**
 * Opens the CUDA backend for a test, or skips the test with the probe's reason; with
 * {@code ZD_REQUIRE_CUDA=1} (the GPU machine) an unavailable backend fails instead.
 */
final class CudaTests {

    /** The seed of this run's random data; printed so that a failure can be replayed with -Dzd.seed. */
    static final long SEED = Long.getLong("zd.seed", System.nanoTime());

    static {
        System.out.println("cuda conformance: seed " + SEED + " (replay with -Dzd.seed=" + SEED + ")");
    }

    private CudaTests() {
    }

    static boolean required() {
        return "1".equals(System.getenv("ZD_REQUIRE_CUDA"));
    }

    static ProbeResult probe() {
        return new CudaBackendProvider().probe();
    }

    /** The backend with buffer tracking on, or a skipped (or, when required, failed) test. */
    static CudaBackend open() {
        ProbeResult p = probe();
        if (!p.available()) {
            if (required()) {
                Assertions.fail("ZD_REQUIRE_CUDA=1 but the cuda backend is unavailable: " + p.reason());
            }
            Assumptions.abort("cuda backend unavailable: " + p.reason());
        }
        CudaBackend b = new CudaBackendProvider().open();
        b.trackBuffers(true);
        return b;
    }

    static Random random(String test) {
        return new Random(SEED ^ test.hashCode());
    }

    /** The cpu backend's codec {@code name}: what a device codec's bytes are compared with. */
    static BytesToBytesCodec cpuCodec(String name, Map<String, Object> config) {
        CodecProvider p = ServiceLoader.load(CodecProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(c -> c.name().equals("cpu")).findFirst().orElseThrow();
        return (BytesToBytesCodec) p.create(name, config, Device.CPU).orElseThrow();
    }

    /** {@code raw} encoded by {@code enc}. */
    static byte[] encode(BytesToBytesCodec enc, byte[] raw) {
        try (HostBuffer in = HostBuffer.allocate(raw.length);
             HostBuffer out = HostBuffer.allocate(enc.maxEncodedSize(raw.length))) {
            MemorySegment.copy(MemorySegment.ofArray(raw), 0, in.segment(), 0, raw.length);
            CodecBatch b = CodecBatch.of(in, out, "chunk");
            enc.encode(b);
            b.throwIfFailed();
            return out.segment().asSlice(0, b.written(0)).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** Bytes that compress somewhat: runs, repeats of earlier bytes and noise, for every zstd block kind. */
    static byte[] compressible(Random rnd, int n) {
        byte[] b = new byte[n];
        int i = 0;
        while (i < n) {
            int kind = rnd.nextInt(4);
            int len = Math.min(n - i, 1 + rnd.nextInt(kind == 0 ? 4000 : 300));
            switch (kind) {
                case 0 -> java.util.Arrays.fill(b, i, i + len, (byte) rnd.nextInt());
                case 1 -> {
                    if (i > 0) {
                        int from = rnd.nextInt(i);
                        for (int k = 0; k < len; k++) {
                            b[i + k] = b[from + k % (i - from)];
                        }
                    }
                }
                case 2 -> {
                    for (int k = 0; k < len; k++) {
                        b[i + k] = (byte) ('a' + rnd.nextInt(6));
                    }
                }
                default -> {
                    for (int k = 0; k < len; k++) {
                        b[i + k] = (byte) rnd.nextInt();
                    }
                }
            }
            i += len;
        }
        return b;
    }
}
