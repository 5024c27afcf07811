package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.StridedCopy;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.grid.RegularChunkGrid;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.v2.V2ArrayMetadata;
import dev.zarrdirect.core.pipeline.ChunkIO;
import dev.zarrdirect.core.pipeline.CodecChain;
import dev.zarrdirect.core.pipeline.DeviceDecoder;
import dev.zarrdirect.core.pipeline.Futures;
import dev.zarrdirect.core.pipeline.PipelineTrace;
import dev.zarrdirect.core.pipeline.HostRegion;
import dev.zarrdirect.core.pipeline.TaskBatches;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Zarr v3 array in a store: its metadata, and reads and writes of any hyper-rectangle.
 *
 * <h2>Reads</h2>
 * Chunks are fetched and decoded concurrently on the context's workers; a chunk wholly inside the
 * selection whose place in the output is contiguous decodes straight into the output. Chunks that
 * were never written read as the fill value. Reads are thread-safe.
 *
 * <h2>Writes</h2>
 * A write replaces the selected elements; chunks only partly covered are read, patched and written
 * back. A chunk that ends up holding nothing but the fill value is deleted rather than stored. Writes
 * to disjoint chunks may run concurrently; concurrent writes to the same chunk are not coordinated.
 */
public final class ZarrArray {

    private final ZarrContext ctx;
    private final Store store;
    private final String path;
    private final ArrayMetadata metadata;
    private final CodecChain chain;
    private final Map<String, String> codecChoices;
    private volatile DeviceDecoder deviceDecoder;
    /**
     * System property: device batches of one {@link #readToDevice} that decode at once (default 3;
     * 1 decodes them one after the other). On the H200, sharded ERA5 store in batches of 128 inner
     * chunks: 1 -> 27.4, 2 -> 29.0, 3 -> 30.9, 4 -> 31.0 GB/s (`tools/gpu/e2e-trace.sh`): the next
     * batch's entropy pass fills the SMs that the last blocks of a batch's execute pass leave idle.
     */
    public static final String DECODE_DEPTH_PROPERTY = "zarrdirect.decodeDepth";
    /**
     * System property: chunks (inner chunks of shards) per device batch of {@link #readToDevice},
     * for any backend; by default the backend's {@link Backend#preferredBatchSize()}.
     */
    public static final String DEVICE_BATCH_PROPERTY = "zarrdirect.deviceBatchSize";
    /**
     * System property: at most how many decoded bytes a device batch of {@link #readToDevice} holds,
     * for any backend; by default the backend's {@link Backend#preferredBatchBytes()}. A batch holds
     * at least one chunk.
     */
    public static final String DEVICE_BATCH_BYTES_PROPERTY = "zarrdirect.deviceBatchBytes";
    /**
     * System property: chunks in the first device batch of {@link #readToDevice} (default: the batch
     * size, no ramp); each later batch doubles up to the batch size ({@link TaskBatches}). A ramp
     * starts the device after a smaller fetch, but on the H200 it lost: a chunk takes as long in a
     * small batch as in a large one, so the small batches keep the device below its throughput
     * (sharded ERA5 read, `tools/gpu/e2e-trace.sh`, batches of 128: first batch 128 / 64 / 32 / 16
     * -> 34.7 / 32.4 / 31.8 / 30.0 GB/s in one run).
     */
    public static final String FIRST_BATCH_PROPERTY = "zarrdirect.deviceFirstBatch";

    /** Why {@link #readToDevice} decodes on the host, once known; null while the device path is possible. */
    private volatile String hostOnlyReason;
    /** Zarr v2: the .zarray this array was read from or created with; null for a v3 array. */
    private final V2ArrayMetadata v2Metadata;

    ZarrArray(ZarrContext ctx, Store store, String path, ArrayMetadata metadata, Map<String, String> codecChoices) {
        this(ctx, store, path, metadata, codecChoices, null);
    }

    /** Zarr v2: an array whose metadata is {@code v2.arrayMetadata()}. */
    ZarrArray(ZarrContext ctx, Store store, String path, V2ArrayMetadata v2, Map<String, String> codecChoices) {
        this(ctx, store, path, v2.arrayMetadata(), codecChoices, v2);
    }

