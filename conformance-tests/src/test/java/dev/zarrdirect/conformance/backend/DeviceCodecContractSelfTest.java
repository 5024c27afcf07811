// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.backend;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.cpu.CpuBackend;
import dev.zarrdirect.cpu.CpuBackendProvider;
import dev.zarrdirect.testing.BackendContract.Placement;
import dev.zarrdirect.testing.DeviceCodecContract;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/**
 * The device-codec contract catches what it promises to: it runs, through the JUnit launcher, on
 * the CPU backend whose codecs are wrapped with one flaw at a time (a write one byte past the
 * output, a wrong output byte, damaged input accepted), and the tests of exactly the flawed codec
 * fail. With no flaw none fails: that is {@link CpuCodecContractTest}.
 */
class DeviceCodecContractSelfTest {

    enum Flaw {
        NONE,
        /** numcodecs.shuffle writes one byte after its output, as a kernel with an off-by-one would. */
        OVERRUN,
        /** crc32c's decode changes the first byte of its output. */
        WRONG_BYTE,
        /** gzip reports damaged input as decoded. */
        ACCEPTS_DAMAGE
    }

    static volatile Flaw flaw = Flaw.NONE;

    /** The contract on the flawed backend; run through the launcher by the tests below, not on its own. */
    static class FlawedCpuCodecContract extends DeviceCodecContract {
        @Override
        protected Backend openBackend() {
            CpuBackend cpu = new CpuBackendProvider().open();
            cpu.trackBuffers(true);
            return new FlawedBackend(cpu);
        }

        @Override
        protected void assertNoLiveBuffers(Backend backend) {
            ((FlawedBackend) backend).cpu.assertNoLiveBuffers();
        }

        @Override
        protected Placement codecMemory(Backend backend) {
            return new Placement(Device.CPU, MemoryKind.HOST);
        }

        @Override
        protected Placement hostMemory(Backend backend) {
            return new Placement(Device.CPU, MemoryKind.HOST);
        }
    }

    @AfterEach
    void noFlaw() {
        flaw = Flaw.NONE;
    }

    /**
     * The display names of the dynamic tests of the contract's {@code factory} that failed with
     * {@code f} switched on. (With no flaw none fails: that is {@link CpuCodecContractTest}.)
     */
    private static Set<String> failuresWith(Flaw f, String factory) {
        flaw = f;
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(selectMethod(FlawedCpuCodecContract.class, factory)).build(), listener);
        TestExecutionSummary summary = listener.getSummary();
        assertTrue(summary.getTestsSucceededCount() > 5, "the contract ran: " + summary.getTestsSucceededCount()
                + " tests of " + factory + " passed with " + f);
        Set<String> failed = new TreeSet<>();
        summary.getFailures().forEach(x -> failed.add(x.getTestIdentifier().getDisplayName()));
        return failed;
    }

    @Test
    void aWritePastTheOutputFailsThatCodecsTests() {
        Set<String> failed = failuresWith(Flaw.OVERRUN, "bytesCodecsDecodeWhatTheCpuDecodesByteForByte");
        assertTrue(!failed.isEmpty() && failed.stream().allMatch(n -> n.startsWith("numcodecs.shuffle")), failed.toString());
    }

    @Test
    void aWrongOutputByteFailsThatCodecsTests() {
        Set<String> failed = failuresWith(Flaw.WRONG_BYTE, "bytesCodecsDecodeWhatTheCpuDecodesByteForByte");
        assertTrue(!failed.isEmpty() && failed.stream().allMatch(n -> n.startsWith("crc32c")), failed.toString());
    }

    @Test
    void damagedInputReportedAsDecodedFailsTheDamageTest() {
        assertEquals(Set.of("gzip {level=5}"), failuresWith(Flaw.ACCEPTS_DAMAGE, "damagedInputFailsWhereTheCpuFailsAndOnlyItsOwnChunk"));
    }

    /** The CPU backend, with its codecs wrapped by {@link #wrap}. */
    private static final class FlawedBackend implements Backend {
        final CpuBackend cpu;

        FlawedBackend(CpuBackend cpu) {
            this.cpu = cpu;
        }

        @Override
        public String name() {
            return "flawed-cpu";
        }

        @Override
        public List<Device> devices() {
            return cpu.devices();
        }

        @Override
        public Buffer allocate(Device device, MemoryKind kind, long bytes) {
            return cpu.allocate(device, kind, bytes);
        }

        @Override
        public void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
            cpu.copy(src, srcOffset, dst, dstOffset, bytes);
        }

        @Override
        public void fill(Buffer dst, long offset, long count, MemorySegment pattern) {
            cpu.fill(dst, offset, count, pattern);
        }

        @Override
        public int preferredBatchSize() {
            return 1;
        }

        @Override
        public CodecProvider codecs() {
            CodecProvider real = cpu.codecs();
            return new CodecProvider() {
                @Override
                public String name() {
                    return "flawed-cpu";
                }

                @Override
                public Set<DeviceType> deviceTypes() {
                    return real.deviceTypes();
                }

                @Override
                public Set<String> codecNames() {
                    return real.codecNames();
                }

                @Override
                public Optional<Codec> create(String name, Map<String, Object> configuration, Device device) {
                    return real.create(name, configuration, device).map(FlawedBackend::wrap);
                }
            };
        }

        private static Codec wrap(Codec c) {
            if (!(c instanceof BytesToBytesCodec b)) {
                return c;
            }
            return new BytesToBytesCodec() {
                @Override
                public String name() {
                    return b.name();
                }

                @Override
                public Device device() {
                    return b.device();
                }

                @Override
                public String provider() {
                    return "flawed-cpu";
                }

                @Override
                public long encodedSize(long decodedSize) {
                    return b.encodedSize(decodedSize);
                }

                @Override
                public long maxEncodedSize(long decodedSize) {
                    return b.maxEncodedSize(decodedSize);
                }

                @Override
                public void encode(CodecBatch batch) {
                    b.encode(batch);
                }

                @Override
                public void decode(CodecBatch batch) {
                    if (flaw == Flaw.ACCEPTS_DAMAGE && b.name().equals("gzip")) {
                        List<CodecBatch.Item> items = new ArrayList<>();
                        for (int i = 0; i < batch.size(); i++) {
                            items.add(batch.item(i));
                        }
                        CodecBatch inner = new CodecBatch(items);
                        b.decode(inner);
                        for (int i = 0; i < batch.size(); i++) {
                            batch.complete(i, inner.failure(i) == null ? inner.written(i) : batch.output(i).byteSize());
                        }
                        return;
                    }
                    b.decode(batch);
                    for (int i = 0; i < batch.size(); i++) {
                        Buffer out = batch.output(i);
                        if (flaw == Flaw.OVERRUN && b.name().equals("numcodecs.shuffle")) {
                            MemorySegment.ofAddress(out.address() + out.byteSize()).reinterpret(1)
                                    .set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
                        }
                        if (flaw == Flaw.WRONG_BYTE && b.name().equals("crc32c") && batch.failure(i) == null
                                && batch.written(i) > 0) {
                            MemorySegment s = out.segment();
                            s.set(ValueLayout.JAVA_BYTE, 0, (byte) ~s.get(ValueLayout.JAVA_BYTE, 0));
                        }
                    }
                }
            };
        }

        @Override
        public void close() {
            cpu.close();
        }
    }
}
