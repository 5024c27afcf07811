// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.codec.BuiltinCodecs;
import dev.zarrdirect.core.codec.ShardingConfig;
import dev.zarrdirect.core.grid.RegularChunkGrid;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.DefaultChunkKeyEncoding;
import dev.zarrdirect.core.metadata.v2.V2ArrayMetadata;
import dev.zarrdirect.core.metadata.v2.V2Codecs;
import dev.zarrdirect.core.metadata.v2.V2DataType;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What a conversion makes of one source array: the target's metadata (Zarr v3 or v2), derived
 * from the source's and the options, and the shapes the streaming works in.
 *
 * <h2>Derivation</h2>
 * Shape, data type, fill value, attributes and dimension names are the source's. The source's codec
 * chain is taken apart into array-to-array codecs, the array-to-bytes codec and bytes-to-bytes
 * codecs, looking through one level of {@code sharding_indexed}. The target's chunk (inner chunk when
 * sharded) is {@code --chunks}, else the source's inner chunk, else its chunk; the target is sharded
 * when {@code --shard} is given, or when the source is and neither {@code --no-shard} nor
 * {@code --zarr-format 2} is. {@code --codec} replaces the bytes-to-bytes codecs, {@code --endian} the
 * byte order of {@code bytes}. A sharded source keeps its index codecs and index location.
 *
 * <h2>Errors</h2>
 * Anything the options ask that cannot be done throws {@link IllegalArgumentException} with a
 * message naming the option (as the CLI spells it) and the values seen; {@link Converter} turns it
 * into a {@link ConvertOptionsException}.
 */
final class ConvertPlan {

    /** Bytes-to-bytes codecs that Zarr v2 calls compressors. */
    private static final List<String> V2_COMPRESSORS = List.of(BuiltinCodecs.ZSTD, BuiltinCodecs.GZIP, V2Codecs.BLOSC,
            V2Codecs.NUMCODECS_ZLIB);

    /**
     * The source's chain taken apart.
     *
     * @param innerChunks the inner chunk shape when sharded, else null
     * @param indexCodecs the shard index codecs when sharded, else null
     */
    record Layout(List<CodecMetadata> arrayToArray, CodecMetadata arrayToBytes, List<CodecMetadata> bytesToBytes,
                  long[] innerChunks, List<CodecMetadata> indexCodecs, boolean indexAtEnd) {
    }

    /**
     * One array to convert.
     *
     * @param path        its path in both stores ("" for a root array)
     * @param v3          the target's metadata when the target is Zarr v3, else null
     * @param v2          the target's metadata when the target is Zarr v2, else null
     * @param unit        what the target stores per key: the shard shape, or the chunk shape
     * @param sourceChunk the source's unit of decoding: its inner chunk when sharded, else its chunk
     * @param note        a remark for the user, or null
     */
    record Target(String path, ZarrArray source, ArrayMetadata v3, V2ArrayMetadata v2, long[] unit, long[] sourceChunk,
                  boolean sharded, String note) {

        DataType dataType() {
            return source.dataType();
        }

        long[] shape() {
            return source.shape();
        }

        /** The target's metadata document(s) as text, for the journal's identity of the target. */
        String describeJson() {
            return v3 != null ? v3.toJson() : v2.toZarrayJson() + compactJson(v2.attributes());
        }

        /** {@code chunks [1, 8, 181, 360] in shards [4, 8, 181, 360]; bytes, zstd}. */
        String summary() {
            ArrayMetadata md = v3 != null ? v3 : v2.arrayMetadata();
            List<CodecMetadata> codecs = md.codecs();
            String layout;
            if (sharded) {
                CodecMetadata sh = codecs.getFirst();
                codecs = ConvertPlan.codecList(sh.configuration().get("codecs"));
                layout = "chunks " + compactJson(sh.configuration().get("chunk_shape")) + " in shards "
                        + Shapes.format(md.chunkShape());
            } else {
                layout = "chunks " + Shapes.format(md.chunkShape());
            }
            List<String> names = new ArrayList<>();
            for (CodecMetadata c : codecs) {
                names.add(c.configuration().isEmpty() ? c.name() : c.name() + " " + compactJson(c.configuration()));
            }
            return layout + "; " + String.join(", ", names);
        }
    }

    private ConvertPlan() {
    }