    private ZarrArray(ZarrContext ctx, Store store, String path, ArrayMetadata metadata,
                      Map<String, String> codecChoices, V2ArrayMetadata v2Metadata) {
        this.v2Metadata = v2Metadata;
        this.ctx = ctx;
        this.store = store;
        this.path = path;
        this.metadata = metadata;
        this.codecChoices = Map.copyOf(codecChoices);
        ChunkSpec spec = new ChunkSpec(metadata.dataType(), metadata.chunkShape());
        this.chain = CodecChain.build(metadata.codecs(), spec, metadata.fillValue().bytes(),
                new CodecChain.Context(ctx.codecs(), Device.CPU, this.codecChoices), describe());
    }

    /** The same array with codec implementations chosen per codec name ({@code zstd -> cpu}). */
    public ZarrArray withCodecChoices(Map<String, String> choices) {
        return new ZarrArray(ctx, store, path, metadata, choices, v2Metadata);
    }

    /** 2 for an array stored as Zarr v2 ({@code .zarray}), else 3. */
    public int zarrFormat() {
        return v2Metadata == null ? 3 : 2;
    }

    /** Zarr v2: the {@code .zarray} (and {@code .zattrs}) as read or created; empty for a v3 array. */
    public Optional<V2ArrayMetadata> v2Metadata() {
        return Optional.ofNullable(v2Metadata);
    }

    public ArrayMetadata metadata() {
        return metadata;
    }

    public long[] shape() {
        return metadata.shape();
    }

    public int rank() {
        return metadata.rank();
    }

    public DataType dataType() {
        return metadata.dataType();
    }

    public long[] chunkShape() {
        return metadata.chunkShape();
    }

    public Map<String, Object> attributes() {
        return metadata.attributes();
    }

    /** The path of the array in its store, "" for the root. */
    public String path() {
        return path;
    }

    public Store store() {
        return store;
    }

    public ZarrContext context() {
        return ctx;
    }

    /** The codec implementations in use, e.g. {@code [bytes@cpu, zstd@cpu]}. */
    public List<String> codecImplementations() {
        return chain.describe();
    }

    /** The store key of the chunk at {@code chunkIndex}. */
    public String chunkKey(long[] chunkIndex) {
        return prefix() + metadata.chunkKey(chunkIndex);
    }

    private String prefix() {
        return path.isEmpty() ? "" : path + "/";
    }

    /** Number of chunks in the grid. */
    public long chunkCount() {
        return metadata.chunkGrid().chunkCount(metadata.shape());
    }

    /** Reads the whole array into a new host tensor, which the caller closes. */
    public Tensor read() {
        return read(Selection.all(shape()));
    }

