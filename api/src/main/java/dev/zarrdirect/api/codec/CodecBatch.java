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
 *
 * <h2>Ownership and threads</h2>
 * A batch does not own its buffers: the caller allocates and closes them, and they must stay open
 * until the codec call returns. The result arrays are plain (not volatile): a codec that completes
 * or fails items on other threads must finish them before its batch method returns (joining its
 * workers gives the caller the needed happens-before), and items must not be completed by two
 * threads at once.
 *
 * {@snippet :
 * CodecBatch batch = new CodecBatch(List.of(
 *         new CodecBatch.Item(encoded0, decoded0, "chunk [0,0] of \"/t2m\" (key t2m/c/0/0)"),
 *         new CodecBatch.Item(encoded1, decoded1, "chunk [0,1] of \"/t2m\" (key t2m/c/0/1)")));
 * zstd.decode(batch);
 * batch.throwIfFailed();           // or look at failure(i) per item
 * long n = batch.written(0);       // bytes written into decoded0
 * }
 */
public final class CodecBatch {

    /**
     * One chunk's work.
     *
     * @param input  the bytes to transform; read, not changed (unless it is also the output)
     * @param output where to write the result; its size is the exact decoded size when decoding and
     *               the codec's bound when encoding
     * @param label  what the chunk is, for error messages: array, chunk index, store key, byte range
     */
    public record Item(Buffer input, Buffer output, String label) {
        /**
         * Checks the components.
         *
         * @throws NullPointerException when a component is null
         */
        public Item {
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(output, "output");
            Objects.requireNonNull(label, "label");
        }
    }

    private final List<Item> items;
    private final long[] written;
    private final ZarrDirectException[] failures;

    /**
     * A batch of {@code items}, none completed or failed yet.
     *
     * @param items the work, in order; copied; may be empty
     * @throws NullPointerException when {@code items} or one of its elements is null
     */
    public CodecBatch(List<Item> items) {
        this.items = List.copyOf(items);
        this.written = new long[this.items.size()];
        this.failures = new ZarrDirectException[this.items.size()];
        java.util.Arrays.fill(written, -1);
    }

    /**
     * A batch of one item.
     *
     * @param input  the bytes to transform
     * @param output where to write the result
     * @param label  what the chunk is, for error messages
     * @return the batch
     * @throws NullPointerException when an argument is null
     */
    public static CodecBatch of(Buffer input, Buffer output, String label) {
        return new CodecBatch(List.of(new Item(input, output, label)));
    }

    /**
     * The number of items.
     *
     * @return the item count
     */
    public int size() {
        return items.size();
    }

    /**
     * Item {@code i}.
     *
     * @param i the item's index, from 0 to {@link #size()}{@code  - 1}
     * @return the item
     * @throws IndexOutOfBoundsException when {@code i} is out of range
     */
    public Item item(int i) {
        return items.get(i);
    }

    /**
     * The input of item {@code i}.
     *
     * @param i the item's index
     * @return the buffer to read
     * @throws IndexOutOfBoundsException when {@code i} is out of range
     */
    public Buffer input(int i) {
        return items.get(i).input();
    }

    /**
     * The output of item {@code i}.
     *
     * @param i the item's index
     * @return the buffer to write
     * @throws IndexOutOfBoundsException when {@code i} is out of range
     */
    public Buffer output(int i) {
        return items.get(i).output();
    }

    /**
     * The label of item {@code i}, to put in the messages of its failure.
     *
     * @param i the item's index
     * @return the label
     * @throws IndexOutOfBoundsException when {@code i} is out of range
     */
    public String label(int i) {
        return items.get(i).label();
    }

    /**
     * Records that item {@code i} wrote {@code bytes} bytes to its output. A later call replaces the
     * count; a recorded failure still wins (see {@link #written}).
     *
     * @param i     the item's index
     * @param bytes the bytes written, from 0 to the output's size
     * @throws IllegalArgumentException  when {@code bytes} is negative or larger than the output
     * @throws IndexOutOfBoundsException when {@code i} is out of range
     */
    public void complete(int i, long bytes) {
        if (bytes < 0 || bytes > items.get(i).output().byteSize()) {
            throw new IllegalArgumentException("item " + i + " (" + label(i) + ") reports " + bytes
                    + " bytes written into an output of " + items.get(i).output().byteSize());
        }
        written[i] = bytes;
    }

    /**
     * Records that item {@code i} failed; the exception names codec and chunk. A later call replaces
     * the failure.
     *
     * @param i       the item's index
     * @param failure what went wrong, typically a {@link dev.zarrdirect.api.CodecException} or
     *                {@link dev.zarrdirect.api.CorruptChunkException} whose message includes {@link #label(int)}
     * @throws NullPointerException      when {@code failure} is null
     * @throws IndexOutOfBoundsException when {@code i} is out of range
     */
    public void fail(int i, ZarrDirectException failure) {
        failures[i] = Objects.requireNonNull(failure, "failure");
    }

    /**
     * Bytes written by item {@code i}, or -1 when it failed or did not run.
     *
     * @param i the item's index
     * @return the count recorded by {@link #complete}, or -1
     * @throws IndexOutOfBoundsException when {@code i} is out of range
     */
    public long written(int i) {
        return failures[i] != null ? -1 : written[i];
    }

    /**
     * The failure of item {@code i}.
     *
     * @param i the item's index
     * @return the exception recorded by {@link #fail}, or null when the item did not fail
     * @throws IndexOutOfBoundsException when {@code i} is out of range
     */
    public ZarrDirectException failure(int i) {
        return failures[i];
    }

    /**
     * Throws the first failure (in item order), with the others attached to it as suppressed; does
     * nothing if no item failed. Items that neither completed nor failed do not count as failures:
     * check {@link #written} for those. Calling it twice adds the other failures as suppressed again.
     *
     * @throws ZarrDirectException the first recorded failure, as recorded (a
     *                             {@link dev.zarrdirect.api.CorruptChunkException} stays one)
     */
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
