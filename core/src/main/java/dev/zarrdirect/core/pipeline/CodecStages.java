// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.pipeline;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.codec.ArrayToArrayCodec;
import dev.zarrdirect.api.codec.ArrayToBytesCodec;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecKind;
import dev.zarrdirect.core.codec.BuiltinCodecs;
import dev.zarrdirect.core.codec.ShardingConfig;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.registry.CodecRegistry;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A codec chain resolved once for one chunk representation and one device: the array-to-array
 * stages with the spec each one decodes to, the array-to-bytes stage (or {@code sharding_indexed}),
 * the bytes-to-bytes stages, and the size arithmetic between them. Both executors run from it:
 * {@link CodecChain} decodes one chunk at a time on the host, {@link DeviceDecoder} a batch of
 * chunks on a device. Immutable and thread-safe.
 */
public final class CodecStages {

    /** What a chain is resolved against. */
    public record Context(CodecRegistry registry, Device device, Map<String, String> choices) {
    }

    private final ChunkSpec spec;
    private final Device device;
    private final List<CodecMetadata> metadata;
    private final List<ArrayToArrayCodec> a2a;
    private final List<ChunkSpec> a2aDecodedSpecs;
    private final ChunkSpec a2bSpec;
    private final ArrayToBytesCodec a2b;
    private final ShardingCodec sharding;
    private final List<BytesToBytesCodec> b2b;
    /** stageSizes[i] = decoded size of b2b stage i (= encoded size of the stage before), -1 if data-dependent. */
    private final long[] stageSizes;
    private final boolean a2bIsIdentity;
    private final MemorySegment fill;

    private CodecStages(ChunkSpec spec, Device device, List<CodecMetadata> metadata, List<ArrayToArrayCodec> a2a,
                        List<ChunkSpec> a2aDecodedSpecs, ChunkSpec a2bSpec, ArrayToBytesCodec a2b,
                        ShardingCodec sharding, List<BytesToBytesCodec> b2b, boolean a2bIsIdentity, MemorySegment fill) {
        this.spec = spec;
        this.device = device;
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
    }

    /**
     * Validates and resolves {@code codecs} for chunks of {@code spec} on {@code ctx.device()}: each
     * codec gets the implementation the registry picks for that device (a CPU one when the device
     * has none).
     *
     * @param fill  one element's fill value, used for inner chunks of shards that were never written
     * @param where the array, for messages
     */
    public static CodecStages resolve(List<CodecMetadata> codecs, ChunkSpec spec, MemorySegment fill, Context ctx,
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
        return new CodecStages(spec, ctx.device(), List.copyOf(normalised), List.copyOf(a2a), List.copyOf(a2aSpecs),
                cur, a2b, sharding, List.copyOf(b2b), identity, fill);
    }

    /** The decoded chunk these stages produce. */
    public ChunkSpec spec() {
        return spec;
    }

    /** The device the stages were resolved for. */
    public Device device() {
        return device;
    }

    /** The chain with built-in configurations normalised (defaults filled in), for writing metadata. */
    public List<CodecMetadata> metadata() {
        return metadata;
    }

    List<ArrayToArrayCodec> arrayToArray() {
        return a2a;
    }

    /** The spec array-to-array stage {@code i} decodes to. */
    ChunkSpec arrayToArrayDecodedSpec(int i) {
        return a2aDecodedSpecs.get(i);
    }

    /** The array-to-bytes stage; null when the chain is sharded. */
    ArrayToBytesCodec arrayToBytes() {
        return a2b;
    }

    /** The spec the array-to-bytes stage decodes to (after every array-to-array stage's encoding). */
    ChunkSpec arrayToBytesSpec() {
        return a2bSpec;
    }

    /** True when the array-to-bytes stage is a little-endian {@code bytes}: its decode is the identity. */
    boolean arrayToBytesIsIdentity() {
        return a2bIsIdentity;
    }

    List<BytesToBytesCodec> bytesToBytes() {
        return b2b;
    }

    ShardingCodec sharding() {
        return sharding;
    }

    /**
     * The decoded size of bytes-to-bytes stage {@code i} (the encoded size of the stage before it;
     * {@code i == bytesToBytes().size()} gives the chunk's stored size), or -1 when it depends on
     * the data.
     */
    long stageSize(int i) {
        return stageSizes[i];
    }

    /**
     * The most bytes the decoded side of bytes-to-bytes stage {@code i} can hold: for stage 0 the
     * array-to-bytes codec's worst case (for a shard, its index and every inner chunk at their
     * worst), grown by the worst case of each stage before {@code i}, with the slack
     * {@link CodecChain#maxEncodedBytes()} allows other writers. A size that a stage's input
     * declares (a zstd frame's content size, a blosc {@code nbytes}) is checked against it before
     * anything is allocated. Saturates at {@link Long#MAX_VALUE}.
     */
    long maxStageSize(int i) {
        long first = sharding != null ? sharding.maxEncodedBytes() : a2b.maxEncodedSize(a2bSpec);
        return i == 0 ? (first < 0 ? Long.MAX_VALUE : first) : CodecChain.maxEncodedBytes(first, b2b.subList(0, i));
    }

    /** The encoded size of every chunk when it is fixed (no compression), else -1. */
    public long encodedSize() {
        return stageSizes[b2b.size()];
    }

    /** True when the stored bytes are the decoded bytes: nothing to run but a copy. */
    boolean isIdentity() {
        return sharding == null && a2a.isEmpty() && b2b.isEmpty() && a2bIsIdentity;
    }

    /** True when the chain is {@code sharding_indexed} alone, so partial reads fetch only what they need. */
    public boolean isPartiallyReadable() {
        return sharding != null && a2a.isEmpty() && b2b.isEmpty();
    }

    /** One element's fill value. */
    MemorySegment fill() {
        return fill;
    }

    /** Every codec implementation, leaves included, e.g. {@code [bytes@cpu, zstd@cuda]}. */
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

    /** The codecs whose implementation runs elsewhere than {@link #device()} (on the CPU), as {@code name@provider}. */
    public List<String> hostFallbacks() {
        List<String> out = new ArrayList<>();
        a2a.stream().filter(c -> !c.device().equals(device)).forEach(c -> out.add(c.name() + "@" + c.provider()));
        if (a2b != null && !a2b.device().equals(device)) {
            out.add(a2b.name() + "@" + a2b.provider());
        }
        b2b.stream().filter(c -> !c.device().equals(device)).forEach(c -> out.add(c.name() + "@" + c.provider()));
        return out;
    }
}
