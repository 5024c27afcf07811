// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ArrayToBytesCodec;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.CodecKind;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.core.codec.BuiltinCodecs;
import dev.zarrdirect.core.codec.ShardingConfig;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.registry.CodecRegistry;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The host executor of a resolved codec chain ({@link CodecStages}): decodes and encodes one chunk
 * at a time on the CPU. Decoding runs the stages backwards; the last stage writes straight into the
 * caller's memory, and a little-endian {@code bytes} stage, being the identity, is skipped.
 *
 * <p>Thread-safe: intermediates come from the {@link HostScratch} the caller hands down, which one
 * task uses at a time.
 */
public final class CodecChain {

    private final CodecStages stages;
    private final ChunkSpec spec;
    private final List<CodecMetadata> metadata;
    private final List<ArrayToArrayCodec> a2a;
    private final ChunkSpec a2bSpec;
    private final ArrayToBytesCodec a2b;
    private final ShardingCodec sharding;
    private final List<BytesToBytesCodec> b2b;
    private final boolean a2bIsIdentity;
    private final MemorySegment fill;

    /**
     * The most bytes a decoded chunk staged in host memory may have: {@value} (2 GiB - 1), the most
     * a {@code ByteBuffer}, and so most codec libraries, can take. A larger chunk that must be staged
     * (a read of part of it) fails with a {@link CodecException} that says so before anything is
     * allocated, never with an {@code OutOfMemoryError}.
     */
    public static final long MAX_STAGED_CHUNK_BYTES = Integer.MAX_VALUE;

    /** The host executor of {@code stages}, which must have been resolved for the CPU. */
    public CodecChain(CodecStages stages) {
        if (!stages.device().isHost()) {
            throw new IllegalArgumentException("a host codec chain needs stages resolved for the CPU, not " + stages.device());
        }
        this.stages = stages;
        this.spec = stages.spec();
        this.metadata = stages.metadata();
        this.a2a = stages.arrayToArray();
        this.a2bSpec = stages.arrayToBytesSpec();
        this.a2b = stages.arrayToBytes();
        this.sharding = stages.sharding();
        this.b2b = stages.bytesToBytes();
        this.a2bIsIdentity = stages.arrayToBytesIsIdentity();
        this.fill = stages.fill();
    }

    /**
     * Resolves {@code codecs} for chunks of {@code spec} on the host ({@link CodecStages#resolve}).
     *
     * @param fill  one element's fill value, used for inner chunks of shards that were never written
     * @param where the array, for messages
     */
    public static CodecChain build(List<CodecMetadata> codecs, ChunkSpec spec, MemorySegment fill,
                                   CodecStages.Context ctx, String where) {
        return new CodecChain(CodecStages.resolve(codecs, spec, fill, ctx, where));
    }

    /** The resolved stages this chain runs. */
    public CodecStages stages() {
        return stages;
    }

    /** The chain with built-in configurations normalised (defaults filled in), for writing metadata. */
    public List<CodecMetadata> metadata() {
        return metadata;
    }

    public ChunkSpec spec() {
        return spec;
    }

    /** True when the chain is {@code sharding_indexed} alone, so partial reads fetch only what they need. */
    public boolean isPartiallyReadable() {
        return stages.isPartiallyReadable();
    }

    /** The encoded size of every chunk when it is fixed (no compression), else -1. */
    public long encodedSize() {
        return stages.encodedSize();
    }

    /**
     * The most bytes a stored chunk of this chain may take, checked before a chunk is read (a
     * hostile store can hold a 20 GiB chunk): the array-to-bytes codec's worst case for the decoded
     * chunk (for a shard, its index and every inner chunk at their worst), grown by each
     * bytes-to-bytes codec's worst case, plus an eighth and 64 KiB, since other writers may frame
     * the same data less tightly than our encoders do (skippable frames, smaller blocks).
     * Saturates at {@link Long#MAX_VALUE}.
     */
    public long maxEncodedBytes() {
        return maxEncodedBytes(sharding != null ? sharding.maxEncodedBytes() : a2b.maxEncodedSize(a2bSpec), b2b);
    }

