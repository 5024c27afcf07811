// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.store;

import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.FilterStore;
import dev.zarrdirect.api.store.Store;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * A store that counts what is read through it, per key: gets, bytes returned and the ranges asked
 * for. Tests use it to prove that a partial read fetches only the bytes it needs, and that nothing
 * is read twice.
 */
public final class CountingStore extends FilterStore {

    private record Counts(LongAdder gets, LongAdder bytes, ConcurrentLinkedQueue<ByteRange> ranges) {
        Counts() {
            this(new LongAdder(), new LongAdder(), new ConcurrentLinkedQueue<>());
        }
    }

    private final Map<String, Counts> counts = new ConcurrentHashMap<>();

    public CountingStore(Store delegate) {
        super(delegate);
    }

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        Optional<MemorySegment> got = in.get(key, range, allocator);
        Counts c = counts.computeIfAbsent(key, k -> new Counts());
        c.gets.increment();
        c.ranges.add(range);
        got.ifPresent(segment -> c.bytes.add(segment.byteSize()));
        return got;
    }

    /** Gets of {@code key}, including those that found nothing. */
    public long gets(String key) {
        Counts c = counts.get(key);
        return c == null ? 0 : c.gets.sum();
    }

    /** Bytes returned for {@code key}. */
    public long bytesRead(String key) {
        Counts c = counts.get(key);
        return c == null ? 0 : c.bytes.sum();
    }

    /** The ranges asked for {@code key}, in the order the gets finished. */
    public List<ByteRange> ranges(String key) {
        Counts c = counts.get(key);
        return c == null ? List.of() : List.copyOf(c.ranges);
    }

    /** Gets of every key. */
    public long totalGets() {
        return counts.values().stream().mapToLong(c -> c.gets.sum()).sum();
    }

    /** Bytes returned for every key. */
    public long totalBytesRead() {
        return counts.values().stream().mapToLong(c -> c.bytes.sum()).sum();
    }

    /** Bytes returned per key that was read, sorted by key. */
    public Map<String, Long> bytesReadPerKey() {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((k, c) -> out.put(k, c.bytes.sum()));
        return out;
    }

    /** Forgets every count, e.g. after a test has written its fixture. */
    public void reset() {
        counts.clear();
    }

    /** No local files: every read must pass through this decorator, even a device backend's direct one. */
    @Override
    public Optional<java.nio.file.Path> localPath(String key) {
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "CountingStore(" + in + ")";
    }
}
