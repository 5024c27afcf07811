// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.device;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.core.ReadSettings;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.plan.ReadPlanner;
import dev.zarrdirect.core.registry.BackendRegistry;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static dev.zarrdirect.conformance.device.DeviceReadConformanceTest.blosc;
import static dev.zarrdirect.conformance.device.DeviceReadConformanceTest.c;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The rule of {@code zarrdirect.serialRunsPerCore}: on a device backend, a batch whose deflate
 * streams (gzip, numcodecs.zlib, blosc with zlib inside) are too few to keep the device busy decodes
 * on the host. Whichever way a batch goes, a read gives the CPU's bytes: with the rule off (0,
 * every batch on the device), at its default (small batches on the host, large ones on the device,
 * shared with the host or sent the way timed faster: {@code zarrdirect.hostShare} on and off), and at
 * its maximum (every batch of these small arrays on the host); the decoder's path says which rule it
 * applies.
 */
class SerialRunRuleTest {

    static final long SEED = Long.getLong("zd.seed", System.nanoTime());

    @TestFactory
    Stream<DynamicTest> batchesOfFewDeflateStreamsReadWhatTheCpuReadsWhereverTheyDecode() {
        List<DynamicTest> tests = new ArrayList<>();
        for (String name : BackendRegistry.discover().entries().stream()
                .filter(e -> !e.name().equals("cpu") && e.probe().available()).map(BackendRegistry.Entry::name).toList()) {
            tests.add(DynamicTest.dynamicTest(name, () -> check(name)));
        }
        return tests.stream();
    }

