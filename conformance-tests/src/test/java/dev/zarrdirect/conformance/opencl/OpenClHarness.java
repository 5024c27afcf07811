// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.BackendProvider;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.CodecProvider;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The OpenCL backend as the conformance suite sees it, through the api only: found by
 * {@link ServiceLoader}, skipped with the probe's reason when unavailable, or failed instead when the
 * environment variable {@code ZD_REQUIRE_OPENCL=1} says OpenCL must be there (CI sets it).
 *
 * <p>Batches are laid out three ways, so that every path of a device codec runs: {@link Layout#PACKED}
 * (all inputs slices of one device buffer, all outputs slices of another: one launch),
 * {@link Layout#SEPARATE} (each item its own device buffers: a launch per item) and
 * {@link Layout#HOST} (host buffers, staged by the codec). Every output is poisoned before a run and
 * surrounded by guard bytes that must survive it.
 */
final class OpenClHarness implements AutoCloseable {

    static final int GUARD = 64;
    static final byte POISON = (byte) 0xCD;
    static final byte GUARD_BYTE = (byte) 0x5A;

    enum Layout { PACKED, SEPARATE, HOST }

    final Backend backend;
    final Device device;
    final CodecProvider gpu;
    final CodecProvider cpu;

    private OpenClHarness(Backend backend, CodecProvider cpu) {
        this.backend = backend;
        this.device = backend.defaultDevice();
        this.gpu = backend.codecs();
        this.cpu = cpu;
    }

    /** Opens the backend, or skips (fails with ZD_REQUIRE_OPENCL=1) with the probe's reason. */
    static OpenClHarness openOrSkip() {
        Backend backend = openBackendOrSkip();
        CodecProvider cpu = ServiceLoader.load(CodecProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("cpu")).findFirst()
                .orElseThrow(() -> new AssertionError("the cpu codec provider is missing from the test class path"));
        return new OpenClHarness(backend, cpu);
    }

    /**
     * The OpenCL backend with buffer tracking on, found through {@link ServiceLoader}, or a skipped
     * test (a failed one with ZD_REQUIRE_OPENCL=1) naming why it is unavailable.
     */
    static Backend openBackendOrSkip() {
        BackendProvider provider = ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("opencl")).findFirst().orElse(null);
        String why = provider == null ? "no BackendProvider named \"opencl\" on the class path" : null;
        ProbeResult probe = provider == null ? null : provider.probe();
        if (probe != null && !probe.available()) {
            why = probe.reason();
        }
        if (why != null) {
            if ("1".equals(System.getenv("ZD_REQUIRE_OPENCL"))) {
                fail("ZD_REQUIRE_OPENCL=1 but the OpenCL backend is unavailable: " + why);
            }
            assumeTrue(false, why);
        }
        Backend backend = provider.open();
        ((dev.zarrdirect.opencl.OpenClBackend) backend).trackBuffers(true);
        return backend;
    }

    Codec gpuCodec(String name, Map<String, Object> config) {
        return gpu.create(name, config, device).orElseThrow(() -> new AssertionError("the opencl provider has no "
                + name + " codec for " + device + "; it offers " + gpu.codecNames()));
    }

    Codec cpuCodec(String name, Map<String, Object> config) {
        return cpu.create(name, config, Device.CPU).orElseThrow();
    }

    /** One run of a batch: inputs placed, outputs poisoned and guarded, results read back. */
    final class Run implements AutoCloseable {
        final CodecBatch batch;
        private final List<Buffer> owned = new ArrayList<>();
        private final List<Buffer> outParents = new ArrayList<>();
        private final List<Long> outAt = new ArrayList<>();
        private final long[] outSizes;

        Run(Layout layout, List<byte[]> inputs, long[] outSizes, List<String> labels) {
            this.outSizes = outSizes.clone();
            int n = inputs.size();
            List<CodecBatch.Item> items = new ArrayList<>();
            boolean ok = false;
            try {
                if (layout == Layout.PACKED) {
                    long inTotal = 0;
                    long outTotal = GUARD;
                    for (int i = 0; i < n; i++) {
                        inTotal += inputs.get(i).length + 3; // odd gaps: unaligned offsets
                        outTotal += outSizes[i] + GUARD;
                    }
                    Buffer in = own(backend.allocate(device, MemoryKind.DEVICE, inTotal));
                    Buffer out = own(backend.allocate(device, MemoryKind.DEVICE, outTotal));
                    poison(out, 0, outTotal, GUARD_BYTE);
                    long ia = 0;
                    long oa = GUARD;
                    for (int i = 0; i < n; i++) {
                        byte[] d = inputs.get(i);
                        put(in, ia, d);
                        poison(out, oa, outSizes[i], POISON);
                        items.add(new CodecBatch.Item(in.slice(ia, d.length), out.slice(oa, outSizes[i]), labels.get(i)));
                        outParents.add(out);
                        outAt.add(oa);
                        ia += d.length + 3;
                        oa += outSizes[i] + GUARD;
                    }
                } else {
                    Device where = layout == Layout.HOST ? Device.CPU : device;
                    MemoryKind kind = layout == Layout.HOST ? MemoryKind.HOST : MemoryKind.DEVICE;
                    for (int i = 0; i < n; i++) {
                        byte[] d = inputs.get(i);
                        Buffer in = own(backend.allocate(where, kind, d.length));
                        put(in, 0, d);
                        Buffer out = own(backend.allocate(where, kind, outSizes[i] + 2L * GUARD));
                        poison(out, 0, outSizes[i] + 2L * GUARD, GUARD_BYTE);
                        poison(out, GUARD, outSizes[i], POISON);
                        items.add(new CodecBatch.Item(in, out.slice(GUARD, outSizes[i]), labels.get(i)));
                        outParents.add(out);
                        outAt.add((long) GUARD);
                    }
                }
                batch = new CodecBatch(items);
                ok = true;
            } finally {
                if (!ok) {
                    close();
                }
            }
        }

        private Buffer own(Buffer b) {
            owned.add(b);
            return b;
        }

        private void put(Buffer dst, long at, byte[] data) {
            backend.copy(HostBuffer.wrap(MemorySegment.ofArray(data)), 0, dst, at, data.length);
        }

        private void poison(Buffer dst, long at, long n, byte value) {
            backend.fill(dst, at, n, MemorySegment.ofArray(new byte[]{value}));
        }

        /** The first {@code n} bytes of item {@code i}'s output. */
        byte[] output(int i, long n) {
            byte[] b = new byte[(int) n];
            backend.copy(outParents.get(i), outAt.get(i), HostBuffer.wrap(MemorySegment.ofArray(b)), 0, n);
            return b;
        }

        /** Fails unless the guard bytes around item {@code i}'s output (and, from {@code written}, its tail) are intact. */
        void checkGuards(int i, long written, String where) {
            Buffer parent = outParents.get(i);
            long at = outAt.get(i);
            byte[] before = new byte[GUARD];
            byte[] after = new byte[GUARD];
            backend.copy(parent, at - GUARD, HostBuffer.wrap(MemorySegment.ofArray(before)), 0, GUARD);
            backend.copy(parent, at + outSizes[i], HostBuffer.wrap(MemorySegment.ofArray(after)), 0, GUARD);
            byte[] want = new byte[GUARD];
            Arrays.fill(want, GUARD_BYTE);
            if (!Arrays.equals(want, before) || !Arrays.equals(want, after)) {
                fail(where + ": item " + i + " (" + batch.label(i) + ") wrote outside its output: guard before "
                        + Arrays.toString(Arrays.copyOf(before, 8)) + "…, after " + Arrays.toString(Arrays.copyOf(after, 8))
                        + "…");
            }
            if (written >= 0 && written < outSizes[i]) {
                byte[] tail = output(i, outSizes[i]);
                for (long k = written; k < outSizes[i]; k++) {
                    if (tail[(int) k] != POISON) {
                        fail(where + ": item " + i + " reports " + written + " bytes written but changed byte " + k
                                + " of its output");
                    }
                }
            }
        }

        @Override
        public void close() {
            owned.forEach(Buffer::close);
            owned.clear();
        }
    }

    /** Runs {@code codecCall} on a batch over host buffers and returns it (for the CPU reference). */
    static CodecBatch hostBatch(List<byte[]> inputs, long[] outSizes, List<String> labels, List<HostBuffer> keep,
                                Consumer<CodecBatch> codecCall) {
        List<CodecBatch.Item> items = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            HostBuffer in = HostBuffer.allocate(inputs.get(i).length);
            MemorySegment.copy(MemorySegment.ofArray(inputs.get(i)), 0, in.segment(), 0, inputs.get(i).length);
            HostBuffer out = HostBuffer.allocate(outSizes[i]);
            keep.add(in);
            keep.add(out);
            items.add(new CodecBatch.Item(in, out, labels.get(i)));
        }
        CodecBatch b = new CodecBatch(items);
        codecCall.accept(b);
        return b;
    }

    static byte[] bytes(Buffer host, long n) {
        return host.segment().asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    @Override
    public void close() {
        backend.close();
    }
}
