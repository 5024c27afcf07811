// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import dev.zarrdirect.api.settings.SettingValues;
import dev.zarrdirect.api.store.StoreOptions;

import dev.zarrdirect.core.metadata.CodecMetadata;

import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a {@link Converter} does: the destination's layout (chunks, shards, codecs, byte order, Zarr
 * format) and how it runs (threads, blocks in flight, memory, overwrite, verify). Immutable; made by
 * {@link #builder()}, which checks that the options fit together when it builds.
 *
 * <p>An option left unset keeps what the source has: its (inner) chunk shape, its sharding (unless
 * {@link Builder#noShard}), its bytes-to-bytes codecs, its byte order. Each option is the CLI option
 * of the same name ({@code --chunks}, {@code --shard}, {@code --no-shard}, {@code --codec},
 * {@code --endian}, {@code --zarr-format}, {@code --threads}, {@code --parallel}, {@code --memory},
 * {@code --backend}, {@code --overwrite}, {@code --verify}, {@code --max-shards}), and the messages
 * of {@link ConvertOptionsException} name them so.
 *
 * {@snippet :
 * ConvertOptions options = ConvertOptions.builder()
 *         .chunks(1, -1, -1, -1)  // one step per chunk; -1: the whole dimension
 *         .shard(4, -1, -1, -1)   // four chunks to a shard
 *         .codecs(List.of(CodecMetadata.of("zstd", Map.of("level", 5L))))
 *         .build();
 * }
 *
 * <p>Whether the options fit the source (ranks, codecs that exist) is checked when a conversion
 * plans, before anything is written. Shapes count elements; memory counts bytes.
 */
public final class ConvertOptions {

    private final long[] chunks;
    private final long[] shard;
    private final boolean noShard;
    private final List<CodecMetadata> codecs;
    private final ByteOrder endian;
    private final int zarrFormat;
    private final Integer threads;
    private final int parallel;
    private final long memoryBytes;
    private final String backend;
    private final boolean overwrite;
    private final boolean verify;
    private final Long maxShards;
    private final SettingValues settings;
    private final StoreOptions storeOptions;

    private ConvertOptions(Builder b) {
        this.chunks = b.chunks == null ? null : b.chunks.clone();
        this.shard = b.shard == null ? null : b.shard.clone();
        this.noShard = b.noShard;
        this.codecs = b.codecs == null ? null : List.copyOf(b.codecs);
        this.endian = b.endian;
        this.zarrFormat = b.zarrFormat;
        this.threads = b.threads;
        this.parallel = b.parallel;
        this.memoryBytes = b.memoryBytes;
        this.backend = b.backend;
        this.overwrite = b.overwrite;
        this.verify = b.verify;
        this.maxShards = b.maxShards;
        this.settings = b.settings;
        this.storeOptions = b.storeOptions;
    }

    /**
     * The defaults: the source's layout, Zarr v3, 2 blocks in flight in 2 GiB, read with the cpu backend.
     *
     * @return the default options
     */
    public static ConvertOptions defaults() {
        return builder().build();
    }

    /**
     * A builder holding the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding these options, to derive others from them.
     *
     * @return a new builder; changing it does not change these options
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.chunks = chunks;
        b.shard = shard;
        b.noShard = noShard;
        b.codecs = codecs;
        b.endian = endian;
        b.zarrFormat = zarrFormat;
        b.threads = threads;
        b.parallel = parallel;
        b.memoryBytes = memoryBytes;
        b.backend = backend;
        b.overwrite = overwrite;
        b.verify = verify;
        b.maxShards = maxShards;
        b.settings = settings;
        b.storeOptions = storeOptions;
        return b;
    }

    /**
     * The chunk shape (inner chunks when sharded), in elements, -1 for a whole dimension.
     *
     * @return a fresh copy; empty: the source's
     */
    public Optional<long[]> chunks() {
        return Optional.ofNullable(chunks).map(long[]::clone);
    }

    /**
     * The shard shape, in elements, -1 for a whole dimension.
     *
     * @return a fresh copy; empty: sharded as the source is (unless {@link #noShard()})
     */
    public Optional<long[]> shard() {
        return Optional.ofNullable(shard).map(long[]::clone);
    }

    /**
     * Whether sharding is removed.
     *
     * @return true when the destination is not sharded: the inner chunks of a sharded source become chunks
     */
    public boolean noShard() {
        return noShard;
    }

    /**
     * The bytes-to-bytes codecs of the destination, in order.
     *
     * @return an unmodifiable list (an empty list: none); empty: the source's
     */
    public Optional<List<CodecMetadata>> codecs() {
        return Optional.ofNullable(codecs);
    }

    /**
     * The byte order of the destination's {@code bytes} codec.
     *
     * @return the byte order; empty: the source's
     */
    public Optional<ByteOrder> endian() {
        return Optional.ofNullable(endian);
    }

    /**
     * The destination's Zarr format.
     *
     * @return 2 or 3; default 3
     */
    public int zarrFormat() {
        return zarrFormat;
    }

    /**
     * Threads decoding and encoding chunks.
     *
     * @return at least 1; empty: one per available processor
     */
    public OptionalInt threads() {
        return threads == null ? OptionalInt.empty() : OptionalInt.of(threads);
    }

    /**
     * Blocks of destination shards in flight at once.
     *
     * @return at least 1; default 2
     */
    public int parallel() {
        return parallel;
    }

    /**
     * Memory for the blocks in flight, in bytes; blocks shrink to fit. Codec scratch comes on top
     * ({@link ConvertSummary#memoryBoundBytes()} has the whole bound).
     *
     * @return at least 1; default 2 GiB
     */
    public long memoryBytes() {
        return memoryBytes;
    }

    /**
     * Settings given to every context the conversion opens ({@code --set} on the CLI).
     *
     * @return the explicit values; none by default
     */
    public SettingValues settings() {
        return settings;
    }

    /**
     * How {@link Converter#convert(String, java.nio.file.Path)} reaches a remote source
     * ({@code s3://}, {@code gs://}, http): anonymous access, endpoint, region, requests in flight.
     *
     * @return the options; {@link StoreOptions#defaults()} by default
     */
    public StoreOptions storeOptions() {
        return storeOptions;
    }

    /**
     * The backend that reads the source. The destination is always encoded on the CPU.
     *
     * @return the backend's name; default {@code cpu}
     */
    public String backend() {
        return backend;
    }

    /**
     * True when a destination holding a Zarr store (and not an unfinished conversion of this source
     * with these options) is emptied first; a directory holding anything but a Zarr store is refused
     * even so.
     *
     * @return whether to overwrite; default false
     */
    public boolean overwrite() {
        return overwrite;
    }

    /**
     * Whether to verify: at the end, the SHA-256 of every array's elements is compared in source and
     * destination, which reads both once more.
     *
     * @return whether to verify; default false
     */
    public boolean verify() {
        return verify;
    }

    /**
     * Stop after writing this many shards (chunks when unsharded) and leave the destination to be
     * resumed; for testing resumption.
     *
     * @return 0 or more; empty: no limit
     */
    public OptionalLong maxShards() {
        return maxShards == null ? OptionalLong.empty() : OptionalLong.of(maxShards);
    }

    @Override
    public String toString() {
        return "ConvertOptions[chunks=" + (chunks == null ? "source" : ConvertPlan.join(chunks))
                + ", shard=" + (shard == null ? (noShard ? "none" : "source") : ConvertPlan.join(shard))
                + ", codecs=" + (codecs == null ? "source" : codecs) + ", endian=" + (endian == null ? "source"
                : ConvertPlan.endianName(endian)) + ", zarrFormat=" + zarrFormat + ", threads="
                + (threads == null ? "default" : threads) + ", parallel=" + parallel + ", memoryBytes=" + memoryBytes
                + ", backend=" + backend + ", overwrite=" + overwrite + ", verify=" + verify + ", maxShards="
                + (maxShards == null ? "none" : maxShards) + "]";
    }

    /** Builds {@link ConvertOptions}; {@link #build()} checks them. Not thread-safe. */
    public static final class Builder {
        private long[] chunks;
        private long[] shard;
        private boolean noShard;
        private List<CodecMetadata> codecs;
        private ByteOrder endian;
        private int zarrFormat = 3;
        private Integer threads;
        private int parallel = 2;
        private long memoryBytes = 2048L << 20;
        private String backend = "cpu";
        private boolean overwrite;
        private boolean verify;
        private Long maxShards;
        private SettingValues settings = SettingValues.none();
        private StoreOptions storeOptions = StoreOptions.defaults();

        private Builder() {
        }

        /**
         * Settings for every context the conversion opens, over system properties and the environment.
         *
         * @param settings the explicit values; not null
         * @return this builder
         * @throws NullPointerException when {@code settings} is null
         */
        public Builder settings(SettingValues settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * How to reach a remote source: anonymous access, endpoint, region ({@code --no-sign-request},
         * {@code --endpoint-url}, {@code --profile} on the CLI).
         *
         * @param storeOptions the options; not null
         * @return this builder
         * @throws NullPointerException when {@code storeOptions} is null
         */
        public Builder storeOptions(StoreOptions storeOptions) {
            this.storeOptions = Objects.requireNonNull(storeOptions, "storeOptions");
            return this;
        }

        /**
         * The chunk shape (the inner chunks when sharded), in elements, -1 for a whole dimension.
         *
         * @param chunks one extent per dimension of the arrays; null: the source's; copied
         * @return this builder
         */
        public Builder chunks(long... chunks) {
            this.chunks = chunks == null ? null : chunks.clone();
            return this;
        }

        /**
         * Shard with this shard shape, in elements, a multiple of the chunk shape, -1 for a whole
         * dimension.
         *
         * @param shard one extent per dimension of the arrays; null: as the source; copied
         * @return this builder
         */
        public Builder shard(long... shard) {
            this.shard = shard == null ? null : shard.clone();
            return this;
        }

        /**
         * Remove sharding: the inner chunks become the chunks (unless {@link #chunks}).
         *
         * @param noShard true to remove sharding; excludes {@link #shard}
         * @return this builder
         */
        public Builder noShard(boolean noShard) {
            this.noShard = noShard;
            return this;
        }

        /**
         * The bytes-to-bytes codecs of the new chain, in order; an empty list for none, null for the
         * source's. Configuration left out gets the defaults readers elsewhere need spelled out
         * (zstd level 3 without checksum, gzip level 5, blosc lz4 level 5 with shuffle).
         *
         * @param codecs the bytes-to-bytes codecs; copied
         * @return this builder
         */
        public Builder codecs(List<CodecMetadata> codecs) {
            this.codecs = codecs == null ? null : List.copyOf(codecs);
            return this;
        }

        /**
         * The byte order of the {@code bytes} codec.
         *
         * @param endian the byte order; null: the source's
         * @return this builder
         */
        public Builder endian(ByteOrder endian) {
            this.endian = endian;
            return this;
        }

        /**
         * The Zarr format of the destination, 2 or 3 (checked by {@link #build()}).
         *
         * @param zarrFormat 2 or 3; default 3
         * @return this builder
         */
        public Builder zarrFormat(int zarrFormat) {
            this.zarrFormat = zarrFormat;
            return this;
        }

        /**
         * Threads decoding and encoding chunks, at least 1 (checked by {@link #build()}).
         *
         * @param threads the number of threads; default one per available processor
         * @return this builder
         */
        public Builder threads(int threads) {
            this.threads = threads;
            return this;
        }

        /**
         * Blocks of destination shards in flight at once, at least 1 (checked by {@link #build()}).
         *
         * @param parallel the number of blocks; default 2
         * @return this builder
         */
        public Builder parallel(int parallel) {
            this.parallel = parallel;
            return this;
        }

        /**
         * Memory for the blocks in flight, in bytes, at least 1 (checked by {@link #build()}); blocks
         * shrink to fit.
         *
         * @param memoryBytes the bytes; default 2 GiB
         * @return this builder
         */
        public Builder memoryBytes(long memoryBytes) {
            this.memoryBytes = memoryBytes;
            return this;
        }

        /**
         * The backend that reads the source, by name ({@code cpu}, {@code cuda}, {@code opencl}); whether
         * it is usable is found when a conversion starts.
         *
         * @param backend the backend's name; default {@code cpu}
         * @return this builder
         * @throws NullPointerException when {@code backend} is null
         */
        public Builder backend(String backend) {
            this.backend = Objects.requireNonNull(backend, "backend");
            return this;
        }

        /**
         * Whether a destination holding a Zarr store is emptied first ({@link ConvertOptions#overwrite()}).
         *
         * @param overwrite true to overwrite; default false
         * @return this builder
         */
        public Builder overwrite(boolean overwrite) {
            this.overwrite = overwrite;
            return this;
        }

        /**
         * Whether to compare the SHA-256 of every array's elements in source and destination at the
         * end ({@link ConvertOptions#verify()}).
         *
         * @param verify true to verify; default false
         * @return this builder
         */
        public Builder verify(boolean verify) {
            this.verify = verify;
            return this;
        }

        /**
         * Stop after writing this many shards (chunks when unsharded), 0 or more (checked by
         * {@link #build()}).
         *
         * @param maxShards the budget of this run; default no limit
         * @return this builder
         */
        public Builder maxShards(long maxShards) {
            this.maxShards = maxShards;
            return this;
        }

        /**
         * The options.
         *
         * @return immutable options; this builder can go on to build others
         * @throws ConvertOptionsException when they do not fit together: a shard and no shard, a Zarr
         *                                 format other than 2 or 3, a shard in Zarr v2, counts below 1,
         *                                 a shard that is not a multiple of the chunks
         */
        public ConvertOptions build() {
            if (shard != null && noShard) {
                throw new ConvertOptionsException("--shard and --no-shard exclude each other");
            }
            if (zarrFormat != 2 && zarrFormat != 3) {
                throw new ConvertOptionsException("--zarr-format must be 2 or 3, got " + zarrFormat);
            }
            if (shard != null && zarrFormat == 2) {
                throw new ConvertOptionsException("--shard needs --zarr-format 3: Zarr v2 has no sharding");
            }
            if (parallel < 1 || (threads != null && threads < 1) || memoryBytes < 1) {
                throw new ConvertOptionsException("--parallel, --threads and --memory must be at least 1");
            }
            if (maxShards != null && maxShards < 0) {
                throw new ConvertOptionsException("--max-shards must be 0 or more");
            }
            if (chunks != null && shard != null && chunks.length == shard.length) {
                for (int i = 0; i < chunks.length; i++) {
                    if (chunks[i] > 0 && shard[i] > 0 && shard[i] % chunks[i] != 0) {
                        throw new ConvertOptionsException("--shard " + ConvertPlan.join(shard)
                                + " is not a multiple of --chunks " + ConvertPlan.join(chunks) + " in dimension " + i
                                + " (" + shard[i] + " % " + chunks[i] + " = " + shard[i] % chunks[i] + ")");
                    }
                }
            }
            return new ConvertOptions(this);
        }
    }
}