    private static void check(String name) {
        CodecMetadata le = c("bytes", Map.of("endian", "little"));
        List<List<CodecMetadata>> chains = List.of(
                List.of(le, c("gzip", Map.of("level", 5L))),
                List.of(le, c("numcodecs.zlib", Map.of("level", 1L))),
                List.of(le, blosc("zlib", 5, "shuffle", 4, 256)));
        long[] shape = {48, 9, 70};
        long[] chunks = {1, 9, 70};
        Random rnd = new Random(SEED);
        for (List<CodecMetadata> codecs : chains) {
            MemoryStore store = new MemoryStore();
            try (ZarrContext cpu = ZarrContext.open("cpu", 2)) {
                ZarrArray w = Zarr.createArray(cpu, store, "a", ArrayMetadata.create(shape, DataType.FLOAT32, chunks,
                        FillValue.zero(DataType.FLOAT32), codecs));
                try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, shape)) {
                    for (long i = 0; i < t.elementCount(); i++) {
                        t.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4 * i, (float) (270 + 8 * Math.sin(i / 40.0)
                                + rnd.nextGaussian()));
                    }
                    w.write(t);
                }
                ZarrArray onCpu = Zarr.openArray(cpu, store, "a");
                // batches of 1 and 48 chunks: below and above the default's threshold on machines of up to
                // 6 cores (48 chunks of blosc in 10 blocks each: up to 60); 4096: on the host however large;
                // the third number: batches of runs enough shared with the host (1) or sent one way (0)
                int def = ReadSettings.SERIAL_RUNS_PER_CORE.defaultValue();
                for (int[] rule : new int[][] {{0, 1, 1}, {0, 48, 1}, {def, 1, 1}, {def, 48, 0}, {def, 48, 1}, {4096, 48, 1}}) {
                    int runsPerCore = rule[0], batch = rule[1];
                    boolean share = rule[2] == 1;
                    ReadSettings rs = ReadSettings.defaults().withSerialRunsPerCore(runsPerCore).withDeviceBatchSize(batch)
                            .withHostShare(share);
                    try (ZarrContext dev = ZarrContext.builder().backend(name).threads(2).readSettings(rs)
                            .set("zarrdirect.trackBuffers", "true").open()) {
                        ZarrArray onDev = Zarr.openArray(dev, store, "a");
                        String path = onDev.devicePath();
                        String what = name + " " + codecs.get(1).name() + " serialRunsPerCore=" + runsPerCore
                                + " batches of " + batch + (share ? " shared" : " one way") + " via " + path
                                + " (seed " + SEED + ")";
                        assertTrue(path.startsWith("batched decode on"), what);
                        assertEquals(runsPerCore > 0, path.contains("serial runs"), what);
                        List<Selection> sels = new ArrayList<>(List.of(Selection.all(shape), Selection.parse("3:40,2:8,5:66", shape)));
                        // blosc's chunks here are 10 blocks of 256 bytes, each a run; gzip and zlib one a chunk
                        long runs = 37L * (codecs.get(1).name().equals("blosc") ? 10 : 1);
                        boolean timed = runsPerCore == def && batch == 48
                                && runs >= (long) def * Runtime.getRuntime().availableProcessors();
                        if (timed) {
                            // batches of runs enough for the device are shared with the host, or go
                            // the way timed faster: these reads take both ways (two batches each)
                            // before it decides
                            for (int i = 0; i < 6; i++) {
                                sels.add(Selection.all(shape));
                            }
                        }
                        for (int r = 0; r < sels.size(); r++) {
                            Selection sel = sels.get(r);
                            if (timed && r == 2) {
                                // the next batches are the host's probes: a corrupt chunk, first or last,
                                // fails the read naming it, as on the CPU, and the probe is tried again
                                // by the reads after (the path then says both ways were timed); shared,
                                // the first chunk is in the device's part and the last in the host's
                                for (long bad : new long[] {0, 47}) {
                                    String key = "a/" + w.metadata().chunkKey(new long[] {bad, 0, 0});
                                    MemorySegment good = store.get(key, java.lang.foreign.Arena.global()).orElseThrow();
                                    byte[] junk = new byte[(int) good.byteSize()];
                                    rnd.nextBytes(junk);
                                    store.set(key, MemorySegment.ofArray(junk));
                                    RuntimeException cpuError = assertThrows(RuntimeException.class, () -> onCpu.read(sel).close());
                                    RuntimeException devError = assertThrows(RuntimeException.class,
                                            () -> onDev.readToDevice(sel).close(), what + ": chunk " + bad + " corrupt");
                                    assertEquals(cpuError.getClass(), devError.getClass(), what + ": " + devError);
                                    assertTrue(String.valueOf(devError.getMessage()).contains("[" + bad + ", 0, 0]"),
                                            what + ": " + devError);
                                    store.set(key, good);
                                }
                            }
                            // into a poisoned destination: a device pool hands back the last read's
                            // memory, which would hide chunks that a read leaves unwritten
                            try (Tensor expect = onCpu.read(sel);
                                 Buffer got = dev.backend().allocateUninitialized(dev.backend().defaultDevice(),
                                         MemoryKind.DEVICE, expect.byteSize());
                                 HostBuffer back = HostBuffer.allocate(expect.byteSize())) {
                                dev.backend().fill(got, 0, expect.byteSize(), MemorySegment.ofArray(new byte[] {(byte) 0xA7}));
                                onDev.readIntoAsync(onDev.plan(List.of(new ReadPlanner.Request(sel.start(), sel.stop(),
                                        new long[sel.start().length])), sel.shape()), got).join();
                                dev.backend().copy(got, 0, back, 0, expect.byteSize());
                                long m = expect.segment().mismatch(back.segment());
                                assertEquals(-1, m, what + " " + sel + ": first difference at byte " + m);
                            }
                        }
                        DeviceReadConformanceTest.assertNoLiveBuffers(dev.backend());
                        if (timed && share) {
                            String after = onDev.devicePath();
                            assertTrue(after.matches("(?s).*shared with the host: [0-9.]+ of each batch's ranges on the host"
                                    + " \\(after [0-9]+ batches[^)]*\\).*"), what + ": shared, then " + after);
                        } else if (timed) {
                            String after = onDev.devicePath();
                            assertTrue(after.matches("(?s).*batches of 32-63 chunks: device [0-9.]+ GB/s host [0-9.]+ GB/s.*"),
                                    what + ": both ways timed, then " + after);
                        }
                    }
                }
            }
        }
    }
}