    /** {@link #maxEncodedBytes()} from the array-to-bytes stage's worst case {@code max}, for the device decoder too. */
    static long maxEncodedBytes(long max, List<BytesToBytesCodec> b2b) {
        for (BytesToBytesCodec c : b2b) {
            // The codecs' formulas are for real sizes: past 2^56 they may overflow, and nothing is
            // that large. A negative worst case (a plugin that cannot tell) means no bound.
            if (max < 0 || max >= (1L << 56)) {
                return Long.MAX_VALUE;
            }
            max = c.maxEncodedSize(max);
        }
        if (max < 0 || max >= (1L << 56)) {
            return Long.MAX_VALUE;
        }
        return max + max / 8 + (64 << 10);
    }

    /** Every codec implementation of the chain, leaves included, for {@code doctor} and logs. */
    public List<String> describe() {
        return stages.describe();
    }

    ShardingCodec sharding() {
        return sharding;
    }

    /** The chain of the inner chunks of this chain's shards; null when it is not sharded. */
    public CodecChain shardInner() {
        return sharding == null ? null : sharding.inner();
    }

    /**
     * Reads and decodes the index of the shard {@code src} (of {@code shardSize} bytes, -1 when not
     * known) of this chain, which must be {@link #isPartiallyReadable()}; null when the shard was
     * never written.
     */
    public ShardIndex readShardIndex(ChunkSource src, long shardSize, String label) {
        if (!isPartiallyReadable()) {
            throw new IllegalStateException("chain " + describe() + " is not sharding_indexed alone");
        }
        return sharding.readIndex(src, shardSize, label);
    }

