// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * An n-dimensional view of a {@link Buffer}: byte offset, data type, shape and strides (counted in
 * elements, as DLPack counts them). A tensor does not own its buffer: it lives as long as the
 * buffer does, and whoever allocated the buffer closes it (or the tensor, when it was made by
 * {@link #allocateHost} and so owns its buffer, see {@link #close()}).
 *
 * <p>A rank-0 tensor holds one element. A tensor with a zero extent holds none.
 */
public final class Tensor implements AutoCloseable {

    private final Buffer buffer;
    private final long byteOffset;
    private final DataType dataType;
    private final long[] shape;
    private final long[] strides;
    private final boolean ownsBuffer;

    private Tensor(Buffer buffer, long byteOffset, DataType dataType, long[] shape, long[] strides, boolean owns) {
        this.buffer = Objects.requireNonNull(buffer, "buffer");
        this.dataType = Objects.requireNonNull(dataType, "dataType");
        this.shape = shape.clone();
        this.strides = strides.clone();
        this.byteOffset = byteOffset;
        this.ownsBuffer = owns;
        if (shape.length != strides.length) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " and strides "
                    + Arrays.toString(strides) + " differ in rank");
        }
        for (long s : shape) {
            if (s < 0) {
                throw new IllegalArgumentException("negative extent in shape " + Arrays.toString(shape));
            }
        }
        if (byteOffset < 0) {
            throw new IllegalArgumentException("negative byte offset " + byteOffset);
        }
        long[] span;
        try {
            span = span();
            // Exact sums: a huge stride or offset must not wrap around into a range that looks in bounds.
            span = new long[]{Math.addExact(byteOffset, span[0]), Math.addExact(byteOffset, span[1]), span[1]};
        } catch (ArithmeticException e) {
            throw new IndexOutOfBoundsException("tensor " + dataType + Arrays.toString(shape) + " strides "
                    + Arrays.toString(strides) + " at byte offset " + byteOffset + " overflows 64-bit byte offsets");
        }
        if (span[2] > 0 && (span[0] < 0 || span[1] > buffer.byteSize())) {
            throw new IndexOutOfBoundsException("tensor " + dataType + Arrays.toString(shape) + " strides "
                    + Arrays.toString(strides) + " at byte offset " + byteOffset + " does not fit in " + buffer);
        }
    }

    /** A C-order (row-major) tensor over {@code buffer} from byte 0. */
    public static Tensor of(Buffer buffer, DataType dataType, long... shape) {
        return new Tensor(buffer, 0, dataType, shape, contiguousStrides(shape), false);
    }

    /** A tensor with explicit layout; strides are in elements. */
    public static Tensor of(Buffer buffer, long byteOffset, DataType dataType, long[] shape, long[] strides) {
        return new Tensor(buffer, byteOffset, dataType, shape, strides, false);
    }

    /** A zeroed C-order host tensor that owns its memory: {@link #close()} frees it. */
    public static Tensor allocateHost(DataType dataType, long... shape) {
        long bytes = Math.multiplyExact(elementCount(shape), dataType.byteSize());
        HostBuffer b = HostBuffer.allocate(bytes);
        return new Tensor(b, 0, dataType, shape, contiguousStrides(shape), true);
    }

    /** Wraps a buffer the tensor takes ownership of: {@link #close()} closes the buffer. */
    public static Tensor owning(Buffer buffer, long byteOffset, DataType dataType, long[] shape, long[] strides) {
        return new Tensor(buffer, byteOffset, dataType, shape, strides, true);
    }

    /** Row-major strides, in elements, for {@code shape}. */
    public static long[] contiguousStrides(long[] shape) {
        long[] st = new long[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            st[i] = s;
            s = Math.multiplyExact(s, Math.max(shape[i], 1));
        }
        return st;
    }

    public static long elementCount(long[] shape) {
        long n = 1;
        for (long s : shape) {
            n = Math.multiplyExact(n, s);
        }
        return n;
    }

    public Buffer buffer() {
        return buffer;
    }

    public Device device() {
        return buffer.device();
    }

    public long byteOffset() {
        return byteOffset;
    }

    public DataType dataType() {
        return dataType;
    }

    public long[] shape() {
        return shape.clone();
    }

    public long shape(int dim) {
        return shape[dim];
    }

    /** Strides in elements. */
    public long[] strides() {
        return strides.clone();
    }

    public int rank() {
        return shape.length;
    }

    public long elementCount() {
        return elementCount(shape);
    }

    /** Bytes the elements occupy when packed. */
    public long byteSize() {
        return elementCount() * dataType.byteSize();
    }

    /** True when the elements are packed in C order. */
    public boolean isContiguous() {
        if (elementCount() == 0) {
            // No elements, nothing to be out of place; contiguousStrides() for shape [3, 0] gives
            // strides the loop below would otherwise reject.
            return true;
        }
        long expect = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] != 1 && strides[i] != expect) {
                return false;
            }
            expect *= shape[i];
        }
        return true;
    }

    /**
     * The tensor's bytes as a segment, for host tensors that are contiguous.
     *
     * @throws UnsupportedOperationException for device tensors or strided layouts
     */
    public MemorySegment segment() {
        if (!isContiguous()) {
            throw new UnsupportedOperationException("tensor with strides " + Arrays.toString(strides)
                    + " is not contiguous; copy it first");
        }
        return buffer.segment().asSlice(byteOffset, byteSize());
    }

    /** Byte offset of the element at {@code index} (relative to the buffer start). */
    public long byteOffsetOf(long... index) {
        if (index.length != shape.length) {
            throw new IllegalArgumentException("index of rank " + index.length + " for a tensor of rank " + shape.length);
        }
        long off = 0;
        for (int i = 0; i < index.length; i++) {
            if (index[i] < 0 || index[i] >= shape[i]) {
                throw new IndexOutOfBoundsException("index " + Arrays.toString(index) + " outside shape " + Arrays.toString(shape));
            }
            off += index[i] * strides[i];
        }
        return byteOffset + off * dataType.byteSize();
    }

    /** {min, max+1} byte extents relative to byteOffset; {0,0} when empty. */
    private long[] span() {
        long lo = 0;
        long hi = 0;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] == 0) {
                return new long[]{0, 0};
            }
            long reach = Math.multiplyExact(shape[i] - 1, strides[i]);
            if (reach < 0) {
                lo = Math.addExact(lo, reach);
            } else {
                hi = Math.addExact(hi, reach);
            }
        }
        return new long[]{Math.multiplyExact(lo, (long) dataType.byteSize()),
                Math.multiplyExact(Math.addExact(hi, 1), (long) dataType.byteSize())};
    }

    /** True when this tensor owns its buffer. */
    public boolean ownsBuffer() {
        return ownsBuffer;
    }

    /** Closes the buffer if this tensor owns it; otherwise does nothing (the buffer's owner closes it). */
    @Override
    public void close() {
        if (ownsBuffer) {
            buffer.close();
        }
    }

    @Override
    public String toString() {
        return "Tensor[" + dataType + Arrays.toString(shape) + " on " + buffer.device()
                + (isContiguous() ? "" : " strides " + Arrays.toString(strides)) + "]";
    }
}
