// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.codec.CodecBatch;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** What every CPU codec does around one batch item: host checks, failure capture, ByteBuffer windows. */
public final class CodecItems {

    /** The largest window a {@link ByteBuffer} view of a segment spans; a power of two below 2 GiB. */
    public static final long WINDOW = 1L << 30;

    private CodecItems() {
    }

    /** One item's work; may throw, and what it throws fails that item alone. */
    @FunctionalInterface
    public interface ItemWork {
        void run(int item, MemorySegment input, MemorySegment output);
    }

    /**
     * Runs {@code work} for every item of {@code batch}, with its input and output as segments;
     * an exception fails only its item ({@link ZarrDirectException}s as they are, others wrapped in
     * a {@link CodecException} naming the codec and the item's label).
     */
    public static void forEach(String codec, String direction, CodecBatch batch, ItemWork work) {
        for (int i = 0; i < batch.size(); i++) {
            try {
                MemorySegment in = host(codec, batch, i, batch.input(i), "input");
                MemorySegment out = host(codec, batch, i, batch.output(i), "output");
                work.run(i, in, out);
            } catch (ZarrDirectException e) {
                batch.fail(i, e);
            } catch (RuntimeException e) {
                batch.fail(i, new CodecException(codec, codec + " " + direction + " of " + batch.label(i)
                        + " failed: " + e, e));
            }
        }
    }

    private static MemorySegment host(String codec, CodecBatch batch, int i, Buffer b, String role) {
        if (!b.kind().hostAccessible()) {
            throw new CodecException(codec, "the cpu " + codec + " codec needs host memory, but the " + role
                    + " of " + batch.label(i) + " is " + b + " (" + b.kind() + " on " + b.device() + ")");
        }
        return b.segment();
    }

    /** A {@link ByteBuffer} over {@code length} bytes of {@code segment} at {@code offset} (at most {@link #WINDOW}). */
    public static ByteBuffer window(MemorySegment segment, long offset, long length) {
        return segment.asSlice(offset, Math.min(length, WINDOW)).asByteBuffer();
    }

    /** Throws when either segment is on the Java heap, which native libraries cannot address. */
    public static void requireNative(String codec, MemorySegment in, MemorySegment out) {
        if (!in.isNative() || !out.isNative()) {
            throw new IllegalArgumentException("the cpu " + codec + " codec needs native memory, but the "
                    + (in.isNative() ? "output" : "input") + " is a heap segment");
        }
        // A native library writes through the raw address and would ignore the read-only flag; on a
        // read-only mapped file that is a SIGSEGV, so refuse here.
        if (out.isReadOnly()) {
            throw new IllegalArgumentException("the cpu " + codec + " codec writes its output, but the output "
                    + out + " is read-only");
        }
    }

    /**
     * True when both segments start at the same byte of the same memory. {@link MemorySegment#address()}
     * alone cannot tell: for heap segments it is an offset into the array, equal for distinct arrays.
     */
    public static boolean sameStart(MemorySegment a, MemorySegment b) {
        if (a.isNative() != b.isNative() || a.address() != b.address()) {
            return false;
        }
        return a.isNative() || a.heapBase().isPresent() && a.heapBase().get() == b.heapBase().orElse(null);
    }

    /** True when the two segments share at least one byte. */
    public static boolean overlap(MemorySegment a, MemorySegment b) {
        return a.byteSize() > 0 && b.byteSize() > 0 && a.asOverlappingSlice(b).isPresent();
    }
}
