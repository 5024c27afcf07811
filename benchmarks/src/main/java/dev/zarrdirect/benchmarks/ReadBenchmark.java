// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.benchmarks;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.core.store.memory.MemoryStore;
import dev.zarrdirect.testkit.SyntheticEra5;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@link ZarrArray#read()} of a whole {@code [64, 8, 181, 360]} float32 array (time, level, lat,
 * lon; 133,447,680 bytes) of ERA5-like fields ({@link SyntheticEra5}, seed {@value #SEED}), from a {@link MemoryStore} or a
 * {@link FileSystemStore} in a temporary directory (read through the page cache after the write),
 * with the decode spread over {@code threads} CPU workers.
 *
 * <p>Layouts, all with {@code [1, 1, 181, 360]} chunks (260,640 bytes) as the unit of decoding:
 * {@code zstd}: one zstd (level 3) chunk per key, 512 keys; {@code sharded}: those chunks as inner
 * chunks of {@code [8, 8, 181, 360]} shards (8 keys, crc32c index); {@code blosc}: blosc lz4 with
 * byte shuffle, 512 keys. MB/s = 133,447,680 / (µs per op).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
@State(Scope.Benchmark)
public class ReadBenchmark {

    static final long[] SHAPE = {64, 8, 181, 360};
    static final long SEED = 7;

    @Param({"memory", "filesystem"})
    public String store;

    @Param({"zstd", "sharded", "blosc"})
    public String layout;

    @Param({"1", "2"})
    public int threads;

    ZarrContext ctx;
    Store zarrStore;
    Path dir;
    ZarrArray array;

    /** The array's metadata for a layout, with {@code [1, 1, lat, lon]} chunks as the decode unit. */
    static ArrayMetadata metadata(String layout, long[] shape) {
        long[] chunk = {1, 1, shape[2], shape[3]};
        CodecMetadata bytes = CodecMetadata.of("bytes", Map.of("endian", "little"));
        CodecMetadata zstd = CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false));
        List<CodecMetadata> codecs;
        long[] grid = chunk;
        switch (layout) {
            case "zstd" -> codecs = List.of(bytes, zstd);
            case "blosc" -> codecs = List.of(bytes, CodecMetadata.of("blosc", Map.of("cname", "lz4", "clevel", 5L,
                    "shuffle", "shuffle", "typesize", 4L, "blocksize", 0L)));
            case "sharded" -> {
                grid = new long[]{Math.min(8, shape[0]), Math.min(8, shape[1]), shape[2], shape[3]};
                codecs = List.of(CodecMetadata.of("sharding_indexed", Map.of(
                        "chunk_shape", List.of(chunk[0], chunk[1], chunk[2], chunk[3]),
                        "codecs", List.of(bytes.toJson(), zstd.toJson()),
                        "index_codecs", List.of(bytes.toJson(), CodecMetadata.of("crc32c", Map.of()).toJson()),
                        "index_location", "end")));
            }
            default -> throw new IllegalArgumentException("layout \"" + layout + "\"; expected zstd, sharded or blosc");
        }
        return ArrayMetadata.create(shape, DataType.FLOAT32, grid, FillValue.zero(DataType.FLOAT32), codecs);
    }

    /**
     * Creates array "t" in {@code store} and writes ERA5-like fields ({@link SyntheticEra5}) into it, 8 time steps at a
     * time (whole shards for the sharded layout).
     */
    static ZarrArray write(ZarrContext ctx, Store store, String layout, long[] shape) {
        ZarrArray a = Zarr.createArray(ctx, store, "t", metadata(layout, shape));
        SyntheticEra5 data = new SyntheticEra5((int) shape[2], (int) shape[3], SEED);
        long step = Math.min(8, shape[0]);
        for (long t0 = 0; t0 < shape[0]; t0 += step) {
            long nt = Math.min(step, shape[0] - t0);
            try (Tensor slab = Tensor.allocateHost(DataType.FLOAT32, nt, shape[1], shape[2], shape[3])) {
                data.fill(slab.segment(), t0, (int) nt, (int) shape[1]);
                a.write(new long[]{t0, 0, 0, 0}, slab);
            }
        }
        return a;
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ctx = ZarrContext.open("cpu", threads);
        switch (store) {
            case "memory" -> zarrStore = new MemoryStore();
            case "filesystem" -> {
                dir = Files.createTempDirectory("zd-read-bench");
                zarrStore = FileSystemStore.create(dir.resolve("era5.zarr"));
            }
            default -> throw new IllegalArgumentException("store \"" + store + "\"; expected memory or filesystem");
        }
        write(ctx, zarrStore, layout, SHAPE);
        array = Zarr.openArray(ctx, zarrStore, "t");
        long stored = zarrStore.list("t/").stream().mapToLong(k -> zarrStore.size(k)).sum();
        System.out.printf("%n# %s/%s: %d keys, %d stored bytes (ratio %.3f)%n", store, layout,
                zarrStore.list("t/").size(), stored, 133_447_680.0 / stored);
    }

    @Benchmark
    public long read() {
        try (Tensor t = array.read()) {
            return t.byteSize();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        ctx.close();
        zarrStore.close();
        if (dir != null) {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> {
                    try {
                        Files.delete(p);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
        }
    }
}
