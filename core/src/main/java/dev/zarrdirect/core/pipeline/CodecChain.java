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
 * A resolved codec chain for one chunk representation: array-to-array codecs, one array-to-bytes
 * codec (or {@code sharding_indexed}, orchestrated here in the core), then bytes-to-bytes codecs.
 * Decoding runs the chain backwards; the last stage writes straight into the caller's memory, and
 * a little-endian {@code bytes} stage, being the identity, is skipped.
 *
 * <p>Thread-safe: intermediates come from per-thread {@link Scratch} slots.
 */
public final class CodecChain {

    /** What a chain is resolved against. */
    public record Context(CodecRegistry registry, Device device, Map<String, String> choices) {
    }

    private final ChunkSpec spec;
    private final List<CodecMetadata> metadata;
    private final List<ArrayToArrayCodec> a2a;
    private final List<ChunkSpec> a2aDecodedSpecs;
    private final ChunkSpec a2bSpec;
    private final ArrayToBytesCodec a2b;
    private final ShardingCodec sharding;
    private final List<BytesToBytesCodec> b2b;
    /** stageSizes[i] = decoded size of b2b stage i (= encoded size of the stage before), -1 if data-dependent. */
    private final long[] stageSizes;
    private final long encodedSize;
    private final boolean a2bIsIdentity;
    private final MemorySegment fill;

    private CodecChain(ChunkSpec spec, List<CodecMetadata> metadata, List<ArrayToArrayCodec> a2a,
                       List<ChunkSpec> a2aDecodedSpecs, ChunkSpec a2bSpec, ArrayToBytesCodec a2b,
                       ShardingCodec sharding, List<BytesToBytesCodec> b2b, boolean a2bIsIdentity, MemorySegment fill) {
        this.spec = spec;
        this.metadata = metadata;
        this.a2a = a2a;
        this.a2aDecodedSpecs = a2aDecodedSpecs;
        this.a2bSpec = a2bSpec;
        this.a2b = a2b;
        this.sharding = sharding;
        this.b2b = b2b;
        this.a2bIsIdentity = a2bIsIdentity;
        this.fill = fill;
        this.stageSizes = new long[b2b.size() + 1];
        stageSizes[0] = a2b != null ? a2b.encodedSize(a2bSpec) : -1;
        for (int i = 0; i < b2b.size(); i++) {
            stageSizes[i + 1] = stageSizes[i] < 0 ? -1 : b2b.get(i).encodedSize(stageSizes[i]);
        }
        this.encodedSize = stageSizes[b2b.size()];
    }

    /**
     * Resolves {@code codecs} for chunks of {@code spec}.
     *
     * @param fill  one element's fill value, used for inner chunks of shards that were never written
     * @param where the array, for messages
     */
    public static CodecChain build(List<CodecMetadata> codecs, ChunkSpec spec, MemorySegment fill, Context ctx,
                                   String where) {
        if (codecs.isEmpty()) {
            throw new InvalidMetadataException(where + " has no codecs; a chain needs one array-to-bytes codec such as \"bytes\"");
        }
        List<ArrayToArrayCodec> a2a = new ArrayList<>();
        List<ChunkSpec> a2aSpecs = new ArrayList<>();
        List<BytesToBytesCodec> b2b = new ArrayList<>();
        List<CodecMetadata> normalised = new ArrayList<>();
        ArrayToBytesCodec a2b = null;
        ShardingCodec sharding = null;
        boolean identity = false;
        ChunkSpec cur = spec;
        for (CodecMetadata raw : codecs) {
            CodecKind builtinKind = BuiltinCodecs.kindOf(raw.name());
            if (builtinKind == CodecKind.ARRAY_TO_BYTES && (a2b != null || sharding != null)) {
                throw new InvalidMetadataException(where + " has a second array-to-bytes codec \"" + raw.name()
                        + "\"; a chain has exactly one");
            }
            CodecMetadata c = BuiltinCodecs.validate(raw, cur, where);
            normalised.add(c);
            if (BuiltinCodecs.SHARDING.equals(c.name())) {
                if (!b2b.isEmpty()) {
                    throw new InvalidMetadataException(where + " has sharding_indexed after a bytes-to-bytes codec");
                }
                ShardingConfig cfg = ShardingConfig.parse(c.configuration(), cur.shape(), where);
                sharding = new ShardingCodec(cur, cfg, fill, ctx, where);
                continue;
            }
            Codec impl;
            try {
                impl = ctx.registry().resolve(c.name(), c.configuration(), ctx.device(), ctx.choices(), where);
            } catch (IllegalArgumentException e) {
                throw new InvalidMetadataException("codec \"" + c.name() + "\" of " + where + ": " + e.getMessage(), e);
            }
            if (builtinKind != null && builtinKind != impl.kind()) {
                throw new InvalidMetadataException("provider \"" + impl.provider() + "\" implements \"" + c.name()
                        + "\" as " + impl.kind() + " but the specification defines it as " + builtinKind);
            }
            switch (impl) {
                case ArrayToArrayCodec t -> {
                    if (a2b != null || sharding != null) {
                        throw new InvalidMetadataException(where + " has the array-to-array codec \"" + c.name()
                                + "\" after its array-to-bytes codec");
                    }
                    a2a.add(t);
                    a2aSpecs.add(cur);
                    try {
                        cur = t.encodedSpec(cur);
                    } catch (IllegalArgumentException e) {
                        throw new InvalidMetadataException("codec \"" + c.name() + "\" of " + where + ": " + e.getMessage(), e);
                    }
                }
                case ArrayToBytesCodec t -> {
                    if (a2b != null || sharding != null) {
                        throw new InvalidMetadataException(where + " has a second array-to-bytes codec \"" + c.name() + "\"");
                    }
                    a2b = t;
                    identity = BuiltinCodecs.BYTES.equals(c.name())
                            && (cur.dataType().swapUnit() == 1 || "little".equals(c.configuration().get("endian")));
                }
                case BytesToBytesCodec t -> {
                    if (a2b == null && sharding == null) {
                        throw new InvalidMetadataException(where + " has the bytes-to-bytes codec \"" + c.name()
                                + "\" before an array-to-bytes codec (e.g. \"bytes\")");
                    }
                    b2b.add(t);
                }
            }
        }
        if (a2b == null && sharding == null) {
            throw new InvalidMetadataException(where + " has no array-to-bytes codec (e.g. \"bytes\") in its chain "
                    + codecs.stream().map(CodecMetadata::name).toList());
        }
        return new CodecChain(spec, List.copyOf(normalised), List.copyOf(a2a), List.copyOf(a2aSpecs), cur, a2b,
                sharding, List.copyOf(b2b), identity, fill);
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
        return sharding != null && a2a.isEmpty() && b2b.isEmpty();
    }

