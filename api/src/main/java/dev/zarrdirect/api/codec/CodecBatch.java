// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.buffer.Buffer;

import java.util.List;
import java.util.Objects;

/**
 * Many chunks passed through one codec stage at once: one input and one output buffer per chunk,
 * and one result per chunk (the number of bytes written, or a failure). A bad chunk fails alone;
 * the others of its batch still complete.
 *
 * <p>For decoding, each output's size is the exact decoded size the metadata implies; for encoding
 * it is the codec's bound and the codec reports how many bytes it wrote with {@link #complete}.
 * A batch is filled by one thread; a codec may complete different items from different threads.
 */
public final class CodecBatch {

    /**
     * One chunk's work.
     *
     * @param input  the bytes to transform
     * @param output where to write the result
     * @param label  what the chunk is, for error messages: array, chunk index, store key, byte range
     */
    public record Item(Buffer input, Buffer output, String label) {
        public Item {
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(output, "output");
            Objects.requireNonNull(label, "label");
        }
    }

    private final List<Item> items;
    private final long[] written;
    private final ZarrDirectException[] failures;

    public CodecBatch(List<Item> items) {
        this.items = List.copyOf(items);
        this.written = new long[this.items.size()];
        this.failures = new ZarrDirectException[this.items.size()];
        java.util.Arrays.fill(written, -1);
    }

    public static CodecBatch of(Buffer input, Buffer output, String label) {
        return new CodecBatch(List.of(new Item(input, output, label)));
    }

    public int size() {
        return items.size();
    }

    public Item item(int i) {
        return items.get(i);
    }

    public Buffer input(int i) {
        return items.get(i).input();
    }

    public Buffer output(int i) {
        return items.get(i).output();
    }

    public String label(int i) {
        return items.get(i).label();
    }

    /** Records that item {@code i} wrote {@code bytes} bytes to its output. */
    public void complete(int i, long bytes) {
        if (bytes < 0 || bytes > items.get(i).output().byteSize()) {
            throw new IllegalArgumentException("item " + i + " (" + label(i) + ") reports " + bytes
                    + " bytes written into an output of " + items.get(i).output().byteSize());
        }
        written[i] = bytes;
    }

    /** Records that item {@code i} failed; the exception names codec and chunk. */
    public void fail(int i, ZarrDirectException failure) {
        failures[i] = Objects.requireNonNull(failure, "failure");
    }

    /** Bytes written by item {@code i}, or -1 when it failed or did not run. */
    public long written(int i) {
        return failures[i] != null ? -1 : written[i];
    }

    public ZarrDirectException failure(int i) {
        return failures[i];
    }

    /** Throws the first failure, with the others attached as suppressed; does nothing if all succeeded. */
    public void throwIfFailed() {
        ZarrDirectException first = null;
        for (ZarrDirectException f : failures) {
            if (f == null) {
                continue;
            }
            if (first == null) {
                first = f;
            } else {
                first.addSuppressed(f);
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