    /** Takes the source's chain apart; throws IllegalArgumentException for chains convert cannot re-layout. */
    static Layout layout(ArrayMetadata md, String where) {
        Split outer = split(md.codecs(), where);
        if (!outer.a2b.name().equals(BuiltinCodecs.SHARDING)) {
            return new Layout(outer.a2a, outer.a2b, outer.b2b, null, null, true);
        }
        if (!outer.b2b.isEmpty()) {
            throw new IllegalArgumentException(where + " has the codecs " + names(outer.b2b)
                    + " after sharding_indexed; convert cannot carry codecs around a shard over to another layout");
        }
        ShardingConfig cfg = ShardingConfig.parse(outer.a2b.configuration(), md.chunkShape(), where);
        Split inner = split(cfg.codecs(), where + " (inner chunks)");
        if (inner.a2b.name().equals(BuiltinCodecs.SHARDING)) {
            throw new IllegalArgumentException(where + " nests sharding_indexed inside sharding_indexed, which convert"
                    + " does not re-layout");
        }
        List<CodecMetadata> a2a = new ArrayList<>(outer.a2a);
        a2a.addAll(inner.a2a);
        return new Layout(a2a, inner.a2b, inner.b2b, cfg.chunkShape(), cfg.indexCodecs(), cfg.indexAtEnd());
    }

    private record Split(List<CodecMetadata> a2a, CodecMetadata a2b, List<CodecMetadata> b2b) {
    }

    /** Codecs before the array-to-bytes codec, the codec itself, and those after it. */
    private static Split split(List<CodecMetadata> codecs, String where) {
        int at = -1;
        for (int i = 0; i < codecs.size(); i++) {
            String n = codecs.get(i).name();
            if (n.equals(BuiltinCodecs.BYTES) || n.equals(BuiltinCodecs.SHARDING)) {
                at = i;
                break;
            }
        }
        if (at < 0) {
            // An array-to-bytes codec the core does not define: the first one that is not array-to-array.
            for (int i = 0; i < codecs.size(); i++) {
                String n = codecs.get(i).name();
                if (!n.equals(BuiltinCodecs.TRANSPOSE) && !n.equals(V2Codecs.NUMCODECS_DELTA)) {
                    at = i;
                    break;
                }
            }
        }
        if (at < 0) {
            throw new IllegalArgumentException(where + " has no array-to-bytes codec in " + names(codecs));
        }
        return new Split(List.copyOf(codecs.subList(0, at)), codecs.get(at),
                List.copyOf(codecs.subList(at + 1, codecs.size())));
    }