    /**
     * Decodes the part {@code [boxStart, boxStart+boxExtent)} of the chunk that {@code src} holds into
     * {@code target} at {@code at}; a chunk that was never written is filled with the fill value.
     */
    public void decodeRegion(ChunkSource src, long[] boxStart, long[] boxExtent, HostRegion target, long[] at,
                             String label, HostScratch scratch) {
        if (isPartiallyReadable()) {
            sharding.decodeRegion(src, boxStart, boxExtent, target, at, label, scratch);
            return;
        }
        boolean whole = true;
        long[] shape = spec.shape();
        for (int i = 0; i < shape.length; i++) {
            whole &= boxStart[i] == 0 && boxExtent[i] == shape[i];
        }
        long off = whole ? target.contiguousBoxOffset(at, boxExtent) : -1;
        if (off >= 0 && stages.isIdentity()) {
            // Stored bytes are the decoded bytes: read them straight into the destination.
            long chunkBytes = spec.byteSize();
            MemorySegment dst = target.segment().asSlice(off, chunkBytes);
            MemorySegment got = src.read(ByteRange.ALL, (size, align) -> size == chunkBytes ? dst
                    : scratch.get(HostScratch.ENCODED, size));
            if (got == null) {
                target.fill(at, boxExtent, fill);
            } else if (got.address() != dst.address() || got.byteSize() != chunkBytes) {
                checkFixedSize(got, label);
                MemorySegment.copy(got, 0, dst, 0, chunkBytes);
            }
            return;
        }
        MemorySegment enc = src.read(ByteRange.ALL, (size, align) -> scratch.get(HostScratch.ENCODED, size));
        if (enc == null) {
            target.fill(at, boxExtent, fill);
            return;
        }
        if (off < 0) {
            checkStageable(label);
        }
        if (off >= 0) {
            decode(enc, target.segment().asSlice(off, spec.byteSize()), label, scratch);
        } else if (sharding != null) {
            // The shard's own leaves stage their chunks in the CHUNK slot: keep this one apart.
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment chunk = arena.allocate(Math.max(1, spec.byteSize()), 64).asSlice(0, spec.byteSize());
                decode(enc, chunk, label, scratch);
                target.placeFrom(chunk, shape, boxStart, boxExtent, at);
            }
        } else {
            MemorySegment chunk = scratch.get(HostScratch.CHUNK, spec.byteSize());
            decode(enc, chunk, label, scratch);
            target.placeFrom(chunk, shape, boxStart, boxExtent, at);
        }
    }

    /** Decodes a whole chunk into {@code out}, which holds exactly {@code spec().byteSize()} bytes. */
    public void decode(MemorySegment encoded, MemorySegment out, String label, HostScratch scratch) {
        MemorySegment cur = encoded;
        int parity = 0;
        for (int i = b2b.size() - 1; i >= 0; i--) {
            BytesToBytesCodec c = b2b.get(i);
            long size = stages.stageSize(i);
            if (size < 0) {
                size = c.decodedSize(HostBuffer.wrap(cur));
                checkDeclaredSize(c, i, size, cur.byteSize(), label);
            }
            if (size < 0) {
                throw new CodecException(c.name(), "cannot tell the decoded size of stage \"" + c.name() + "\" of "
                        + label + ": the chain " + metadata.stream().map(CodecMetadata::name).toList()
                        + " has no fixed size there");
            }
            boolean last = i == 0 && a2a.isEmpty() && a2bIsIdentity && sharding == null;
            if (last && size != out.byteSize()) {
                throw new IllegalStateException("chain size math gives " + size + " bytes for a chunk of " + out.byteSize());
            }
            MemorySegment dst = last ? out : scratch.get(parity++ % 2 == 0 ? HostScratch.DECODE_A : HostScratch.DECODE_B, size);
            runBytes(c, cur, dst, label, true);
            cur = dst;
        }
        if (sharding != null) {
            if (!b2b.isEmpty()) {
                // The shard's leaves reuse the decode slots: give the shard bytes memory of their own.
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment copy = arena.allocate(cur.byteSize(), 64).copyFrom(cur);
                    decodeShardThenArrays(copy, out, label, scratch);
                }
            } else {
                decodeShardThenArrays(cur, out, label, scratch);
            }
            return;
        }
        if (a2a.isEmpty()) {
            if (a2bIsIdentity && cur.address() == out.address() && cur.byteSize() == out.byteSize()) {
                return;
            }
            checkFixedSize(cur, label);
            runArrayToBytes(cur, out, label, true);
            return;
        }
        checkFixedSize(cur, label);
        MemorySegment arr = scratch.get(parity++ % 2 == 0 ? HostScratch.DECODE_A : HostScratch.DECODE_B, a2bSpec.byteSize());
        runArrayToBytes(cur, arr, label, true);
        runArraysBackwards(arr, out, parity, label, scratch);
    }

    private void decodeShardThenArrays(MemorySegment shardBytes, MemorySegment out, String label, HostScratch scratch) {
        if (a2a.isEmpty()) {
            sharding.decodeRegion(ChunkSource.ofMemory(shardBytes, label), new long[spec.rank()], spec.shape(),
                    HostRegion.cOrder(out, spec.shape(), spec.dataType().byteSize()), new long[spec.rank()], label, scratch);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment arr = arena.allocate(a2bSpec.byteSize(), 64);
            sharding.decodeRegion(ChunkSource.ofMemory(shardBytes, label), new long[a2bSpec.rank()], a2bSpec.shape(),
                    HostRegion.cOrder(arr, a2bSpec.shape(), a2bSpec.dataType().byteSize()), new long[a2bSpec.rank()], label,
                    scratch);
            runArraysBackwards(arr, out, 0, label, scratch);
        }
    }

    private void runArraysBackwards(MemorySegment arr, MemorySegment out, int parity, String label, HostScratch scratch) {
        MemorySegment cur = arr;
        for (int i = a2a.size() - 1; i >= 0; i--) {
            ChunkSpec decodedSpec = stages.arrayToArrayDecodedSpec(i);
            MemorySegment dst = i == 0 ? out
                    : scratch.get(parity++ % 2 == 0 ? HostScratch.DECODE_A : HostScratch.DECODE_B, decodedSpec.byteSize());
            ArrayToArrayCodec c = a2a.get(i);
            CodecBatch batch = CodecBatch.of(HostBuffer.wrap(cur), HostBuffer.wrap(dst), label);
            invoke(c, label, () -> c.decode(decodedSpec, batch));
            batch.throwIfFailed();
            cur = dst;
        }
    }

    private void checkFixedSize(MemorySegment cur, String label) {
        long expect = stages.stageSize(0);
        if (expect >= 0 && cur.byteSize() != expect) {
            throw new CorruptChunkException(a2b.name(), label + " has " + cur.byteSize() + " bytes where the codecs "
                    + metadata.stream().map(CodecMetadata::name).toList() + " imply " + expect);
        }
    }

    /**
     * Encodes a whole chunk. The result is valid until the next encode with {@code scratch} (it lives
     * there or in {@code arena}); null when the chain is sharded and every inner chunk equals the
     * fill value.
     */
    public MemorySegment encode(MemorySegment decoded, Arena arena, String label, HostScratch scratch) {
        MemorySegment cur = decoded;
        int parity = 0;
        for (int i = 0; i < a2a.size(); i++) {
            ChunkSpec in = stages.arrayToArrayDecodedSpec(i);
            ChunkSpec outSpec = i + 1 < a2a.size() ? stages.arrayToArrayDecodedSpec(i + 1) : a2bSpec;
            MemorySegment dst = scratch.get(parity++ % 2 == 0 ? HostScratch.ENCODE_A : HostScratch.ENCODE_B, outSpec.byteSize());
            ArrayToArrayCodec c = a2a.get(i);
            CodecBatch batch = CodecBatch.of(HostBuffer.wrap(cur), HostBuffer.wrap(dst), label);
            MemorySegment src = cur;
            invoke(c, label, () -> c.encode(in, batch));
            batch.throwIfFailed();
            cur = dst;
            assert src != dst;
        }
        if (sharding != null) {
            MemorySegment arr = cur;
            if (!a2a.isEmpty()) {
                // Inner chunks are encoded with the same scratch slots: keep the shard array apart.
                arr = arena.allocate(cur.byteSize(), 64).copyFrom(cur);
            }
            cur = sharding.encode(arr, arena, label, scratch);
            if (cur == null) {
                return null;
            }
        } else {
            long max = a2b.maxEncodedSize(a2bSpec);
            MemorySegment dst = scratch.get(parity++ % 2 == 0 ? HostScratch.ENCODE_A : HostScratch.ENCODE_B, max);
            long n = runArrayToBytes(cur, dst, label, false);
            cur = dst.asSlice(0, n);
        }
        for (BytesToBytesCodec c : b2b) {
            long max = c.maxEncodedSize(cur.byteSize());
            MemorySegment dst = scratch.get(parity++ % 2 == 0 ? HostScratch.ENCODE_A : HostScratch.ENCODE_B, max);
            long n = runBytes(c, cur, dst, label, false);
            cur = dst.asSlice(0, n);
        }
        return cur;
    }

    private long runArrayToBytes(MemorySegment in, MemorySegment out, String label, boolean decode) {
        CodecBatch batch = CodecBatch.of(HostBuffer.wrap(in), HostBuffer.wrap(out), label);
        invoke(a2b, label, () -> {
            if (decode) {
                a2b.decode(a2bSpec, batch);
            } else {
                a2b.encode(a2bSpec, batch);
            }
        });
        batch.throwIfFailed();
        return batch.written(0) < 0 ? out.byteSize() : batch.written(0);
    }

    private static long runBytes(BytesToBytesCodec c, MemorySegment in, MemorySegment out, String label, boolean decode) {
        CodecBatch batch = CodecBatch.of(HostBuffer.wrap(in), HostBuffer.wrap(out), label);
        invoke(c, label, () -> {
            if (decode) {
                c.decode(batch);
            } else {
                c.encode(batch);
            }
        });
        batch.throwIfFailed();
        long n = batch.written(0);
        if (n < 0) {
            throw new CodecException(c.name(), "codec \"" + c.name() + "\" (" + c.provider() + ") reported no result for " + label);
        }
        if (decode && n != out.byteSize()) {
            throw new CorruptChunkException(c.name(), c.name() + " of " + label + " decoded to " + n
                    + " bytes, expected " + out.byteSize());
        }
        return n;
    }

    /**
     * Refuses, before anything is allocated, a decoded size that stage {@code i}'s input declares
     * (a decompression bomb: a zstd frame header or a blosc {@code nbytes} may claim any size) when
     * it is more than the codecs before the stage can produce, or than one staging buffer holds.
     */
    private void checkDeclaredSize(BytesToBytesCodec c, int i, long declared, long encoded, String label) {
        if (declared < 0) {
            return;
        }
        long max = stages.maxStageSize(i);
        if (declared > max) {
            throw new CorruptChunkException(c.name(), "\"" + c.name() + "\" data of " + label + " (" + encoded
                    + " bytes) declare " + declared + " decoded bytes, more than the " + max + " bytes the codecs "
                    + metadata.stream().map(CodecMetadata::name).toList() + " can produce at most there");
        }
        if (declared > MAX_STAGED_CHUNK_BYTES) {
            throw new CodecException(c.name(), "\"" + c.name() + "\" data of " + label + " declare " + declared
                    + " decoded bytes, more than the " + MAX_STAGED_CHUNK_BYTES + " bytes one staging buffer holds;"
                    + " rewrite the array with smaller shards ('zarr-direct convert --shard')");
        }
    }

    /** Refuses, before any allocation, a chunk too large to stage ({@link #MAX_STAGED_CHUNK_BYTES}). */
    private void checkStageable(String label) {
        long bytes = spec.byteSize();
        if (bytes > MAX_STAGED_CHUNK_BYTES) {
            throw new CodecException(metadata.get(0).name(), label + " decodes to " + bytes + " bytes (chunk shape "
                    + dev.zarrdirect.core.grid.Shapes.format(spec.shape()) + " of " + spec.dataType().name()
                    + "), more than the " + MAX_STAGED_CHUNK_BYTES + " bytes one staging buffer holds; read whole"
                    + " chunks into a tensor of their own, or rewrite the array with smaller chunks"
                    + " ('zarr-direct convert --chunks')");
        }
    }

    private static void invoke(Codec c, String label, Runnable r) {
        try {
            r.run();
        } catch (ZarrDirectException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CodecException(c.name(), "codec \"" + c.name() + "\" (" + c.provider() + ") failed on " + label
                    + ": " + e, e);
        }
    }

    /**
     * Decodes a whole chunk into staging memory and returns it (C order, {@code spec().byteSize()}
     * bytes), for a caller that places several boxes of it. The result lives in {@code scratch}'s
     * chunk slot, or in {@code arena} for a sharded chain (whose inner chunks use that slot).
     */
    public MemorySegment decodeStaged(MemorySegment encoded, String label, HostScratch scratch, Arena arena) {
        checkStageable(label);
        MemorySegment chunk = sharding == null ? scratch.get(HostScratch.CHUNK, spec.byteSize())
                : arena.allocate(Math.max(1, spec.byteSize()), 64).asSlice(0, spec.byteSize());
        decode(encoded, chunk, label, scratch);
        return chunk;
    }

    /** The fill value's bytes (one element) as given to this chain. */
    public MemorySegment fill() {
        return fill;
    }

}
