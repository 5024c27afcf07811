// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.memory.MemoryStore;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.zarrdirect.core.ArrayFixtures.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The inner chunks of one shard, fetched in one request, are decoded by several workers at once:
 * a codec that lets each decode go on only once {@link #PARTIES} decodes are running together
 * (it gives up after a few seconds, failing the read) proves it, where decoding them one by one on
 * the fetching thread would never get there. Also: a shard read alone, on the calling thread, fans
 * out too, a damaged inner chunk among them fails the read naming that chunk, and every worker has
 * stopped touching the destination when the read returns.
 */
class InnerChunkDecodeParallelismTest {

    /** Decodes that must run at once. */
    static final int PARTIES = 3;
    /** Inner chunks of 1 MiB each, {@link dev.zarrdirect.core.exec.ReadEngine}'s least worth sharing. */
    static final long[] INNER = {1, 1024, 1024};
    static final long[] SHAPE = {6, 1024, 1024};
    /** A first byte that the codec refuses to decode. */
    static final byte POISON = (byte) 0xEE;

    static ZarrContext ctx;
    static final AtomicInteger running = new AtomicInteger();
    static final AtomicInteger peak = new AtomicInteger();
    static final AtomicInteger decoded = new AtomicInteger();
    static final Set<String> threads = Collections.synchronizedSet(new java.util.HashSet<>());
    static volatile CyclicBarrier barrier;

    @BeforeAll
    static void start() throws IOException {
        Path services = Files.createTempDirectory("zd-rendezvous");
        Path file = services.resolve("services");
        Files.writeString(file, RendezvousProvider.class.getName() + "\n");
        String name = "META-INF/services/" + CodecProvider.class.getName();
        ClassLoader parent = InnerChunkDecodeParallelismTest.class.getClassLoader();
        ClassLoader withProbe = new ClassLoader(parent) {
            @Override
            public Enumeration<URL> getResources(String resource) throws IOException {
                if (!resource.equals(name)) {
                    return super.getResources(resource);
                }
                List<URL> urls = new ArrayList<>(Collections.list(super.getResources(resource)));
                urls.add(file.toUri().toURL());
                return Collections.enumeration(urls);
            }
        };
        ctx = ZarrContext.builder().backend("cpu").threads(4).classLoader(withProbe).open();
        Files.delete(file);
        Files.delete(services);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    @BeforeEach
    void reset() {
        running.set(0);
        peak.set(0);
        decoded.set(0);
        threads.clear();
        barrier = new CyclicBarrier(PARTIES);
    }

    private static ZarrArray shardedArray(Tensor data) {
        return shardedArray(new MemoryStore(), SHAPE, data);
    }

    private static ZarrArray shardedArray(dev.zarrdirect.api.store.Store store, long[] shape, Tensor data) {
        CodecMetadata probe = CodecMetadata.of(RendezvousProvider.NAME, Map.of());
        ZarrArray a = Zarr.createArray(ctx, store, "x", ArrayMetadata.create(shape, DataType.UINT8, shape,
                FillValue.zero(DataType.UINT8), List.of(sharding(INNER, List.of(bytes("little"), probe),
                        List.of(bytes("little"), crc32c()), "end"))));
        barrier = null; // writing encodes only
        a.write(data);
        barrier = new CyclicBarrier(PARTIES);
        return a;
    }

    @Test
    void innerChunksOfOneShardDecodeOnSeveralThreadsAtOnce() {
        try (Tensor data = random(DataType.UINT8, SHAPE, new Random(11))) {
            ZarrArray a = shardedArray(data);
            try (Tensor back = a.read()) {
                assertSameBytes(data, back, "the shard read back");
            }
            assertTrue(peak.get() >= PARTIES, "at most " + peak.get() + " inner chunks decoded at once");
            assertTrue(threads.size() >= PARTIES, "decoded on " + threads);
            assertEquals(0, running.get(), "a decode still ran after the read returned");
        }
    }

    @Test
    void aDamagedInnerChunkAmongManyFailsTheReadNamingIt() {
        try (Tensor data = random(DataType.UINT8, SHAPE, new Random(12))) {
            // inner chunk [4, 0, 0] starts with the byte the codec refuses
            data.segment().set(ValueLayout.JAVA_BYTE, 4 * 1024 * 1024, POISON);
            ZarrArray a = shardedArray(data);
            barrier = null; // no rendezvous: one chunk fails, the others go on alone
            CorruptChunkException e = assertThrows(CorruptChunkException.class, a::read);
            assertTrue(e.getMessage().contains("inner chunk [4, 0, 0]"), e.getMessage());
            assertEquals(0, running.get(), "a decode still ran after the read failed");
            ((CpuBackend) ctx.backend()).assertNoLiveBuffers();
        }
    }

    @Test
    void aLargeShardIsFetchedInPiecesAndTheFirstDecodesWhileTheNextIsOnItsWay() {
        long[] shape = {12, 1024, 1024}; // one 12 MiB shard: more than one request holds
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        dev.zarrdirect.api.store.Store store = new dev.zarrdirect.api.store.FilterStore(new MemoryStore()) {
            @Override
            public Optional<MemorySegment> get(String key, dev.zarrdirect.api.store.ByteRange range,
                                               java.lang.foreign.SegmentAllocator allocator) {
                if (key.equals("x/c/0/0/0") && !range.isSuffix() && range.length() >= 1 << 20 && range.offset() > 0) {
                    // a later piece: let it arrive only once the first piece has decoded something
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (decoded.get() == 0 && System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    log.add("piece at " + range.offset() + " after " + decoded.get() + " decodes");
                } else if (key.equals("x/c/0/0/0") && range.length() >= 1 << 20) {
                    log.add("piece at " + range.offset());
                }
                return in.get(key, range, allocator);
            }
        };
        try (Tensor data = random(DataType.UINT8, shape, new Random(13))) {
            ZarrArray a = shardedArray(store, shape, data);
            barrier = null;
            log.clear();
            try (Tensor back = a.read()) {
                assertSameBytes(data, back, "the shard read back");
            }
            assertEquals(2, log.size(), "requests of the shard's chunks: " + log);
            assertTrue(log.stream().anyMatch(l -> l.matches("piece at [1-9]\\d* after [1-9]\\d* decodes")),
                    "no piece was fetched after another had decoded: " + log);
        }
    }

    /** Provides {@link #NAME}, an identity codec that waits in decode for {@link #PARTIES} decodes at once. */
    public static final class RendezvousProvider implements CodecProvider {
        static final String NAME = "test.rendezvous";

        @Override
        public String name() {
            return "rendezvous-probe";
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
            return NAME.equals(codecName) && device.equals(Device.CPU) ? Optional.of(new Rendezvous()) : Optional.empty();
        }
    }

    record Rendezvous() implements BytesToBytesCodec {
        @Override
        public String name() {
            return RendezvousProvider.NAME;
        }

        @Override
        public Device device() {
            return Device.CPU;
        }

        @Override
        public String provider() {
            return "rendezvous-probe";
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
        public void encode(CodecBatch batch) {
            for (int i = 0; i < batch.size(); i++) {
                batch.output(i).segment().copyFrom(batch.input(i).segment());
                batch.complete(i, batch.input(i).byteSize());
            }
        }

        @Override
        public void decode(CodecBatch batch) {
            for (int i = 0; i < batch.size(); i++) {
                MemorySegment in = batch.input(i).segment();
                int now = running.incrementAndGet();
                peak.accumulateAndGet(now, Math::max);
                threads.add(Thread.currentThread().getName());
                try {
                    if (in.get(ValueLayout.JAVA_BYTE, 0) == POISON) {
                        throw new CorruptChunkException(RendezvousProvider.NAME, batch.label(i) + " starts with 0xEE");
                    }
                    CyclicBarrier b = barrier;
                    if (b != null) {
                        b.await(5, TimeUnit.SECONDS);
                    }
                    batch.output(i).segment().copyFrom(in);
                    decoded.incrementAndGet();
                } catch (java.util.concurrent.TimeoutException | java.util.concurrent.BrokenBarrierException e) {
                    throw new IllegalStateException("fewer than " + PARTIES + " decodes ran at once (" + e + ")", e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                } finally {
                    running.decrementAndGet();
                }
                batch.complete(i, in.byteSize());
            }
        }
    }
}
