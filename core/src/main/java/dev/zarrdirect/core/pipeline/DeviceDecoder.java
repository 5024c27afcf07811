package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Region;
import dev.zarrdirect.api.buffer.StridedCopy;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ArrayToBytesCodec;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.codec.BuiltinCodecs;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.registry.CodecRegistry;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Decodes chunks on a device in batches: the encoded bytes of a whole batch land in one pinned
 * staging buffer, move to the device in one copy, then every codec stage runs once for the batch
 * (one launch per stage on a GPU backend), and one batched region copy places the decoded chunks
 * into the destination tensor. Chunks never written are filled on the device.
 *
 * <p>A stage whose codec has no implementation on the device runs on the CPU: its inputs are copied
 * to the host and its outputs back ({@link #hostFallbacks()} names them). Chains this decoder cannot
 * run (sharding, stages of unknown size) are refused by {@link #supports}; the caller decodes those
 * on the host and copies the result.
 */
public final class DeviceDecoder {

    /**
     * One chunk to place: its key and byte range ({@code length} -1 for the whole value; {@code key}
     * null for a box known to hold only the fill value), the box of it wanted, and where that box goes
     * in the destination.
     */
    public record Task(String key, long offset, long length, long[] chunkStart, long[] extent, long[] at, String label) {
        public static Task whole(String key, long[] chunkStart, long[] extent, long[] at, String label) {
            return new Task(key, 0, -1, chunkStart, extent, at, label);
        }
    }

    private final Backend backend;
    private final Device device;
    private final ChunkSpec spec;
    private final List<ArrayToArrayCodec> a2a = new ArrayList<>();
    private final List<ChunkSpec> a2aSpecs = new ArrayList<>();
    private final ArrayToBytesCodec a2b;
    private final ChunkSpec a2bSpec;
    private final boolean a2bIdentity;
    private final List<BytesToBytesCodec> b2b = new ArrayList<>();
    private final long[] stageSizes;
    private final MemorySegment fill;
    private final List<String> hostFallbacks = new ArrayList<>();

    /** Decoded bytes of one task's chunk (of an inner chunk, for a sharded array). */
    public long chunkBytes() {
        return spec.byteSize();
    }

    /**
     * True when {@code chain} can run as device batches: no sharding, or one level of sharding alone,
     * whose inner chunks become the batch items ({@link #leafChain}).
     */
    public static boolean supports(CodecChain chain) {
        return chain.sharding() == null
                || (chain.isPartiallyReadable() && chain.sharding().inner().sharding() == null);
    }

    /** True when {@link #plan} reads the store (a shard's index) for {@code chain}. */
    public static boolean planReadsStore(CodecChain chain) {
        return chain.sharding() != null;
    }

    /** The chain that decodes one batch item: the array's chain, or the inner chain of its shards. */
    public static CodecChain leafChain(CodecChain chain) {
        return chain.sharding() == null ? chain : chain.sharding().inner();
    }

    /**
     * Adds the tasks that read the box {@code [chunkStart, chunkStart+extent)} of the chunk at {@code key}
     * into the destination at {@code at}: the chunk itself, or, for a shard, the inner chunks the box
     * touches (the shard's index is read and decoded here, on the host).
     */
    public static void plan(CodecChain chain, Store store, String key, long[] chunkStart, long[] extent, long[] at,
                            String label, List<Task> tasks) {
        if (chain.sharding() == null) {
            tasks.add(Task.whole(key, chunkStart, extent, at, label));
            return;
        }
        List<ShardingCodec.InnerRead> reads = new ArrayList<>();
        List<ShardingCodec.MissingRead> missing = new ArrayList<>();
        chain.sharding().plan(new StoreChunkSource(store, key), store.size(key), chunkStart, extent, at, label, reads,
                missing);
        for (ShardingCodec.MissingRead m : missing) {
            tasks.add(new Task(null, 0, 0, new long[m.at().length], m.extent(), m.at(), label));
        }
        for (ShardingCodec.InnerRead r : reads) {
            tasks.add(new Task(key, r.offset(), r.length(), r.chunkStart(), r.extent(), r.at(),
                    label + " inner chunk " + java.util.Arrays.toString(r.chunkIndex())));
        }
    }

    public DeviceDecoder(Backend backend, Device device, CodecRegistry registry, Map<String, String> choices,
                         CodecChain hostChain, String where) {
        if (hostChain.sharding() != null) {
            throw new IllegalArgumentException("chain " + hostChain.describe() + " of " + where
                    + " has sharding: give the device decoder its leaf chain");
        }
        this.backend = backend;
        this.device = device;
        this.spec = hostChain.spec();
        this.fill = hostChain.fill();
        ChunkSpec cur = spec;
        ArrayToBytesCodec a2bFound = null;
        boolean identity = false;
        for (CodecMetadata c : hostChain.metadata()) {
            Codec impl = registry.resolve(c.name(), c.configuration(), device, choices, where);
            if (!impl.device().equals(device)) {
                hostFallbacks.add(c.name() + "@" + impl.provider());
            }
            switch (impl) {
                case ArrayToArrayCodec t -> {
                    a2a.add(t);
                    a2aSpecs.add(cur);
                    cur = t.encodedSpec(cur);
                }
                case ArrayToBytesCodec t -> {
                    a2bFound = t;
                    identity = BuiltinCodecs.BYTES.equals(c.name())
                            && (cur.dataType().swapUnit() == 1 || "little".equals(c.configuration().get("endian")));
                }
                case BytesToBytesCodec t -> b2b.add(t);
            }
        }
        this.a2b = a2bFound;
        this.a2bSpec = cur;
        this.a2bIdentity = identity;
        this.stageSizes = new long[b2b.size() + 1];
        stageSizes[0] = a2b.encodedSize(a2bSpec);
        for (int i = 0; i < b2b.size(); i++) {
            stageSizes[i + 1] = stageSizes[i] < 0 ? -1 : b2b.get(i).encodedSize(stageSizes[i]);
        }
        // A stage of data-dependent size (crc32c after zstd) is fine when its codec can tell its
        // decoded size from the input's size alone; reading a size out of device memory is not.
        for (int i = 0; i < b2b.size(); i++) {
            if (stageSizes[i] < 0 && b2b.get(i).decodedSize(1L << 20) < 0) {
                throw new IllegalArgumentException("stage " + b2b.get(i).name() + " of " + where
                        + " has no size the device decoder can know before decoding");
            }
        }
    }

    /** The codecs of this chain that run on the CPU because the device has no implementation. */
    public List<String> hostFallbacks() {
        return List.copyOf(hostFallbacks);
    }

    /**
     * One batch whose encoded bytes are on the device (or known missing), ready to decode. Owns the
     * device memory it holds: close it after {@link #decode}.
     */
    public static final class Fetched implements AutoCloseable {
        private final List<Task> present;
        private final List<Task> missing;
        private final long[] sizes;
        private final long[] offsets;
        private final Buffer encoded;
        private final List<Buffer> owned;

        private Fetched(List<Task> present, List<Task> missing, long[] sizes, long[] offsets, Buffer encoded,
                        List<Buffer> owned) {
            this.present = present;
            this.missing = missing;
            this.sizes = sizes;
            this.offsets = offsets;
            this.encoded = encoded;
            this.owned = owned;
        }

        /** Tasks of this batch, present and missing. */
        public int taskCount() {
            return present.size() + missing.size();
        }

        /** Encoded bytes this batch moved. */
        public long encodedBytes() {
            long n = 0;
            for (long s : sizes) {
                n += s;
            }
            return n;
        }

        @Override
        public void close() {
            closeAll(owned);
        }
    }

    /** Fetches and decodes one batch: {@link #fetch} then {@link #decode}. */
    public void decodeBatch(Store store, List<Task> tasks, Buffer dest, long destOffset, long[] destShape,
                            long[] destByteStrides) {
        try (Fetched f = fetch(store, tasks)) {
            decode(f, dest, destOffset, destShape, destByteStrides);
        }
    }

    /**
     * Brings the encoded bytes of {@code tasks} onto the device: through the backend's direct reader
     * when the store has local files, else into one pinned staging buffer (chunks read in parallel)
     * and one copy. Runs on any thread, so the next batch can be fetched while this one decodes.
     */
    public Fetched fetch(Store store, List<Task> tasks) {
        return fetch(store, tasks, PipelineTrace.off(), "");
    }

    /** As {@link #fetch(Store, List)}, recording its allocation and its reads as spans of {@code trace} named with {@code suffix}. */
    public Fetched fetch(Store store, List<Task> tasks, PipelineTrace trace, String suffix) {
        List<Task> present = new ArrayList<>();
        List<Task> missing = new ArrayList<>();
        long[] sizeOf = new long[tasks.size()];
        long total = 0;
        for (Task t : tasks) {
            long n = t.key() == null ? -1 : t.length() >= 0 ? t.length() : store.size(t.key());
            if (n < 0) {
                missing.add(t);
            } else {
                sizeOf[present.size()] = n;
                present.add(t);
                total = Math.addExact(total, n);
            }
        }
        long[] sizes = java.util.Arrays.copyOf(sizeOf, present.size());
        long[] offsets = new long[present.size()];
        long pos = 0;
        for (int i = 0; i < present.size(); i++) {
            offsets[i] = pos;
            pos += sizes[i];
        }
        List<Buffer> owned = new ArrayList<>();
        if (present.isEmpty()) {
            return new Fetched(present, missing, sizes, offsets, null, owned);
        }
        try {
            long ta = trace.now();
            Buffer encoded = track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE, Math.max(1, total)));
            trace.span("alloc" + suffix, ta, total + " bytes");
            long tr = trace.now();
            DirectReader direct = backend.directReader().orElse(null);
            // once per file: a file store checks every directory of a key's path against symbolic
            // links out of its root (~12 us a key), and a shard's inner chunks share one file
            java.util.Map<String, java.util.Optional<java.nio.file.Path>> paths = new java.util.HashMap<>();
            if (direct != null && present.stream().allMatch(t -> paths.computeIfAbsent(t.key(), store::localPath).isPresent())) {
                // Files straight into device memory: no staging, no copy through the JVM.
                List<DirectReader.Request> reqs = new ArrayList<>();
                for (int i = 0; i < present.size(); i++) {
                    Task t = present.get(i);
                    reqs.add(new DirectReader.Request(paths.get(t.key()).orElseThrow(), t.offset(), sizes[i],
                            encoded, offsets[i]));
                }
                direct.read(reqs);
                trace.span("read" + suffix, tr, reqs.size() + " ranges, " + direct.describe());
            } else {
                // Every encoded chunk of the batch into one pinned buffer, read in parallel, then one copy.
                Buffer staging = track(owned, backend.allocateUninitialized(device, MemoryKind.HOST_PINNED, Math.max(1, total)));
                // Every read finishes before the staging buffer can be given back, failures included.
                java.util.concurrent.atomic.AtomicReference<RuntimeException> failed = new java.util.concurrent.atomic.AtomicReference<>();
                java.util.stream.IntStream.range(0, present.size()).parallel().forEach(i -> {
                    if (failed.get() != null) {
                        return;
                    }
                    try {
                        readInto(store, present.get(i), sizes[i], offsets[i], staging);
                    } catch (RuntimeException e) {
                        if (!failed.compareAndSet(null, e)) {
                            failed.get().addSuppressed(e);
                        }
                    }
                });
                if (failed.get() != null) {
                    throw failed.get();
                }
                backend.copy(staging, 0, encoded, 0, total);
                // The staging buffer is done with: give it back now rather than with the batch.
                owned.remove(staging);
                staging.close();
            }
            return new Fetched(present, missing, sizes, offsets, encoded, owned);
        } catch (RuntimeException | Error e) {
            try {
                closeAll(owned);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static void readInto(Store store, Task t, long want, long at, Buffer staging) {
        ByteRange range = t.length() < 0 ? ByteRange.ALL : ByteRange.of(t.offset(), t.length());
        MemorySegment got = store.get(t.key(), range, (size, align) -> {
            if (size != want) {
                throw new ZarrDirectException("key \"" + t.key() + "\" in " + store + " changed size while it was read ("
                        + want + " then " + size + " bytes)");
            }
            return staging.segment().asSlice(at, size);
        }).orElse(null);
        if (got == null) {
            throw new ZarrDirectException("key \"" + t.key() + "\" in " + store + " disappeared while it was read");
        }
    }

    /** Closes every buffer even when one close fails; the first failure is thrown, later ones suppressed. */
    private static void closeAll(List<Buffer> owned) {
        RuntimeException first = null;
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        owned.clear();
        if (first != null) {
            throw first;
        }
    }

    /**
     * Decodes a fetched batch into {@code dest}, a device region of the destination tensor (the whole
     * tensor; each task's {@code at} is relative to it), and fills the boxes of chunks never written.
     */
    public void decode(Fetched f, Buffer dest, long destOffset, long[] destShape, long[] destByteStrides) {
        int es = spec.dataType().byteSize();
        if (!f.missing.isEmpty()) {
            List<Region> fills = new ArrayList<>();
            for (Task t : f.missing) {
                fills.add(destRegion(dest, destOffset, destByteStrides, t));
            }
            backend.fillRegions(fills, fill);
        }
        List<Task> present = f.present;
        if (present.isEmpty()) {
            return;
        }
        long[] sizes = f.sizes;
        long[] offsets = f.offsets;
        Buffer encoded = f.encoded;
        List<Buffer> owned = f.owned;
        List<Buffer> cur = new ArrayList<>();
        for (int i = 0; i < present.size(); i++) {
            cur.add(encoded.slice(offsets[i], sizes[i]));
        }
        // Where each chunk's final bytes go: straight into the destination when its box there is
        // one contiguous run, else a batch buffer placed afterwards with one region copy.
        List<Buffer> finals = new ArrayList<>();
        List<Region.Copy> place = new ArrayList<>();
        long chunkBytes = spec.byteSize();
        Buffer decodedAll = null;
        int staged = 0;
        for (Task t : present) {
            if (directOffset(t, destShape, destByteStrides, es) < 0) {
                staged++;
            }
        }
        if (staged > 0) {
            decodedAll = track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE, staged * chunkBytes));
        }
        int k = 0;
        long[] cShape = spec.shape();
        for (Task t : present) {
            long d = directOffset(t, destShape, destByteStrides, es);
            if (d >= 0) {
                finals.add(dest.slice(destOffset + d, chunkBytes));
            } else {
                Buffer b = decodedAll.slice(k++ * chunkBytes, chunkBytes);
                finals.add(b);
                long[] cs = StridedCopy.cByteStrides(cShape, es);
                long so = 0;
                for (int i = 0; i < cs.length; i++) {
                    so += t.chunkStart()[i] * cs[i];
                }
                place.add(new Region.Copy(new Region(b, so, t.extent(), cs), destRegion(dest, destOffset, destByteStrides, t)));
            }
        }
        List<String> labels = present.stream().map(Task::label).toList();
        runStages(cur, finals, labels, owned);
        if (!place.isEmpty()) {
            backend.copyRegions(place, es);
        }
    }

    private void runStages(List<Buffer> in, List<Buffer> finals, List<String> labels, List<Buffer> owned) {
        int n = in.size();
        List<Buffer> cur = in;
        for (int s = b2b.size() - 1; s >= 0; s--) {
            BytesToBytesCodec c = b2b.get(s);
            long[] sizes = new long[n];
            for (int i = 0; i < n; i++) {
                sizes[i] = stageSizes[s] >= 0 ? stageSizes[s] : c.decodedSize(cur.get(i).byteSize());
                if (sizes[i] < 0) {
                    throw new CorruptChunkException(c.name(), labels.get(i) + " is too short for \"" + c.name()
                            + "\": " + cur.get(i).byteSize() + " bytes");
                }
            }
            boolean last = s == 0 && a2a.isEmpty() && a2bIdentity;
            List<Buffer> out = last ? finals : slices(track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE,
                    Math.max(1, java.util.Arrays.stream(sizes).sum()))), sizes);
            List<Buffer> src = cur;
            run(c, src, out, labels, owned, b -> c.decode(b));
            cur = out;
        }
        if (a2a.isEmpty()) {
            if (a2bIdentity && cur == finals) {
                return;
            }
            checkSizes(cur, stageSizes[0], labels);
            List<Buffer> src = cur;
            run(a2b, src, finals, labels, owned, b -> a2b.decode(a2bSpec, b));
            return;
        }
        checkSizes(cur, stageSizes[0], labels);
        List<Buffer> arr = slices(track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE, Math.max(1, a2bSpec.byteSize() * n))),
                a2bSpec.byteSize(), n);
        List<Buffer> src0 = cur;
        run(a2b, src0, arr, labels, owned, b -> a2b.decode(a2bSpec, b));
        cur = arr;
        for (int i = a2a.size() - 1; i >= 0; i--) {
            ChunkSpec decodedSpec = a2aSpecs.get(i);
            List<Buffer> out = i == 0 ? finals : slices(track(owned, backend.allocateUninitialized(device, MemoryKind.DEVICE,
                    Math.max(1, decodedSpec.byteSize() * n))), decodedSpec.byteSize(), n);
            ArrayToArrayCodec c = a2a.get(i);
            List<Buffer> src = cur;
            run(c, src, out, labels, owned, b -> c.decode(decodedSpec, b));
            cur = out;
        }
    }

    private void checkSizes(List<Buffer> cur, long expect, List<String> labels) {
        for (int i = 0; i < cur.size(); i++) {
            if (expect >= 0 && cur.get(i).byteSize() != expect) {
                throw new CorruptChunkException(a2b.name(), labels.get(i) + " has " + cur.get(i).byteSize()
                        + " bytes where its codecs imply " + expect);
            }
        }
    }

    /** Runs one stage as one batch, through the host when the codec is not on this device. */
    private void run(Codec c, List<Buffer> in, List<Buffer> out, List<String> labels, List<Buffer> owned,
                     Consumer<CodecBatch> stage) {
        int n = in.size();
        boolean onDevice = c.device().equals(device);
        List<Buffer> ins = in;
        List<Buffer> outs = out;
        List<Buffer> hostOut = null;
        if (!onDevice) {
            ins = new ArrayList<>();
            hostOut = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Buffer h = track(owned, backend.allocateUninitialized(device, MemoryKind.HOST_PINNED, Math.max(1, in.get(i).byteSize())))
                        .slice(0, in.get(i).byteSize());
                backend.copy(in.get(i), 0, h, 0, in.get(i).byteSize());
                ins.add(h);
                hostOut.add(track(owned, backend.allocateUninitialized(device, MemoryKind.HOST_PINNED, Math.max(1, out.get(i).byteSize())))
                        .slice(0, out.get(i).byteSize()));
            }
            outs = hostOut;
        }
        List<CodecBatch.Item> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            items.add(new CodecBatch.Item(ins.get(i), outs.get(i), labels.get(i)));
        }
        CodecBatch batch = new CodecBatch(items);
        try {
            stage.accept(batch);
        } catch (ZarrDirectException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CodecException(c.name(), "codec \"" + c.name() + "\" (" + c.provider() + ") failed on a batch of "
                    + n + " chunks starting with " + labels.getFirst() + ": " + e, e);
        }
        batch.throwIfFailed();
        for (int i = 0; i < n; i++) {
            if (batch.written(i) >= 0 && batch.written(i) != outs.get(i).byteSize() && c instanceof BytesToBytesCodec) {
                throw new CorruptChunkException(c.name(), c.name() + " of " + labels.get(i) + " decoded to "
                        + batch.written(i) + " bytes, expected " + outs.get(i).byteSize());
            }
        }
        if (!onDevice) {
            for (int i = 0; i < n; i++) {
                backend.copy(hostOut.get(i), 0, out.get(i), 0, out.get(i).byteSize());
            }
        }
    }

    private long directOffset(Task t, long[] destShape, long[] destByteStrides, int es) {
        long[] shape = spec.shape();
        for (int i = 0; i < shape.length; i++) {
            if (t.chunkStart()[i] != 0 || t.extent()[i] != shape[i]) {
                return -1;
            }
        }
        // Same rule as HostRegion.contiguousBoxOffset.
        long expect = es;
        boolean seenPartial = false;
        long off = 0;
        for (int i = destShape.length - 1; i >= 0; i--) {
            off += t.at()[i] * destByteStrides[i];
            if (t.extent()[i] == 1) {
                continue;
            }
            if (seenPartial || destByteStrides[i] != expect) {
                return -1;
            }
            if (t.extent()[i] != destShape[i]) {
                seenPartial = true;
            }
            expect *= t.extent()[i];
        }
        return off;
    }

    private static Region destRegion(Buffer dest, long destOffset, long[] destByteStrides, Task t) {
        long off = destOffset;
        for (int i = 0; i < destByteStrides.length; i++) {
            off += t.at()[i] * destByteStrides[i];
        }
        return new Region(dest, off, t.extent(), destByteStrides);
    }

    private static List<Buffer> slices(Buffer b, long[] sizes) {
        List<Buffer> out = new ArrayList<>(sizes.length);
        long pos = 0;
        for (long size : sizes) {
            out.add(b.slice(pos, size));
            pos += size;
        }
        return out;
    }

    private static List<Buffer> slices(Buffer b, long size, int n) {
        List<Buffer> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(b.slice(i * size, size));
        }
        return out;
    }

    private static Buffer track(List<Buffer> owned, Buffer b) {
        owned.add(b);
        return b;
    }
}
