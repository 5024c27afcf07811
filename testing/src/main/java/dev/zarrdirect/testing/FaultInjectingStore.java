// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.FilterStore;
import dev.zarrdirect.api.store.Store;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A store that misbehaves on purpose, wrapped around a real one: it fails the n-th read with an
 * I/O error, serves truncated values, or flips a bit, so that tests can prove that readers report
 * such damage instead of decoding garbage. Writes, deletes and listings pass through unchanged.
 * <p>
 * Faults apply to what reads see, as if the stored bytes were damaged: a truncated key reports the
 * truncated size, and a range beyond it fails as it would on a short file.
 */
public final class FaultInjectingStore extends FilterStore {

    private record Truncation(Predicate<String> keys, long length) {
    }

    private record BitFlip(Predicate<String> keys, long offset, int bit) {
    }

    private final AtomicLong gets = new AtomicLong();
    private final AtomicLong failingGet = new AtomicLong(-1);
    private final List<Truncation> truncations = new CopyOnWriteArrayList<>();
    private final List<BitFlip> flips = new CopyOnWriteArrayList<>();

    /**
     * Wraps {@code delegate}, with no faults yet.
     *
     * @param delegate the store that holds the real bytes; closed with this one
     */
    public FaultInjectingStore(Store delegate) {
        super(delegate);
    }

    /**
     * Makes the {@code n}-th {@link #get} from now on ({@code 1} is the next one) throw a
     * {@link StoreException} caused by an {@link IOException}; later gets succeed again.
     *
     * @param n which get fails, counting from 1
     * @return this store
     * @throws IllegalArgumentException when {@code n} is less than 1
     */
    public FaultInjectingStore failNthGet(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("n counts from 1, got " + n);
        }
        failingGet.set(gets.get() + n);
        return this;
    }

    /**
     * Serves keys matching {@code keys} cut to their first {@code length} bytes.
     *
     * @param keys   which keys are cut
     * @param length how many bytes remain
     * @return this store
     * @throws IllegalArgumentException when {@code length} is negative
     */
    public FaultInjectingStore truncate(Predicate<String> keys, long length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative truncation length " + length);
        }
        truncations.add(new Truncation(Objects.requireNonNull(keys, "keys"), length));
        return this;
    }

    /**
     * Serves keys matching {@code keys} with bit {@code bit} (0 is the lowest) of byte {@code offset} flipped.
     *
     * @param keys   which keys are damaged
     * @param offset the byte, from the start of the value
     * @param bit    the bit, 0 to 7
     * @return this store
     * @throws IllegalArgumentException for a negative offset or a bit outside 0 to 7
     */
    public FaultInjectingStore flipBit(Predicate<String> keys, long offset, int bit) {
        if (offset < 0 || bit < 0 || bit > 7) {
            throw new IllegalArgumentException("bad bit flip at byte " + offset + ", bit " + bit + " (bits are 0-7)");
        }
        flips.add(new BitFlip(Objects.requireNonNull(keys, "keys"), offset, bit));
        return this;
    }

    /**
     * Removes every fault; the count of gets goes on.
     *
     * @return this store
     */
    public FaultInjectingStore clearFaults() {
        failingGet.set(-1);
        truncations.clear();
        flips.clear();
        return this;
    }

    /**
     * How many gets this store has served or failed.
     *
     * @return the count since this store was made
     */
    public long gets() {
        return gets.get();
    }

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        long n = gets.incrementAndGet();
        if (failingGet.compareAndSet(n, -1)) {
            throw new StoreException(toString(), key, "injected I/O failure on get #" + n + " of key \"" + key
                    + "\" (" + range + ") in " + this, new IOException("injected failure on get #" + n));
        }
        long cut = truncatedLength(key);
        Optional<MemorySegment> got;
        long start;
        if (cut < 0) {
            long size = flips.isEmpty() ? 0 : in.size(key);
            got = in.get(key, range, allocator);
            start = got.isPresent() && !flips.isEmpty() ? range.start(size) : 0;
        } else {
            long real = in.size(key);
            if (real < 0) {
                return Optional.empty();
            }
            long size = Math.min(real, cut);
            if (!range.fits(size)) {
                throw new StoreException(toString(), key, "range " + range + " does not fit in key \"" + key
                        + "\" (length " + size + ", truncated by fault injection) in " + this);
            }
            start = range.start(size);
            got = in.get(key, ByteRange.of(start, range.lengthIn(size)), allocator);
        }
        got.ifPresent(segment -> applyFlips(key, segment, start));
        return got;
    }

    private long truncatedLength(String key) {
        long cut = -1;
        for (Truncation t : truncations) {
            if (t.keys.test(key)) {
                cut = cut < 0 ? t.length : Math.min(cut, t.length);
            }
        }
        return cut;
    }

    private void applyFlips(String key, MemorySegment segment, long start) {
        for (BitFlip f : flips) {
            long at = f.offset - start;
            if (f.keys.test(key) && at >= 0 && at < segment.byteSize()) {
                byte b = segment.get(ValueLayout.JAVA_BYTE, at);
                segment.set(ValueLayout.JAVA_BYTE, at, (byte) (b ^ (1 << f.bit)));
            }
        }
    }

    @Override
    public long size(String key) {
        long size = in.size(key);
        long cut = truncatedLength(key);
        return size < 0 || cut < 0 ? size : Math.min(size, cut);
    }

    /**
     * No local files: every read must pass through this decorator, even a device backend's direct one.
     *
     * @param key any key
     * @return empty
     */
    @Override
    public Optional<java.nio.file.Path> localPath(String key) {
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "FaultInjectingStore(" + in + ")";
    }
}