    /** The encoded size of every chunk when it is fixed (no compression), else -1. */
    public long encodedSize() {
        return encodedSize;
    }

    /** Every codec implementation of the chain, leaves included, for {@code doctor} and logs. */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        a2a.forEach(c -> out.add(c.name() + "@" + c.provider()));
        if (a2b != null) {
            out.add(a2b.name() + "@" + a2b.provider());
        } else {
            out.add("sharding_indexed" + sharding.inner().describe());
        }
        b2b.forEach(c -> out.add(c.name() + "@" + c.provider()));
        return out;
    }

    ShardingCodec sharding() {
        return sharding;
    }

    /**
     * Decodes the part {@code [boxStart, boxStart+boxExtent)} of the chunk that {@code src} holds into
     * {@code target} at {@code at}; a chunk that was never written is filled with the fill value.
     */
    public void decodeRegion(ChunkSource src, long[] boxStart, long[] boxExtent, HostRegion target, long[] at,
                             String label) {
        if (isPartiallyReadable()) {
            sharding.decodeRegion(src, boxStart, boxExtent, target, at, label);
            return;
        }
        boolean whole = true;
        long[] shape = spec.shape();
        for (int i = 0; i < shape.length; i++) {
            whole &= boxStart[i] == 0 && boxExtent[i] == shape[i];
        }
        long off = whole ? target.contiguousBoxOffset(at, boxExtent) : -1;
        if (off >= 0 && b2b.isEmpty() && a2a.isEmpty() && a2bIsIdentity && sharding == null) {
            // Stored bytes are the decoded bytes: read them straight into the destination.
            long chunkBytes = spec.byteSize();
            MemorySegment dst = target.segment().asSlice(off, chunkBytes);
            MemorySegment got = src.read(ByteRange.ALL, (size, align) -> size == chunkBytes ? dst
                    : Scratch.get(Scratch.ENCODED, size));
            if (got == null) {
                target.fill(at, boxExtent, fill);
            } else if (got.address() != dst.address() || got.byteSize() != chunkBytes) {
                checkFixedSize(got, label);
                MemorySegment.copy(got, 0, dst, 0, chunkBytes);
            }
            return;
        }
        MemorySegment enc = src.read(ByteRange.ALL, (size, align) -> Scratch.get(Scratch.ENCODED, size));
        if (enc == null) {
            target.fill(at, boxExtent, fill);
            return;
        }
        if (off >= 0) {
            decode(enc, target.segment().asSlice(off, spec.byteSize()), label);
        } else if (sharding != null) {
            // The shard's own leaves stage their chunks in the CHUNK slot: keep this one apart.
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment chunk = arena.allocate(Math.max(1, spec.byteSize()), 64).asSlice(0, spec.byteSize());
                decode(enc, chunk, label);
                target.placeFrom(chunk, shape, boxStart, boxExtent, at);
            }
        } else {
            MemorySegment chunk = Scratch.get(Scratch.CHUNK, spec.byteSize());
            decode(enc, chunk, label);
            target.placeFrom(chunk, shape, boxStart, boxExtent, at);
        }
    }

    /** Decodes a whole chunk into {@code out}, which holds exactly {@code spec().byteSize()} bytes. */
    public void decode(MemorySegment encoded, MemorySegment out, String label) {
        MemorySegment cur = encoded;
        int parity = 0;
        for (int i = b2b.size() - 1; i >= 0; i--) {
            BytesToBytesCodec c = b2b.get(i);
            long size = stageSizes[i];
            if (size < 0) {
                size = c.decodedSize(HostBuffer.wrap(cur));
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
            MemorySegment dst = last ? out : Scratch.get(parity++ % 2 == 0 ? Scratch.DECODE_A : Scratch.DECODE_B, size);
            runBytes(c, cur, dst, label, true);
            cur = dst;
        }
        if (sharding != null) {
            if (!b2b.isEmpty()) {
                // The shard's leaves reuse the decode slots: give the shard bytes memory of their own.
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment copy = arena.allocate(cur.byteSize(), 64).copyFrom(cur);
                    decodeShardThenArrays(copy, out, label);
                }
            } else {
                decodeShardThenArrays(cur, out, label);
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
        MemorySegment arr = Scratch.get(parity++ % 2 == 0 ? Scratch.DECODE_A : Scratch.DECODE_B, a2bSpec.byteSize());
        runArrayToBytes(cur, arr, label, true);
        runArraysBackwards(arr, out, parity, label);
    }

    private void decodeShardThenArrays(MemorySegment shardBytes, MemorySegment out, String label) {
        if (a2a.isEmpty()) {
            sharding.decodeRegion(ChunkSource.ofMemory(shardBytes, label), new long[spec.rank()], spec.shape(),
                    HostRegion.cOrder(out, spec.shape(), spec.dataType().byteSize()), new long[spec.rank()], label);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment arr = arena.allocate(a2bSpec.byteSize(), 64);
            sharding.decodeRegion(ChunkSource.ofMemory(shardBytes, label), new long[a2bSpec.rank()], a2bSpec.shape(),
                    HostRegion.cOrder(arr, a2bSpec.shape(), a2bSpec.dataType().byteSize()), new long[a2bSpec.rank()], label);
            runArraysBackwards(arr, out, 0, label);
        }
    }

    private void runArraysBackwards(MemorySegment arr, MemorySegment out, int parity, String label) {
        MemorySegment cur = arr;
        for (int i = a2a.size() - 1; i >= 0; i--) {
            ChunkSpec decodedSpec = a2aDecodedSpecs.get(i);
            MemorySegment dst = i == 0 ? out
                    : Scratch.get(parity++ % 2 == 0 ? Scratch.DECODE_A : Scratch.DECODE_B, decodedSpec.byteSize());
            ArrayToArrayCodec c = a2a.get(i);
            CodecBatch batch = CodecBatch.of(HostBuffer.wrap(cur), HostBuffer.wrap(dst), label);
            invoke(c, label, () -> c.decode(decodedSpec, batch));
            batch.throwIfFailed();
            cur = dst;
        }
    }

    private void checkFixedSize(MemorySegment cur, String label) {
        long expect = stageSizes[0];
        if (expect >= 0 && cur.byteSize() != expect) {
            throw new CorruptChunkException(a2b.name(), label + " has " + cur.byteSize() + " bytes where the codecs "
                    + metadata.stream().map(CodecMetadata::name).toList() + " imply " + expect);
        }
    }

    /**
     * Encodes a whole chunk. The result is valid until the next encode on this thread (it lives in
     * scratch memory or in {@code arena}); null when the chain is sharded and every inner chunk
     * equals the fill value.
     */
    public MemorySegment encode(MemorySegment decoded, Arena arena, String label) {
        MemorySegment cur = decoded;
        int parity = 0;
        for (int i = 0; i < a2a.size(); i++) {
            ChunkSpec in = a2aDecodedSpecs.get(i);
            ChunkSpec outSpec = i + 1 < a2a.size() ? a2aDecodedSpecs.get(i + 1) : a2bSpec;
            MemorySegment dst = Scratch.get(parity++ % 2 == 0 ? Scratch.ENCODE_A : Scratch.ENCODE_B, outSpec.byteSize());
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
            cur = sharding.encode(arr, arena, label);
            if (cur == null) {
                return null;
            }
        } else {
            long max = a2b.maxEncodedSize(a2bSpec);
            MemorySegment dst = Scratch.get(parity++ % 2 == 0 ? Scratch.ENCODE_A : Scratch.ENCODE_B, max);
            long n = runArrayToBytes(cur, dst, label, false);
            cur = dst.asSlice(0, n);
        }
        for (BytesToBytesCodec c : b2b) {
            long max = c.maxEncodedSize(cur.byteSize());
            MemorySegment dst = Scratch.get(parity++ % 2 == 0 ? Scratch.ENCODE_A : Scratch.ENCODE_B, max);
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

    /** The fill value's bytes as given to this chain. */
    MemorySegment fill() {
        return fill;
    }

    static DataType uint64() {
        return DataType.UINT64;
    }
}
