// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.v2.V2ArrayMetadata;
import dev.zarrdirect.core.exec.ParallelChunks;
import dev.zarrdirect.core.exec.ReadEngine;
import dev.zarrdirect.core.pipeline.ChunkIO;
import dev.zarrdirect.core.pipeline.CodecChain;
import dev.zarrdirect.core.pipeline.CodecStages;
import dev.zarrdirect.core.pipeline.DeviceDecoder;
import dev.zarrdirect.core.pipeline.Futures;
import dev.zarrdirect.core.pipeline.HostRegion;
import dev.zarrdirect.core.plan.ReadPlan;
import dev.zarrdirect.core.plan.ReadPlanner;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A Zarr v3 array in a store: its metadata, and reads and writes of any hyper-rectangle.
 *
 * <h2>Reads</h2>
 * A read is planned once ({@link #plan}: the chunks, shard indexes and byte ranges it needs) and run
 * by the context's read engine ({@link ReadEngine}): chunks are fetched and decoded concurrently; a
 * chunk wholly inside the selection whose place in the output is contiguous decodes straight into
 * the output. Chunks that were never written read as the fill value. Several regions (the windows
 * of a training batch) can be read as one plan, each chunk decoded once. Reads are thread-safe.
 *
 * <h2>Writes</h2>
 * A write replaces the selected elements; chunks only partly covered are read, patched and written
 * back. A chunk that ends up holding nothing but the fill value is deleted rather than stored. Writes
 * to disjoint chunks may run concurrently; concurrent writes to the same chunk are not coordinated.
 *
 * <h2>Ownership</h2>
 * An array opened from a location ({@link Zarr#openArray(String)}, {@link Zarr#openArray(String, String)})
 * owns the store it opened: {@link #close()} closes that store. An array opened on a store the caller
 * passed in ({@link Zarr#openArray(Store, String)}, a group's members) owns nothing, and closing it does
 * nothing: the caller closes the store. No array closes its {@link ZarrContext}. Closing twice is
 * harmless, as for stores; after closing an array that owned its store, reads and writes fail in the
 * store.
 *
 * <h2>Memory</h2>
 * Tensors returned by the read methods hold native memory outside the Java heap. {@link #read()},
 * {@link #read(Selection)}, {@link #readAsync}, {@link #readToDevice} and {@link #readToDeviceAsync}
 * return a tensor that owns its memory: the caller closes it. {@link #read(Selection, Arena)} ties
 * the memory to the caller's arena instead, and {@link #read(Selection, Tensor)},
 * {@link #read(ReadPlan, Tensor)} and {@link #readIntoAsync} write into memory the caller already
 * owns. Shapes, offsets and selections count elements; buffer sizes count bytes.
 *
 * <h2>Errors</h2>
 * A read or write that fails throws the first failure of its chunks, unwrapped:
 * {@link dev.zarrdirect.api.StoreException} when the store fails,
 * {@link dev.zarrdirect.api.CodecException} when a codec fails, and its subclasses
 * {@link dev.zarrdirect.api.CorruptChunkException} for bytes that cannot be decoded and
 * {@link dev.zarrdirect.api.ChecksumMismatchException} for a checksum that disagrees. A selection of
 * another rank throws {@link IllegalArgumentException}, one reaching past the array
 * {@link IndexOutOfBoundsException}, both before anything is read. A read on a closed
 * {@link ZarrContext} throws {@link IllegalStateException}.
 *
 * {@snippet :
 * try (ZarrArray a = Zarr.openArray("/data/era5.zarr", "t2m");
 *      Tensor t = a.read(Selection.parse("0:2", a.shape()))) {
 *     float first = t.getFloat(0, 0, 0);
 * }
 * }
 */
public final class ZarrArray implements AutoCloseable {

    private final ZarrContext ctx;
    private final Store store;
    private final String path;
    private final ArrayMetadata metadata;
    private final CodecChain chain;
    private final Map<String, String> codecChoices;
    private final ReadPlanner planner;
    private volatile DeviceDecoder deviceDecoder;
    /** Why {@link #readToDevice} decodes on the host, once known; null while the device path is possible. */
    private volatile String hostOnlyReason;
    /** Zarr v2: the .zarray this array was read from or created with; null for a v3 array. */
    private final V2ArrayMetadata v2Metadata;
    /** The store {@link #close()} closes: the one this array opened itself; null when the caller owns it. */
    private final java.util.concurrent.atomic.AtomicReference<Store> ownedStore =
            new java.util.concurrent.atomic.AtomicReference<>();

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
                new CodecStages.Context(ctx.codecs(), Device.CPU, this.codecChoices), describe());
        this.planner = new ReadPlanner(metadata, chain, store, prefix(), describe(), ctx.shardIndexCache());
    }

    /**
     * This array, now owning {@code owned} (its own store): {@link #close()} closes it. For
     * {@link Zarr}'s openers from a location.
     */
    ZarrArray owning(Store owned) {
        this.ownedStore.set(owned);
        return this;
    }

    /**
     * Whether this array owns its store.
     *
     * @return true when {@link #close()} closes this array's store (it was opened from a location
     *         and is not closed yet); false when the caller owns the store, or after {@link #close()}
     */
    public boolean ownsStore() {
        return ownedStore.get() != null;
    }

    /**
     * Closes the store this array opened itself, if any ({@link #ownsStore()}); otherwise does
     * nothing. Never closes the context. Closing twice is harmless.
     */
    @Override
    public void close() {
        Store s = ownedStore.getAndSet(null);
        if (s != null) {
            ctx.shardIndexCache().invalidateStore(s);
            s.close();
        }
    }

    /**
     * The same array with codec implementations chosen per codec name ({@code zstd -> cpu}). The
     * new array shares this one's store and owns nothing: it lives as long as this array's store.
     * Its device decoder is built anew, on first use.
     *
     * @param choices codec name to implementation or provider name ({@code "zstd" -> "cpu"}); codecs
     *                not named use the context's choice; copied
     * @return a new array of the same metadata, store and context
     * @throws dev.zarrdirect.api.MissingCodecException when a chosen implementation does not exist
     */
    public ZarrArray withCodecChoices(Map<String, String> choices) {
        return new ZarrArray(ctx, store, path, metadata, choices, v2Metadata);
    }

    /**
     * The Zarr format the array is stored in.
     *
     * @return 2 for an array stored as Zarr v2 ({@code .zarray}), else 3
     */
    public int zarrFormat() {
        return v2Metadata == null ? 3 : 2;
    }

    /**
     * The Zarr v2 documents of the array.
     *
     * @return the {@code .zarray} (and {@code .zattrs}) as read or created; empty for a v3 array
     */
    public Optional<V2ArrayMetadata> v2Metadata() {
        return Optional.ofNullable(v2Metadata);
    }

    /**
     * The array's metadata, as read or created. For a Zarr v2 array, its v3 equivalent (the codecs
     * that decode it); {@link #v2Metadata()} has the documents themselves.
     *
     * @return the metadata; immutable
     */
    public ArrayMetadata metadata() {
        return metadata;
    }

    /**
     * The array's shape, in elements per dimension.
     *
     * @return a fresh copy, which the caller may change; empty for a 0-dimensional array
     */
    public long[] shape() {
        return metadata.shape();
    }

    /**
     * The number of dimensions.
     *
     * @return the rank, 0 for a scalar array
     */
    public int rank() {
        return metadata.rank();
    }

    /**
     * The type of the array's elements.
     *
     * @return the data type
     */
    public DataType dataType() {
        return metadata.dataType();
    }

    /**
     * The shape of a chunk of the regular grid, in elements per dimension; for a sharded array, the
     * shape of a shard (the unit stored under one key).
     *
     * @return the chunk shape, a fresh copy
     */
    public long[] chunkShape() {
        return metadata.chunkShape();
    }

    /**
     * The user attributes of the array's metadata, as read when the array was opened or created.
     *
     * @return the attributes, values of the plain JSON model (maps, lists, strings, numbers,
     *         booleans, null)
     */
    public Map<String, Object> attributes() {
        return metadata.attributes();
    }

    /**
     * The path of the array in its store, without leading or trailing slashes.
     *
     * @return the path, {@code ""} for the root
     */
    public String path() {
        return path;
    }

    /**
     * The store the array lives in; owned by this array only when {@link #ownsStore()}.
     *
     * @return the store; do not close it unless you opened it
     */
    public Store store() {
        return store;
    }

    /**
     * The context the array reads and writes on; the array never closes it.
     *
     * @return the context
     */
    public ZarrContext context() {
        return ctx;
    }

    /**
     * The codec implementations the host chain uses (reads into host memory and every write).
     *
     * @return one entry per codec, e.g. {@code [bytes@cpu, zstd@cpu]}
     */
    public List<String> codecImplementations() {
        return chain.describe();
    }

    /**
     * The store key of a chunk (of a shard, for a sharded array), by the array's chunk key encoding
     * and below its path: {@code t2m/c/0/3/1}, or {@code t2m/0.3.1} for Zarr v2.
     *
     * @param chunkIndex the chunk's position in the chunk grid (not an element offset), one entry per
     *                   dimension
     * @return the key; whether it exists is not checked
     */
    public String chunkKey(long[] chunkIndex) {
        return planner.chunkKey(chunkIndex);
    }

    private String prefix() {
        return path.isEmpty() ? "" : path + "/";
    }

    /**
     * The number of chunks in the grid (shards, for a sharded array), written or not.
     *
     * @return the product over dimensions of the chunks per dimension
     */
    public long chunkCount() {
        return metadata.chunkGrid().chunkCount(metadata.shape());
    }

    /**
     * Reads the whole array into a new host tensor. The tensor owns native memory outside the Java
     * heap: the caller closes it (try-with-resources), or passes an arena to {@link #read(Selection, Arena)}.
     *
     * @return a new tensor of the array's shape and type, owned by the caller
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be decoded
     */
    public Tensor read() {
        return read(Selection.all(shape()));
    }

    /**
     * Reads {@code selection} into a new C-order host tensor. The tensor owns its native memory (from
     * the backend's host pool on a host backend): the caller closes it, which frees the memory or
     * gives it back to the pool; use {@link #read(Selection, Arena)} to tie the memory to an arena instead.
     * On failure no memory is left behind.
     *
     * @param selection the box to read, within the array
     * @return a new tensor of the selection's shape and the array's type, owned by the caller
     * @throws IllegalArgumentException when {@code selection} has another rank than the array
     * @throws IndexOutOfBoundsException when {@code selection} reaches past the array
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be decoded (a
     *         {@link dev.zarrdirect.api.ChecksumMismatchException} when a checksum disagrees)
     */
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
     * Reads a NumPy basic index ({@code array.read(ArraySlice.parse("0:24:2, 3", array.shape()))}) into
     * a new host tensor of the slice's {@linkplain ArraySlice#shape() shape}: dimensions indexed by an
     * integer are dropped, and steps become strides of a view over the slice's bounding box, which is
     * what is read (a large step still fetches every chunk the box touches). The tensor owns its memory:
     * the caller closes it.
     *
     * {@snippet :
     * try (Tensor t = array.read(ArraySlice.parse("0:24:2, 3", array.shape()))) {
     *     // for an array of shape [8760, 10, 1440]: t has shape [12, 1440]
     * }
     * }
     *
     * @param slice the index, of the array's rank, within the array
     * @return a new host tensor of {@code slice.shape()} and the array's type, a strided view over
     *         the bounding box (C-order only when every step is 1), owned by the caller; it holds
     *         the whole bounding box's memory
     * @throws IllegalArgumentException  when {@code slice} has another rank than the array
     * @throws IndexOutOfBoundsException when {@code slice} reaches past the array
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be decoded (a
     *         {@link dev.zarrdirect.api.ChecksumMismatchException} when a checksum disagrees)
     */
    public Tensor read(ArraySlice slice) {
        if (slice.rank() != rank()) {
            throw new IllegalArgumentException("slice " + slice + " has rank " + slice.rank() + " but " + describe()
                    + " has rank " + rank());
        }
        Selection box = slice.box();
        box.checkWithin(shape(), describe());
        Tensor whole = read(box);
        long[] boxStrides = whole.strides();
        long[] step = slice.step();
        boolean[] dropped = slice.dropped();
        long[] strides = java.util.stream.IntStream.range(0, rank()).filter(d -> !dropped[d])
                .mapToLong(d -> boxStrides[d] * step[d]).toArray();
        // The view takes over the box's buffer: closing it frees the memory; the box tensor is dropped unclosed.
        return Tensor.owning(whole.buffer(), 0, dataType(), slice.shape(), strides);
    }

    /**
     * Reads {@code selection} into a new C-order host tensor whose memory is allocated from
     * {@code arena}: its lifetime is the arena's. The tensor does not own that memory, and closing
     * the tensor does nothing; closing the arena frees it, after which any access to the tensor
     * throws {@link IllegalStateException}. Fits many reads freed together
     * ({@code try (Arena arena = Arena.ofConfined()) { ... }}).
     *
     * <p>The engine's workers write the result directly into memory of a shared or global arena (or
     * an automatic one). Memory of a confined arena can only be touched by its owner thread, so the
     * read then goes through a pooled host buffer and is copied on the calling thread, which must be
     * the arena's owner.
     *
     * {@snippet :
     * try (Arena arena = Arena.ofConfined()) {
     *     Tensor t = array.read(Selection.parse("0:2", array.shape()), arena);
     *     float first = t.getFloat(0, 0, 0);
     * } // t's memory is freed here
     * }
     *
     * <p>On failure the memory already allocated stays in the arena until it is closed.
     *
     * @param selection the box to read, within the array
     * @param arena     where the result's memory comes from; it decides the lifetime
     * @return a new tensor of the selection's shape and the array's type, whose memory belongs to {@code arena}
     * @throws WrongThreadException when {@code arena} is confined to another thread
     * @throws IllegalStateException when {@code arena} is closed
     * @throws IllegalArgumentException when {@code selection} has another rank than the array
     * @throws IndexOutOfBoundsException when {@code selection} reaches past the array
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be decoded
     */
    public Tensor read(Selection selection, Arena arena) {
        selection.checkWithin(shape(), describe());
        long[] outShape = selection.shape();
        long bytes = Shapes.product(outShape) * dataType().byteSize();
        MemorySegment seg = arena.allocate(Math.max(bytes, 1), 64).asSlice(0, bytes);
        Tensor out = Tensor.of(HostBuffer.wrap(seg), dataType(), outShape);
        if (seg.isAccessibleBy(Thread.ofVirtual().unstarted(() -> { }))) {
            // shared, global or automatic: the workers may write into it
            read(selection, out);
        } else {
            try (Tensor staging = newHostTensor(outShape)) {
                read(selection, staging);
                MemorySegment.copy(staging.segment(), 0, seg, 0, bytes);
            }
        }
        return out;
    }

    /**
     * Starts reading {@code selection} into a new C-order host tensor, as {@link #read(Selection)},
     * and returns at once. The read runs on a new virtual thread, which plans it and waits while the
     * context's worker threads fetch and decode the chunks (so a read never occupies a worker that
     * its own chunks need). The tensor, which the caller closes, comes when it is complete; on
     * failure the future completes exceptionally and no memory is left behind. If the future is
     * cancelled before the read ends, the tensor is closed when it ends. For reads into device
     * memory use {@link #readToDeviceAsync(Selection)}.
     *
     * @param selection the box to read, within the array
     * @return a future of a new tensor owned by whoever takes it from the future; it fails with the
     *         exception {@link #read(Selection)} would throw
     * @throws IllegalArgumentException at once, when {@code selection} has another rank than the array
     * @throws IndexOutOfBoundsException at once, when {@code selection} reaches past the array
     */
    public CompletableFuture<Tensor> readAsync(Selection selection) {
        selection.checkWithin(shape(), describe());
        CompletableFuture<Tensor> result = new CompletableFuture<>();
        Thread.ofVirtual().name("zarr-direct-readAsync").start(() -> {
            if (result.isDone()) {
                return; // cancelled before it started
            }
            Tensor t;
            try {
                t = read(selection);
            } catch (Throwable e) {
                result.completeExceptionally(e);
                return;
            }
            if (!result.complete(t)) {
                t.close(); // cancelled meanwhile: nobody will take the tensor
            }
        });
        return result;
    }

    /**
     * Reads {@code selection} into a new C-order tensor on the context's device, which the caller
     * closes. On a host backend this is {@link #read(Selection)}. On a device backend the chunks are
     * decoded there in batches ({@link DeviceDecoder}); chains it cannot run (nested sharding, codecs
     * around sharding) are decoded on the host and copied over, which {@link #devicePath()} reports.
     * On failure no memory is left behind.
     *
     * @param selection the box to read, within the array
     * @return a new C-order tensor in device memory ({@link MemoryKind#DEVICE}), or host memory on a
     *         host backend, owned by the caller
     * @throws IllegalArgumentException when {@code selection} has another rank than the array
     * @throws IndexOutOfBoundsException when {@code selection} reaches past the array
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be decoded
     * @throws dev.zarrdirect.api.ZarrDirectException when the calling thread is interrupted; the read
     *         is stopped and its memory freed first
     */
    public Tensor readToDevice(Selection selection) {
        return readToDevice(selection, MemoryKind.DEVICE);
    }

    /**
     * As {@link #readToDevice(Selection)}, into memory of {@code kind}: {@link MemoryKind#DEVICE}, or
     * {@link MemoryKind#MANAGED} (unified memory, for systems where host and device share it; the
     * backend refuses more than the device has free). On a host backend the result is host memory
     * whatever {@code kind} is.
     *
     * @param selection the box to read, within the array
     * @param kind      {@link MemoryKind#DEVICE} or {@link MemoryKind#MANAGED}
     * @return a new C-order tensor, owned by the caller
     * @throws IllegalArgumentException when {@code kind} is another kind (use {@link #read(Selection)}
     *         for host memory), or {@code selection} has another rank than the array
     * @throws IndexOutOfBoundsException when {@code selection} reaches past the array
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be decoded
     */
    public Tensor readToDevice(Selection selection, MemoryKind kind) {
        selection.checkWithin(shape(), describe());
        DeviceRead r = readToDevice(plan(List.of(request(selection)), selection.shape()), kind, "readToDevice " + selection);
        try {
            return Futures.await(r.tensor(), "a device read of " + describe() + " failed", "");
        } catch (ZarrDirectException e) {
            if (!(e.getCause() instanceof InterruptedException)) {
                throw e;
            }
            // the device may still write into the destination: stop the read and let it end first
            r.cancel();
            r.tensor().handle((t, x) -> t).join();
            r.tensor().thenAccept(Tensor::close);
            throw new ZarrDirectException("interrupted while reading " + selection + " of " + describe() + " to the device", e.getCause());
        }
    }

    /** A device read under way: the tensor it will give, and how to stop it. */
    private record DeviceRead(CompletableFuture<Tensor> tensor, Runnable stop) {
        void cancel() {
            stop.run();
        }
    }

    /**
     * Plans reading several boxes of this array into one destination of {@code destShape}, e.g. the
     * windows of a training batch placed side by side: each chunk is read and decoded once however
     * many requests need it. Run the plan with {@link #read(ReadPlan, Tensor)},
     * {@link #readToDeviceAsync(ReadPlan)} or {@link #readIntoAsync}; a plan can be run more than
     * once. For a sharded array the shards' indexes are read here (in parallel on the context's
     * workers, unless called from one of them); a plan holds no native memory.
     *
     * <p>Requests keep the array's rank, so the windows of a batch go side by side along one of its
     * dimensions:
     *
     * {@snippet :
     * // a batch of 4 windows of 24 time steps of an array of shape [8760, 721, 1440]
     * long[] starts = {0, 12, 500, 4000};
     * List<ReadPlanner.Request> windows = new ArrayList<>();
     * for (int w = 0; w < starts.length; w++) {
     *     windows.add(new ReadPlanner.Request(new long[] {starts[w], 0, 0},
     *             new long[] {starts[w] + 24, 721, 1440}, new long[] {24L * w, 0, 0}));
     * }
     * ReadPlan plan = array.plan(windows, new long[] {96, 721, 1440});  // steps 12..23 decode once
     * try (Tensor batch = Tensor.allocateHost(array.dataType(), 96, 721, 1440)) {
     *     array.read(plan, batch);                  // or readToDeviceAsync(plan)
     * }
     * }
     *
     * @param requests  the boxes to read, each {@code [start, stop)} of the array placed at
     *                  {@code at} in the destination; element coordinates of the array's rank
     * @param destShape the destination's shape, in elements, of the array's rank
     * @return the plan, usable only with this array
     * @throws IllegalArgumentException when a request does not fit the array or the destination
     * @throws dev.zarrdirect.api.StoreException when a shard index cannot be read
     * @throws dev.zarrdirect.api.CorruptChunkException when a shard index is corrupt (here, or when
     *         the plan runs)
     */
    public ReadPlan plan(List<ReadPlanner.Request> requests, long[] destShape) {
        return ctx.engine().plan(planner, requests, destShape);
    }

    /**
     * Runs {@code plan} (of this array) into {@code dest}, a host tensor of the plan's destination
     * shape. Returns when every element the plan covers is written; elements outside every request
     * are not touched. The caller keeps owning {@code dest}.
     *
     * @param plan a plan made by {@link #plan} of this array
     * @param dest a host-accessible tensor of the plan's destination shape and the array's type
     * @throws IllegalArgumentException when {@code dest} has another shape or type, or is not host memory
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be decoded
     */
    public void read(ReadPlan plan, Tensor dest) {
        if (!Arrays.equals(dest.shape(), plan.destShape()) || !dest.dataType().equals(dataType())
                || !dest.buffer().kind().hostAccessible()) {
            throw new IllegalArgumentException("cannot read a plan of shape " + Shapes.format(plan.destShape()) + " of "
                    + describe() + " into " + dest + ": a " + dataType() + " host tensor of that shape is needed");
        }
        ctx.engine().read(plan, store, chain, HostRegion.of(dest), "read " + describe() + " " + plan);
    }

    /**
     * Starts reading {@code selection} into a new C-order tensor on the context's device and returns
     * at once: reads queued one after another overlap (the next one is fetched while the one before
     * decodes), which is what a prefetching loader wants. The tensor, which the caller closes, comes
     * when it is complete; on failure its memory is freed.
     *
     * @param selection the box to read, within the array
     * @return a future of a new C-order tensor in the context's device memory (host memory on a host
     *         backend), owned by whoever takes it from the future
     * @throws IllegalArgumentException at once, when {@code selection} has another rank than the array
     * @throws IndexOutOfBoundsException at once, when {@code selection} reaches past the array
     */
    public CompletableFuture<Tensor> readToDeviceAsync(Selection selection) {
        selection.checkWithin(shape(), describe());
        return readToDeviceAsync(plan(List.of(request(selection)), selection.shape()));
    }

    /**
     * As {@link #readToDeviceAsync(Selection)}, for a plan of this array ({@link #plan}).
     *
     * @param plan a plan made by {@link #plan} of this array
     * @return a future of a new C-order tensor of the plan's destination shape, owned by whoever
     *         takes it from the future
     */
    public CompletableFuture<Tensor> readToDeviceAsync(ReadPlan plan) {
        return readToDevice(plan, MemoryKind.DEVICE, "readToDeviceAsync " + plan).tensor();
    }

    /**
     * Runs {@code plan} into memory the caller owns and keeps: {@code dest} holds the plan's
     * destination C-order from its first byte, on the context's device (or host memory for a host
     * backend). This is the loader's path: its staging buffers are allocated once and reused, so no
     * read allocates. On a device backend the read is queued behind earlier ones and the future
     * completes when every byte is written (or the read failed); on a host backend the read runs
     * now, on the calling thread and the engine's workers, and the future is already complete.
     * The caller must not touch {@code dest} until the future completes, whatever its outcome.
     *
     * @param plan a plan made by {@link #plan} of this array
     * @param dest at least the plan's destination size in bytes, of the context's device (host
     *             memory for a host backend); still owned by the caller
     * @return a future that completes when {@code dest} is written, or exceptionally with the read's
     *         failure
     * @throws IllegalArgumentException at once, when {@code dest} is too small or of the wrong device
     */
    public CompletableFuture<Void> readIntoAsync(ReadPlan plan, Buffer dest) {
        long bytes = Shapes.product(plan.destShape()) * dataType().byteSize();
        if (dest.byteSize() < bytes) {
            throw new IllegalArgumentException("a buffer of " + dest.byteSize() + " bytes cannot hold the " + bytes
                    + " bytes of " + plan + " of " + describe());
        }
        Backend b = ctx.backend();
        if (dest.kind().hostAccessible() != b.defaultDevice().isHost()) {
            throw new IllegalArgumentException("readIntoAsync reads into memory of the context's device ("
                    + b.defaultDevice() + "), not " + dest + "; use read(plan, tensor) for host memory on a device"
                    + " backend");
        }
        if (b.defaultDevice().isHost()) {
            try {
                read(plan, Tensor.of(dest.slice(0, bytes), dataType(), plan.destShape()));
                return CompletableFuture.completedFuture(null);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        DeviceDecoder decoder = deviceDecoder();
        if (decoder == null) {
            try (Tensor host = newHostTensor(plan.destShape())) {
                read(plan, host);
                b.copy(host.buffer(), 0, dest, 0, bytes);
                return CompletableFuture.completedFuture(null);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return ctx.engine().readToDeviceAsync(plan, store, decoder, dest, "readIntoAsync " + plan + " of " + describe())
                .done();
    }

    private DeviceRead readToDevice(ReadPlan plan, MemoryKind kind, String what) {
        if (kind != MemoryKind.DEVICE && kind != MemoryKind.MANAGED) {
            throw new IllegalArgumentException("readToDevice needs DEVICE or MANAGED memory, not " + kind
                    + "; use read() for host memory");
        }
        Backend b = ctx.backend();
        Device dev = b.defaultDevice();
        long[] outShape = plan.destShape();
        long bytes = Shapes.product(outShape) * dataType().byteSize();
        DeviceDecoder decoder = dev.isHost() ? null : deviceDecoder();
        if (decoder == null) {
            // decode on the host, then (on a device) one copy
            Tensor host = newHostTensor(outShape);
            try {
                read(plan, host);
                if (dev.isHost()) {
                    return new DeviceRead(CompletableFuture.completedFuture(host), () -> { });
                }
                try (host) {
                    Buffer buf = b.allocateUninitialized(dev, kind, Math.max(1, bytes));
                    try {
                        b.copy(host.buffer(), 0, buf, 0, bytes);
                        return new DeviceRead(CompletableFuture.completedFuture(
                                Tensor.owning(buf, 0, dataType(), outShape, host.strides())), () -> { });
                    } catch (RuntimeException | Error e) {
                        buf.close();
                        throw e;
                    }
                }
            } catch (RuntimeException | Error e) {
                host.close();
                throw e;
            }
        }
        // Every element is written: decoded chunks, or fills for chunks never written.
        Buffer dest = b.allocateUninitialized(dev, kind, Math.max(1, bytes));
        ReadEngine.PendingRead pending;
        try {
            pending = ctx.engine().readToDeviceAsync(plan, store, decoder, dest, what + " of " + describe());
        } catch (RuntimeException | Error e) {
            dest.close();
            throw e;
        }
        return new DeviceRead(pending.done().handle((ok, failure) -> {
            if (failure != null) {
                dest.close();
                throw failure instanceof java.util.concurrent.CompletionException c ? c
                        : new java.util.concurrent.CompletionException(failure);
            }
            return Tensor.owning(dest, 0, dataType(), outShape, Tensor.contiguousStrides(outShape));
        }), pending::cancel);
    }

    /** The request that reads {@code selection} into a destination of its own shape. */
    private static ReadPlanner.Request request(Selection selection) {
        return new ReadPlanner.Request(selection.start(), selection.stop(), new long[selection.start().length]);
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
                CodecChain leaf = DeviceDecoder.leafChain(chain);
                d = new DeviceDecoder(ctx.backend(), CodecStages.resolve(leaf.metadata(), leaf.spec(), leaf.fill(),
                        new CodecStages.Context(ctx.codecs(), ctx.backend().defaultDevice(), codecChoices), describe()),
                        leaf, ctx.engine().settings().hostDecodeOverlap(), ctx.engine().settings().serialRunsPerCore(),
                        ctx.engine().settings().hostShare(), describe());
                deviceDecoder = d;
            } catch (IllegalArgumentException e) {
                hostOnlyReason = e.getMessage();
            }
        }
        return d;
    }

    /**
     * How {@link #readToDevice} decodes this array, for diagnostics. Builds the device decoder if
     * needed.
     *
     * @return a sentence: on the device (and which stages fall back to the CPU), or on the host and why
     */
    public String devicePath() {
        Device dev = ctx.backend().defaultDevice();
        if (dev.isHost()) {
            return "host decode on " + dev;
        }
        DeviceDecoder d = deviceDecoder();
        if (d == null) {
            return "host decode, then copy to " + dev + " (" + hostOnlyReason + ")";
        }
        return d.describePath();
    }

    /**
     * Reads {@code selection} into {@code dest}, a host tensor of the selection's shape and the
     * array's type, which the caller keeps owning. {@code dest} may be strided (a view).
     *
     * @param selection the box to read, within the array
     * @param dest      a host-accessible tensor of the selection's shape and the array's type
     * @throws IllegalArgumentException when {@code selection} has another rank than the array, or
     *         {@code dest} has another shape or type or is not host memory
     * @throws IndexOutOfBoundsException when {@code selection} reaches past the array
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be decoded
     */
    public void read(Selection selection, Tensor dest) {
        selection.checkWithin(shape(), describe());
        checkTensor(selection, dest, "read into");
        ctx.engine().read(plan(List.of(request(selection)), selection.shape()), store, chain, HostRegion.of(dest),
                "read " + describe() + " " + selection);
    }

    /**
     * Writes the whole array from {@code source}, as {@link #write(Selection, Tensor)}.
     *
     * @param source a tensor of the array's shape and type; not closed
     */
    public void write(Tensor source) {
        write(Selection.all(shape()), source);
    }

    /**
     * Writes {@code source} into the box of its shape at {@code offset}, as
     * {@link #write(Selection, Tensor)}.
     *
     * @param offset the box's first element, one entry per dimension
     * @param source a tensor of the array's type; its shape is the box's; not closed
     */
    public void write(long[] offset, Tensor source) {
        write(Selection.at(offset, source.shape()), source);
    }

    /**
     * Writes {@code source} into {@code selection}: the chunks it touches are encoded and stored
     * concurrently on the context's workers (see the class comment for partial chunks and fill
     * values). A device tensor is copied to the host first and encoded there. The caller keeps
     * owning {@code source}. A failed write may leave some chunks written and others not.
     *
     * @param selection the box to write, within the array
     * @param source    a tensor of the selection's shape and the array's type; host memory, or
     *                  contiguous memory of the context's device
     * @throws UnsupportedOperationException when the store is read-only
     * @throws IllegalArgumentException when {@code selection} has another rank than the array, or
     *         {@code source} another shape or type, or is a strided device tensor
     * @throws IndexOutOfBoundsException when {@code selection} reaches past the array
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be encoded, or a partly covered
     *         chunk cannot be decoded
     */
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
        ReadEngine engine = ctx.engine();
        try (ParallelChunks tasks = engine.tasks(chunksTouched(selection))) {
            metadata.chunkGrid().forEachChunk(shape(), selection.start(), selection.stop(), (ci, cs, ce, out) -> {
                long[] ext = extent(cs, ce);
                String key = chunkKey(ci);
                tasks.submit(() -> {
                    try {
                        engine.withScratch(s -> ChunkIO.write(chain, store, key, cs, ext, src, out, planner.label(ci), s));
                    } finally {
                        ctx.shardIndexCache().invalidate(store, key); // the shard's index may have changed
                    }
                });
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

    private long chunksTouched(Selection selection) {
        long chunks = 1;
        long[] cs = chunkShape();
        long[] a = selection.start();
        long[] b = selection.stop();
        for (int i = 0; i < cs.length; i++) {
            chunks *= a[i] == b[i] ? 0 : (b[i] - 1) / cs[i] - a[i] / cs[i] + 1;
        }
        return chunks;
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

    /**
     * The array as error messages name it.
     *
     * @return {@code array "/t2m" in FileSystemStore(root=...)}
     */
    public String describe() {
        return "array \"/" + path + "\" in " + store;
    }

    @Override
    public String toString() {
        return "ZarrArray[/" + path + " " + dataType() + Shapes.format(shape()) + " chunks " + Shapes.format(chunkShape()) + "]";
    }
}
