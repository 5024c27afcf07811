// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.json.Json;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The record of an unfinished conversion, kept at {@value #KEY} in the destination: which source
 * (its location and a SHA-256 of its metadata), which target (a SHA-256 of the target metadata), and
 * for each array the destination shards (or chunks) already written, as half-open ranges of their
 * C-order indices:
 *
 * {@snippet lang=json :
 * {"zarr_direct_convert": 1, "source": "/data/era5.zarr", "source_metadata_sha256": "…",
 *  "target_metadata_sha256": "…", "arrays": {"t2m": {"units": 30, "done": [[0, 12], [14, 16]]}},
 *  "updated": "2025-01-01T00:00:00Z"}
 * }
 *
 * Written through the store, whose writes replace a key atomically, so a crash leaves the previous
 * journal or the new one. A shard is recorded only after its write returned. Thread-safe.
 */
final class ConvertJournal {

    static final String KEY = Converter.JOURNAL_KEY;
    static final long FORMAT = 1;

    final String source;
    final String sourceSha256;
    final String targetSha256;
    private final Map<String, Long> units = new LinkedHashMap<>();
    private final Map<String, BitSet> done = new LinkedHashMap<>();

    ConvertJournal(String source, String sourceSha256, String targetSha256, Map<String, Long> units) {
        this.source = source;
        this.sourceSha256 = sourceSha256;
        this.targetSha256 = targetSha256;
        units.forEach((path, n) -> {
            this.units.put(path, n);
            this.done.put(path, new BitSet());
        });
    }

    /** True when {@code other} describes the same source and target. */
    boolean sameConversion(ConvertJournal other) {
        return source.equals(other.source) && sourceSha256.equals(other.sourceSha256)
                && targetSha256.equals(other.targetSha256) && units.equals(other.units);
    }

    synchronized boolean isDone(String path, long unit) {
        return done.get(path).get(Math.toIntExact(unit));
    }

    synchronized void markDone(String path, long unit) {
        done.get(path).set(Math.toIntExact(unit));
    }

    synchronized long doneCount() {
        long n = 0;
        for (BitSet b : done.values()) {
            n += b.cardinality();
        }
        return n;
    }

    synchronized long doneCount(String path) {
        return done.get(path).cardinality();
    }

    long totalCount() {
        return units.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Writes the journal to {@code store} (atomically, as the store replaces keys). */
    void write(Store store) {
        String text;
        synchronized (this) {
            Map<String, Object> arrays = new LinkedHashMap<>();
            units.forEach((path, n) -> {
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("units", n);
                a.put("done", ranges(done.get(path)));
                arrays.put(path, a);
            });
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("zarr_direct_convert", FORMAT);
            doc.put("source", source);
            doc.put("source_metadata_sha256", sourceSha256);
            doc.put("target_metadata_sha256", targetSha256);
            doc.put("arrays", arrays);
            doc.put("updated", Instant.now().toString());
            text = Json.write(doc);
        }
        store.set(KEY, MemorySegment.ofArray(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Object> ranges(BitSet b) {
        List<Object> out = new ArrayList<>();
        for (int i = b.nextSetBit(0); i >= 0; ) {
            int end = b.nextClearBit(i);
            out.add(List.of((long) i, (long) end));
            i = b.nextSetBit(end);
        }
        return out;
    }

    /**
     * The journal in {@code store}, if there is one.
     *
     * @throws ConvertException when it is there but cannot be read, naming the key
     */
    static Optional<ConvertJournal> read(Store store) {
        String text;
        try (Arena arena = Arena.ofConfined()) {
            Optional<MemorySegment> seg = store.get(KEY, arena);
            if (seg.isEmpty()) {
                return Optional.empty();
            }
            text = new String(seg.get().toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        }
        String what = "convert journal \"" + KEY + "\" in " + store;
        try {
            Map<String, Object> doc = Json.object(Json.parse(text, what), what);
            long format = Json.longValue(doc.get("zarr_direct_convert"), Json.where("zarr_direct_convert", KEY));
            if (format != FORMAT) {
                throw new IllegalArgumentException("format " + format + ", this version writes " + FORMAT);
            }
            Map<String, Object> arrays = Json.object(doc.get("arrays"), Json.where("arrays", KEY));
            Map<String, Long> units = new LinkedHashMap<>();
            arrays.forEach((path, v) -> units.put(path, Json.longValue(Json.object(v, path).get("units"), path)));
            ConvertJournal j = new ConvertJournal(Json.string(doc.get("source"), "source"),
                    Json.string(doc.get("source_metadata_sha256"), "source_metadata_sha256"),
                    Json.string(doc.get("target_metadata_sha256"), "target_metadata_sha256"), units);
            arrays.forEach((path, v) -> {
                for (Object r : Json.array(Json.object(v, path).get("done"), path)) {
                    long[] ab = Json.longArray(r, path);
                    if (ab.length != 2 || ab[0] < 0 || ab[1] > units.get(path) || ab[0] > ab[1]) {
                        throw new IllegalArgumentException("array \"" + path + "\" has the bad range " + r);
                    }
                    j.done.get(path).set(Math.toIntExact(ab[0]), Math.toIntExact(ab[1]));
                }
            });
            return Optional.of(j);
        } catch (RuntimeException e) {
            throw new ConvertException(what + " cannot be read (" + e.getMessage() + "); delete it or use"
                    + " --overwrite to start the conversion over", e);
        }
    }
}