    /**
     * The target of one source array.
     *
     * @param path      the array's path, "" for the root
     * @param matchRank when false, layout options of another rank leave this array's layout as it is
     *                  (a coordinate array in a group); when true they are an error
     */
    static Target target(String path, ZarrArray source, ConvertOptions o, boolean matchRank) {
        String where = "/" + path;
        ArrayMetadata md = source.metadata();
        Layout src = layout(md, "array \"" + where + "\"");
        int rank = md.rank();
        String note = null;
        long[] chunks = o.chunks().orElse(null);
        long[] shard = o.shard().orElse(null);
        boolean rankMismatch = (chunks != null && chunks.length != rank) || (shard != null && shard.length != rank);
        if (rankMismatch) {
            String opt = chunks != null && chunks.length != rank ? "--chunks " + join(chunks) : "--shard " + join(shard);
            if (matchRank) {
                throw new IllegalArgumentException(opt + " has " + (chunks != null && chunks.length != rank
                        ? chunks.length : shard.length) + " extents, but array \"" + where + "\" of shape "
                        + Shapes.format(md.shape()) + " has rank " + rank);
            }
            note = "rank " + rank + ": " + opt + " does not apply; layout kept";
            chunks = null;
            shard = null;
        }
        boolean srcSharded = src.innerChunks() != null;
        boolean sharded = o.zarrFormat() == 3 && (shard != null || (srcSharded && !o.noShard()));
        long[] inner = chunks != null ? resolveExtents(chunks, md.shape(), "--chunks")
                : srcSharded ? src.innerChunks() : md.chunkShape();
        long[] outer = null;
        if (sharded) {
            outer = shard != null ? resolveExtents(shard, md.shape(), "--shard") : md.chunkShape();
            for (int i = 0; i < rank; i++) {
                if (outer[i] % inner[i] != 0) {
                    throw new IllegalArgumentException((shard != null ? "--shard " + join(outer) : "the shard shape "
                            + Shapes.format(outer) + " of array \"" + where + "\" (kept; give --shard to change it)")
                            + " is not a multiple of the chunk shape " + join(inner) + " in dimension " + i + " ("
                            + outer[i] + " % " + inner[i] + " = " + (outer[i] % inner[i]) + ")");
                }
            }
        }
        if (srcSharded && o.zarrFormat() == 2 && !o.noShard()) {
            note = "Zarr v2 has no sharding: the inner chunks " + Shapes.format(src.innerChunks()) + " become chunks";
        }
        CodecMetadata a2b = src.arrayToBytes();
        String endian = o.endian().map(ConvertPlan::endianName).orElse(null);
        if (endian != null) {
            if (!a2b.name().equals(BuiltinCodecs.BYTES)) {
                throw new IllegalArgumentException("--endian " + endian + " needs the bytes codec, but array \""
                        + where + "\" is encoded with \"" + a2b.name() + "\"");
            }
            a2b = CodecMetadata.of(BuiltinCodecs.BYTES, Map.of("endian", endian));
        }
        List<CodecMetadata> b2b = o.codecs().map(c -> withDefaults(c, md.dataType())).orElse(src.bytesToBytes());
        List<CodecMetadata> leaf = new ArrayList<>(src.arrayToArray());
        leaf.add(a2b);
        leaf.addAll(b2b);
        Map<String, Object> attrs = new LinkedHashMap<>(md.attributes());
        long[] sourceChunk = srcSharded ? src.innerChunks() : md.chunkShape();
        if (o.zarrFormat() == 2) {
            V2ArrayMetadata v2 = v2Target(source, inner, src.arrayToArray(), a2b, b2b, attrs, where);
            return new Target(path, source, null, v2, inner, sourceChunk, false, note);
        }
        List<String> dims = md.dimensionNames();
        if (dims == null && source.zarrFormat() == 2 && attrs.get("_ARRAY_DIMENSIONS") instanceof List<?> l
                && l.size() == rank && l.stream().allMatch(x -> x instanceof String)) {
            // xarray's dimension names of a v2 array become the v3 field xarray reads.
            dims = l.stream().map(x -> (String) x).toList();
        }
        List<CodecMetadata> codecs;
        long[] grid;
        if (sharded) {
            Map<String, Object> cfg = new LinkedHashMap<>();
            cfg.put("chunk_shape", boxed(inner));
            cfg.put("codecs", leaf.stream().map(CodecMetadata::toJson).toList());
            List<CodecMetadata> index = srcSharded ? src.indexCodecs() : ShardingConfig.defaultIndexCodecs();
            cfg.put("index_codecs", index.stream().map(CodecMetadata::toJson).toList());
            cfg.put("index_location", !srcSharded || src.indexAtEnd() ? "end" : "start");
            codecs = List.of(CodecMetadata.of(BuiltinCodecs.SHARDING, cfg));
            grid = outer;
        } else {
            codecs = leaf;
            grid = inner;
        }
        ArrayMetadata out = new ArrayMetadata(md.shape(), md.dataType(), new RegularChunkGrid(grid),
                source.zarrFormat() == 3 ? md.chunkKeyEncoding() : new DefaultChunkKeyEncoding('/'), md.fillValue(),
                codecs, attrs, dims, md.extraFields());
        return new Target(path, source, out, null, grid, sourceChunk, sharded, note);
    }