    /** Reads {@code selection} into a new C-order host tensor, which the caller closes. */
    public Tensor read(Selection selection) {
        selection.checkWithin(shape(), describe());
        Tensor out = newHostTensor(selection.shape());
        try {
            read(selection, out);
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    /**
     * Reads {@code selection} into a new C-order tensor on the context's device, which the caller
     * closes. On a host backend this is {@link #read(Selection)}. On a device backend the chunks are
     * decoded there in batches ({@link DeviceDecoder}); chains it cannot run (sharding) are decoded on
     * the host and copied over, which {@link #devicePath()} reports.
     */
    public Tensor readToDevice(Selection selection) {
        return readToDevice(selection, MemoryKind.DEVICE);
    }

    /**
     * As {@link #readToDevice(Selection)}, into memory of {@code kind}: {@link MemoryKind#DEVICE}, or
     * {@link MemoryKind#MANAGED} (unified memory, for systems where host and device share it; the
     * backend refuses more than the device has free).
     */
    public Tensor readToDevice(Selection selection, MemoryKind kind) {
        if (kind != MemoryKind.DEVICE && kind != MemoryKind.MANAGED) {
            throw new IllegalArgumentException("readToDevice needs DEVICE or MANAGED memory, not " + kind
                    + "; use read() for host memory");
        }
        Backend b = ctx.backend();
        Device dev = b.defaultDevice();
        if (dev.isHost()) {
            return read(selection);
        }
        selection.checkWithin(shape(), describe());
        long[] outShape = selection.shape();
        long bytes = Shapes.product(outShape) * dataType().byteSize();
        DeviceDecoder decoder = deviceDecoder();
        if (decoder == null) {
            try (Tensor host = read(selection)) {
                Buffer buf = b.allocateUninitialized(dev, kind, Math.max(1, bytes));
                try {
                    b.copy(host.buffer(), 0, buf, 0, bytes);
                    return Tensor.owning(buf, 0, dataType(), outShape, host.strides());
                } catch (RuntimeException | Error e) {
                    buf.close();
                    throw e;
                }
            }
        }
        // Every element is written: decoded chunks, or fills for chunks never written.
        PipelineTrace trace = PipelineTrace.start("readToDevice " + describe() + " " + selection);
        long ta = trace.now();
        Buffer dest = b.allocateUninitialized(dev, kind, Math.max(1, bytes));
        trace.span("allocate", ta, bytes + " bytes");
        try {
            long[] byteStrides = StridedCopy.cByteStrides(outShape, dataType().byteSize());
            int batchSize = batchSize(b, decoder.chunkBytes());
            int first = Math.max(1, Integer.getInteger(FIRST_BATCH_PROPERTY, batchSize));
            long tp = trace.now();
            TaskBatches batches = new TaskBatches(planDeviceTasks(selection), batchSize, first);
            trace.span("plan", tp, "started; batches of " + first + " doubling to " + batchSize);
            decodeBatches(decoder, batches, batchSize, dest, outShape, byteStrides, trace);
            trace.print(System.err);
            return Tensor.owning(dest, 0, dataType(), outShape, Tensor.contiguousStrides(outShape));
        } catch (RuntimeException | Error e) {
            dest.close();
            throw e;
        }
    }

    /**
     * Chunks per device batch: the backend's (or {@value #DEVICE_BATCH_PROPERTY}'s) count, cut to as
     * many chunks of {@code chunkBytes} as {@value #DEVICE_BATCH_BYTES_PROPERTY} (or the backend's
     * {@link Backend#preferredBatchBytes()}) allows, and at least one.
     */
    static int batchSize(Backend b, long chunkBytes) {
        int chunks = Math.max(1, Integer.getInteger(DEVICE_BATCH_PROPERTY, b.preferredBatchSize()));
        long bytes = Long.getLong(DEVICE_BATCH_BYTES_PROPERTY, b.preferredBatchBytes());
        long byBytes = bytes / Math.max(1, chunkBytes);
        return (int) Math.max(1, Math.min(chunks, byBytes));
    }

    /**
     * The device tasks of {@code selection}, in chunk order, as one future per chunk. A shard's
     * tasks need its index, read from the store: the shards are planned in parallel on the
     * context's workers (a read of 32 ERA5 shards spent 4 ms planning one after the other), and
     * the first batch is fetched as soon as its shards are planned ({@link TaskBatches}).
     */
    private List<java.util.concurrent.Future<List<DeviceDecoder.Task>>> planDeviceTasks(Selection selection) {
        if (!DeviceDecoder.planReadsStore(chain)) {
            List<DeviceDecoder.Task> plan = new ArrayList<>();
            metadata.chunkGrid().forEachChunk(shape(), selection.start(), selection.stop(), (ci, cs, ce, out) ->
                    DeviceDecoder.plan(chain, store, chunkKey(ci), cs, extent(cs, ce), out, label(ci), plan));
            return List.of(java.util.concurrent.CompletableFuture.completedFuture(plan));
        }
        List<java.util.concurrent.Future<List<DeviceDecoder.Task>>> shards = new ArrayList<>();
        metadata.chunkGrid().forEachChunk(shape(), selection.start(), selection.stop(), (ci, cs, ce, out) ->
                shards.add(ctx.workers().submit(() -> {
                    List<DeviceDecoder.Task> part = new ArrayList<>();
                    DeviceDecoder.plan(chain, store, chunkKey(ci), cs, extent(cs, ce), out, label(ci), part);
                    return part;
                })));
        return shards;
    }

    /**
     * Fetches and decodes {@code batches} into {@code dest}: later batches are fetched (file reads,
     * copies to the device) while earlier batches decode, and several batches decode at once, each on
     * its own worker thread (so on its own stream), so the device starts on the next batch while the
     * last blocks of the one before still run. As many batches decode at once as hold
     * {@value #DECODE_DEPTH_PROPERTY} (default 3) full batches' worth of tasks: a chunk takes about as
     * long alone as among many (on the H200 a sharded ERA5 chunk's blocks are a serial chain of ~11
     * ms, whether 5 or 130 of them decode together), so the small batches of the ramp must not hold
     * the device to fewer chunks in flight. Returns when every batch is decoded; on failure, after
     * every batch started has stopped touching {@code dest}.
     */
    private void decodeBatches(DeviceDecoder decoder, TaskBatches batches, int batchSize, Buffer dest,
                               long[] outShape, long[] byteStrides, PipelineTrace trace) {
        int depth = Math.max(1, Integer.getInteger(DECODE_DEPTH_PROPERTY, 3));
        long maxTasks = (long) depth * batchSize;
        long tasksDecoding = 0;
        java.util.ArrayDeque<Decoding> decoding = new java.util.ArrayDeque<>();
        // Fetches run up to `depth` batches ahead of the batch handed to a decoder, so that a batch
        // is on the device when a decoder frees up; one after another, in order, since one fetch
        // keeps the reader busy and the batch needed next should land first. A fetch that finds
        // the plan used up gives null, and so does every fetch chained after it.
        java.util.ArrayDeque<java.util.concurrent.CompletableFuture<DeviceDecoder.Fetched>> fetching =
                new java.util.ArrayDeque<>();
        java.util.concurrent.CompletableFuture<DeviceDecoder.Fetched> lastFetch = null;
        int fetched = 0;
        try {
            for (int i = 0; ; i++) {
                while (fetched <= i + depth) {
                    lastFetch = prefetch(decoder, batches, fetched, trace, lastFetch);
                    fetching.add(lastFetch);
                    fetched++;
                }
                long tw = trace.now();
                DeviceDecoder.Fetched f = await(fetching.removeFirst());
                if (f == null) {
                    break;
                }
                trace.span("wait fetch " + i, tw, null);
                int index = i;
                int tasks = f.taskCount();
                try {
                    decoding.add(new Decoding(ctx.workers().submit(() -> {
                        long td = trace.now();
                        try (f) {
                            decoder.decode(f, dest, 0, outShape, byteStrides);
                        }
                        trace.span("decode " + index, td, tasks + " tasks");
                        return null;
                    }), tasks));
                } catch (RuntimeException | Error e) {
                    f.close();
                    throw e;
                }
                tasksDecoding += tasks;
                while (tasksDecoding >= maxTasks) {
                    Decoding oldest = decoding.removeFirst();
                    tasksDecoding -= oldest.tasks();
                    await(oldest.done());
                }
            }
            while (!decoding.isEmpty()) {
                await(decoding.removeFirst().done());
            }
        } catch (RuntimeException | Error e) {
            // The caller frees dest: every decode still writing into it must end first, even when
            // this thread is interrupted (the interrupt is kept for the caller).
            boolean interrupted = Thread.interrupted();
            for (Decoding d : decoding) {
                while (true) {
                    try {
                        d.done().get();
                        break;
                    } catch (InterruptedException ie) {
                        interrupted = true;
                    } catch (Exception suppressed) {
                        e.addSuppressed(suppressed);
                        break;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            for (java.util.concurrent.Future<DeviceDecoder.Fetched> f : fetching) {
                closeWhenDone(f);
            }
            throw e;
        }
    }

    /** A batch handed to a decoder: its completion and how many tasks it holds. */
    private record Decoding(java.util.concurrent.Future<?> done, int tasks) {
    }

    /**
     * Fetches the next batch of {@code batches} on a worker once {@code after} (if any) has landed;
     * fails without reading if it failed, and gives null without reading if it gave null or the
     * plan is used up.
     */
    private java.util.concurrent.CompletableFuture<DeviceDecoder.Fetched> prefetch(
            DeviceDecoder decoder, TaskBatches batches, int index, PipelineTrace trace,
            java.util.concurrent.CompletableFuture<DeviceDecoder.Fetched> after) {
        java.util.function.Supplier<DeviceDecoder.Fetched> work = () -> {
            long tp = trace.now();
            List<DeviceDecoder.Task> batch = batches.next();
            if (batch.isEmpty()) {
                return null;
            }
            trace.span("plan " + index, tp, batch.size() + " tasks");
            long t = trace.now();
            DeviceDecoder.Fetched f = decoder.fetch(store, batch, trace, " " + index);
            trace.span("fetch " + index, t, f.encodedBytes() + " encoded bytes");
            return f;
        };
        return after == null ? java.util.concurrent.CompletableFuture.supplyAsync(work, ctx.workers())
                : after.thenApplyAsync(previous -> previous == null ? null : work.get(), ctx.workers());
    }

    private static <T> T await(java.util.concurrent.Future<T> f) {
        return Futures.await(f, "a device batch failed", "interrupted while reading device batches");
    }

    /** After a failure, the batch being prefetched still owns device memory: free it once it lands. */
    private static void closeWhenDone(java.util.concurrent.Future<DeviceDecoder.Fetched> f) {
        try {
            DeviceDecoder.Fetched fetched = f.get();
            if (fetched != null) {
                fetched.close();
            }
        } catch (Exception ignored) {
            // Its own failure is not the one being reported.
        }
    }

    /** The device decoder for this array's chain on the context's device; null when it must go through the host. */
    private DeviceDecoder deviceDecoder() {
        DeviceDecoder d = deviceDecoder;
        if (d == null && hostOnlyReason == null) {
            if (!DeviceDecoder.supports(chain)) {
                hostOnlyReason = "nested sharding or codecs around sharding_indexed";
                return null;
            }
            try {
                d = new DeviceDecoder(ctx.backend(), ctx.backend().defaultDevice(), ctx.codecs(), codecChoices,
                        DeviceDecoder.leafChain(chain), describe());
                deviceDecoder = d;
            } catch (IllegalArgumentException e) {
                hostOnlyReason = e.getMessage();
            }
        }
        return d;
    }

    /** How {@link #readToDevice} decodes this array: on the device (and which stages fall back to the CPU), or on the host. */
    public String devicePath() {
        Device dev = ctx.backend().defaultDevice();
        if (dev.isHost()) {
            return "host decode on " + dev;
        }
        DeviceDecoder d = deviceDecoder();
        if (d == null) {
            return "host decode, then copy to " + dev + " (" + hostOnlyReason + ")";
        }
        return "batched decode on " + dev + (d.hostFallbacks().isEmpty() ? "" : ", CPU fallback for " + d.hostFallbacks());
    }

    /** Reads {@code selection} into {@code dest}, a host tensor of the selection's shape and the array's type. */
    public void read(Selection selection, Tensor dest) {
        selection.checkWithin(shape(), describe());
        checkTensor(selection, dest, "read into");
        HostRegion target = HostRegion.of(dest);
        RegularChunkGrid grid = metadata.chunkGrid();
        long[] chunkShape = metadata.chunkShape();
        try (ParallelChunks tasks = tasks(selection)) {
            grid.forEachChunk(shape(), selection.start(), selection.stop(), (ci, cs, ce, out) -> {
                long[] ext = extent(cs, ce);
                tasks.submit(() -> ChunkIO.read(chain, store, chunkKey(ci), cs, ext, target, out, label(ci)));
            });
            tasks.await();
        }
        assert chunkShape.length == rank();
    }

    /** Writes the whole array from {@code source}. */
    public void write(Tensor source) {
        write(Selection.all(shape()), source);
    }

    /** Writes {@code source} (a host tensor of the array's type) into the box of its shape at {@code offset}. */
    public void write(long[] offset, Tensor source) {
        write(Selection.at(offset, source.shape()), source);
    }

    /** Writes {@code source} into {@code selection}. */
    public void write(Selection selection, Tensor source) {
        if (store.isReadOnly()) {
            throw new UnsupportedOperationException(store + " is read-only; cannot write " + describe());
        }
        selection.checkWithin(shape(), describe());
        if (!source.buffer().kind().hostAccessible()) {
            // Device tensors are encoded on the CPU for now: one copy back to the host, then the CPU codecs.
            try (Tensor host = copyToHost(source)) {
                write(selection, host);
            }
            return;
        }
        checkTensor(selection, source, "write from");
        HostRegion src = HostRegion.of(source);
        try (ParallelChunks tasks = tasks(selection)) {
            metadata.chunkGrid().forEachChunk(shape(), selection.start(), selection.stop(), (ci, cs, ce, out) -> {
                long[] ext = extent(cs, ce);
                tasks.submit(() -> ChunkIO.write(chain, store, chunkKey(ci), cs, ext, src, out, label(ci)));
            });
            tasks.await();
        }
    }

    /**
     * A host tensor for a read, which writes every element: from the backend's pool when the backend
     * is the host's (no zeroing, and no page faults when a block is reused), else fresh zeroed memory.
     */
    private Tensor newHostTensor(long[] shape) {
        Backend b = ctx.backend();
        if (!b.defaultDevice().isHost()) {
            return Tensor.allocateHost(dataType(), shape);
        }
        long bytes = Shapes.product(shape) * dataType().byteSize();
        Buffer buf = b.allocateUninitialized(b.defaultDevice(), MemoryKind.HOST, bytes);
        return Tensor.owning(buf, 0, dataType(), shape, Tensor.contiguousStrides(shape));
    }

    /** A contiguous tensor of this context's device memory copied into a new host tensor. */
    Tensor copyToHost(Tensor t) {
        if (!t.isContiguous()) {
            throw new IllegalArgumentException("cannot write from " + t + ": device tensors must be contiguous");
        }
        Backend b = ctx.backend();
        Tensor host = Tensor.allocateHost(t.dataType(), t.shape());
        try {
            if (t.byteSize() > 0) {
                b.copy(t.buffer(), t.byteOffset(), host.buffer(), 0, t.byteSize());
            }
            return host;
        } catch (RuntimeException | Error e) {
            host.close();
            throw e;
        }
    }

    private ParallelChunks tasks(Selection selection) {
        long chunks = 1;
        long[] cs = chunkShape();
        long[] a = selection.start();
        long[] b = selection.stop();
        for (int i = 0; i < cs.length; i++) {
            chunks *= a[i] == b[i] ? 0 : (b[i] - 1) / cs[i] - a[i] / cs[i] + 1;
        }
        boolean inline = chunks <= 1 || ctx.parallelism() == 1
                || Thread.currentThread().getName().startsWith("zarr-direct-worker");
        return new ParallelChunks(ctx.workers(), ctx.parallelism(), inline);
    }

    private static long[] extent(long[] cs, long[] ce) {
        long[] e = new long[cs.length];
        for (int i = 0; i < e.length; i++) {
            e[i] = ce[i] - cs[i];
        }
        return e;
    }

    private void checkTensor(Selection sel, Tensor t, String verb) {
        if (!t.dataType().equals(dataType())) {
            throw new IllegalArgumentException("cannot " + verb + " a " + t.dataType() + " tensor: " + describe()
                    + " holds " + dataType());
        }
        if (!Arrays.equals(t.shape(), sel.shape())) {
            throw new IllegalArgumentException("cannot " + verb + " a tensor of shape " + Shapes.format(t.shape())
                    + " for the selection " + sel + " of shape " + Shapes.format(sel.shape()) + " of " + describe());
        }
        if (!t.buffer().kind().hostAccessible()) {
            throw new IllegalArgumentException("cannot " + verb + " " + t + ": host memory needed; use readToDevice");
        }
    }

    private String label(long[] chunkIndex) {
        return "chunk " + Arrays.toString(chunkIndex) + " of " + describe() + " (key \"" + chunkKey(chunkIndex) + "\")";
    }

    /** {@code array "/t2m" in FileSystemStore(root=...)}. */
    public String describe() {
        return "array \"/" + path + "\" in " + store;
    }

    @Override
    public String toString() {
        return "ZarrArray[/" + path + " " + dataType() + Shapes.format(shape()) + " chunks " + Shapes.format(chunkShape()) + "]";
    }
}