    private static V2ArrayMetadata v2Target(ZarrArray source, long[] chunks, List<CodecMetadata> a2a, CodecMetadata a2b,
                                            List<CodecMetadata> b2b, Map<String, Object> attrs, String where) {
        int rank = source.rank();
        char order = 'C';
        if (!a2a.isEmpty()) {
            if (a2a.size() == 1 && a2a.getFirst().name().equals(BuiltinCodecs.TRANSPOSE) && isReversed(a2a.getFirst(), rank)) {
                order = 'F';
            } else {
                throw new IllegalArgumentException("array \"" + where + "\" has the array-to-array codecs " + names(a2a)
                        + ", which Zarr v2 cannot express (only a transpose reversing the axes, as order \"F\"); "
                        + "keep --zarr-format 3");
            }
        }
        if (!a2b.name().equals(BuiltinCodecs.BYTES)) {
            throw new IllegalArgumentException("array \"" + where + "\" is encoded with \"" + a2b.name()
                    + "\", which Zarr v2 cannot express; keep --zarr-format 3");
        }
        ByteOrder bo = "big".equals(a2b.configuration().get("endian")) ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        List<Map<String, Object>> filters = new ArrayList<>();
        Map<String, Object> compressor = null;
        for (CodecMetadata c : b2b) {
            Map<String, Object> cfg = c.configuration();
            if (compressor != null) {
                throw new IllegalArgumentException("Zarr v2 allows one compressor, last: " + names(b2b)
                        + " for array \"" + where + "\" cannot be written as Zarr v2");
            }
            switch (c.name()) {
                case V2Codecs.NUMCODECS_SHUFFLE -> {
                    Map<String, Object> f = new LinkedHashMap<>();
                    f.put("id", "shuffle");
                    f.put("elementsize", cfg.getOrDefault("elementsize", (long) source.dataType().byteSize()));
                    filters.add(f);
                }
                case BuiltinCodecs.ZSTD -> compressor = v2Compressor("zstd", cfg, "level", "checksum");
                case BuiltinCodecs.GZIP -> compressor = v2Compressor("gzip", cfg, "level");
                case V2Codecs.NUMCODECS_ZLIB -> compressor = v2Compressor("zlib", cfg, "level");
                case V2Codecs.BLOSC -> {
                    compressor = v2Compressor("blosc", cfg, "cname", "clevel", "blocksize");
                    Object s = cfg.getOrDefault("shuffle", "shuffle");
                    compressor.put("shuffle", s instanceof Long l ? l : switch (String.valueOf(s)) {
                        case "noshuffle" -> 0L;
                        case "bitshuffle" -> 2L;
                        default -> 1L;
                    });
                }
                default -> throw new IllegalArgumentException("the codec \"" + c.name() + "\" of array \"" + where
                        + "\" has no Zarr v2 equivalent; choose others with --codec (Zarr v2 takes "
                        + String.join(", ", V2_COMPRESSORS) + " and numcodecs.shuffle) or keep --zarr-format 3");
            }
        }
        if (source.zarrFormat() == 3 && source.metadata().dimensionNames() != null
                && !attrs.containsKey("_ARRAY_DIMENSIONS")
                && source.metadata().dimensionNames().stream().allMatch(n -> n != null)) {
            // The v3 dimension names become xarray's attribute, which is where v2 readers look.
            attrs.put("_ARRAY_DIMENSIONS", List.copyOf(source.metadata().dimensionNames()));
        }
        char sep = source.v2Metadata().map(V2ArrayMetadata::dimensionSeparator).orElse('.');
        return V2ArrayMetadata.builder(source.shape(), chunks, new V2DataType(source.dataType(), bo))
                .order(order).fillValue(source.metadata().fillValue()).compressor(compressor)
                .filters(filters.isEmpty() ? null : filters).dimensionSeparator(sep).attributes(attrs).build();
    }

    private static Map<String, Object> v2Compressor(String id, Map<String, Object> cfg, String... fields) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        for (String f : fields) {
            if (cfg.containsKey(f)) {
                m.put(f, cfg.get(f));
            }
        }
        return m;
    }

    private static boolean isReversed(CodecMetadata transpose, int rank) {
        if (!(transpose.configuration().get("order") instanceof List<?> order) || order.size() != rank) {
            return false;
        }
        for (int i = 0; i < rank; i++) {
            if (!(order.get(i) instanceof Long v) || v != rank - 1 - i) {
                return false;
            }
        }
        return true;
    }

    /** -1 stands for the whole extent of a dimension; other extents must be positive. */
    static long[] resolveExtents(long[] given, long[] shape, String option) {
        long[] out = given.clone();
        for (int i = 0; i < out.length; i++) {
            if (out[i] == -1) {
                out[i] = Math.max(1, shape[i]);
            } else if (out[i] < 1) {
                throw new IllegalArgumentException(option + " " + join(given) + " has the extent " + out[i]
                        + " in dimension " + i + "; extents are positive, or -1 for the whole dimension");
            }
        }
        return out;
    }

    // ---- codecs ----

    /**
     * Checks that every codec is a bytes-to-bytes codec some provider implements with that
     * configuration, with a message listing those there are.
     */
    static void checkCodecs(List<CodecMetadata> codecs, ZarrContext ctx, DataType anyType) {
        for (CodecMetadata c : withDefaults(codecs, anyType)) {
            if (!ctx.codecs().knows(c.name()) || !isBytesToBytes(ctx, c.name())) {
                throw new IllegalArgumentException("unknown codec \"" + c.name() + "\" in --codec; bytes-to-bytes codecs"
                        + " here: " + String.join(", ", bytesToBytesNames(ctx)) + ", or none");
            }
            try {
                ctx.codecs().resolve(c.name(), BuiltinCodecs.validate(c, new dev.zarrdirect.api.codec.ChunkSpec(anyType,
                        new long[]{1}), "--codec").configuration(), Device.CPU, Map.of(), "--codec " + c.name());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("--codec " + c.name() + " " + compactJson(c.configuration())
                        + ": " + e.getMessage(), e);
            }
        }
    }

    private static boolean isBytesToBytes(ZarrContext ctx, String name) {
        try {
            Codec c = ctx.codecs().resolve(name, Map.of(), Device.CPU, Map.of(), "--codec");
            return c instanceof BytesToBytesCodec;
        } catch (RuntimeException e) {
            // A codec whose configuration has no defaults: its kind cannot be asked this way.
            return BuiltinCodecs.kindOf(name) == null || BuiltinCodecs.kindOf(name)
                    == dev.zarrdirect.api.codec.CodecKind.BYTES_TO_BYTES;
        }
    }

    private static List<String> bytesToBytesNames(ZarrContext ctx) {
        TreeSet<String> names = new TreeSet<>();
        for (var p : ctx.codecs().providers()) {
            for (String n : p.codecNames()) {
                if (isBytesToBytes(ctx, n)) {
                    names.add(n);
                }
            }
        }
        return List.copyOf(names);
    }

    /** Fills in what readers elsewhere need spelled out: zstd level and checksum, gzip level, blosc's typesize. */
    static List<CodecMetadata> withDefaults(List<CodecMetadata> codecs, DataType dt) {
        List<CodecMetadata> out = new ArrayList<>();
        for (CodecMetadata c : codecs) {
            Map<String, Object> cfg = new LinkedHashMap<>();
            switch (c.name()) {
                case BuiltinCodecs.ZSTD -> {
                    cfg.put("level", 3L);
                    cfg.put("checksum", false);
                }
                case BuiltinCodecs.GZIP -> cfg.put("level", 5L);
                case V2Codecs.BLOSC -> {
                    cfg.put("cname", "lz4");
                    cfg.put("clevel", 5L);
                    cfg.put("shuffle", "shuffle");
                    cfg.put("typesize", (long) dt.byteSize());
                    cfg.put("blocksize", 0L);
                }
                default -> {
                }
            }
            cfg.putAll(c.configuration());
            out.add(new CodecMetadata(c.name(), cfg, c.mustUnderstand()));
        }
        return out;
    }

    static List<CodecMetadata> codecList(Object json) {
        List<CodecMetadata> out = new ArrayList<>();
        if (json instanceof List<?> l) {
            for (Object o : l) {
                out.add(CodecMetadata.parse(o, "codecs"));
            }
        }
        return out;
    }

    private static List<String> names(List<CodecMetadata> codecs) {
        return codecs.stream().map(CodecMetadata::name).toList();
    }

    static String join(long[] a) {
        StringBuilder sb = new StringBuilder();
        for (long x : a) {
            sb.append(sb.isEmpty() ? "" : ",").append(x);
        }
        return sb.toString();
    }

    private static List<Object> boxed(long[] a) {
        List<Object> out = new ArrayList<>(a.length);
        for (long x : a) {
            out.add(x);
        }
        return out;
    }

    /** {@code "little"} or {@code "big"}, as the bytes codec spells a byte order. */
    static String endianName(ByteOrder order) {
        return order == ByteOrder.BIG_ENDIAN ? "big" : "little";
    }

    /**
     * JSON on one line, {@code {"level": 3, "checksum": false}}: the form of the journal's metadata
     * digests (so it must not change) and of the summaries.
     */
    static String compactJson(Object v) {
        return Json.compactLine(v);
    }

    /** Least common multiple of two positive extents, saturating at {@code cap}. */
    static long lcm(long a, long b, long cap) {
        long g = gcd(a, b);
        long m = a / g;
        return m > cap / b ? cap : m * b;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
