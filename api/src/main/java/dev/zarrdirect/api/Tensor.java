// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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

    // ---------------------------------------------------------------- typed element access

    /**
     * The element at {@code index} as a float: for {@code float32} and {@code float16} tensors in
     * host memory. Strides are honoured.
     *
     * @throws IllegalArgumentException      for another data type or an index of the wrong rank
     * @throws IndexOutOfBoundsException     for an index outside the shape
     * @throws UnsupportedOperationException for a tensor in device memory (copy it to the host first)
     */
    public float getFloat(long... index) {
        MemorySegment s = hostSegment("getFloat");
        long at = byteOffsetOf(index);
        return switch (floatWidth("getFloat", 4)) {
            case 2 -> Float.float16ToFloat(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, at));
            default -> s.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at);
        };
    }

    /** The element at {@code index} as a double: for any floating-point tensor in host memory (see {@link #getFloat}). */
    public double getDouble(long... index) {
        MemorySegment s = hostSegment("getDouble");
        long at = byteOffsetOf(index);
        return switch (floatWidth("getDouble", 8)) {
            case 2 -> Float.float16ToFloat(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, at));
            case 4 -> s.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at);
            default -> s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, at);
        };
    }

    /**
     * The element at {@code index} as a long: for integer and {@code bool} tensors in host memory;
     * unsigned types are widened without sign ({@code uint64} above {@link Long#MAX_VALUE} comes back
     * negative, as its bits).
     */
    public long getLong(long... index) {
        MemorySegment s = hostSegment("getLong");
        if (dataType.kind() != DataType.Kind.INT && dataType.kind() != DataType.Kind.UINT
                && dataType.kind() != DataType.Kind.BOOL) {
            throw new IllegalArgumentException("getLong reads integer tensors, not " + dataType + "; use getDouble");
        }
        long at = byteOffsetOf(index);
        boolean unsigned = dataType.kind() != DataType.Kind.INT;
        return switch (dataType.byteSize()) {
            case 1 -> unsigned ? Byte.toUnsignedLong(s.get(ValueLayout.JAVA_BYTE, at)) : s.get(ValueLayout.JAVA_BYTE, at);
            case 2 -> unsigned ? Short.toUnsignedLong(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, at))
                    : s.get(ValueLayout.JAVA_SHORT_UNALIGNED, at);
            case 4 -> unsigned ? Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT_UNALIGNED, at))
                    : s.get(ValueLayout.JAVA_INT_UNALIGNED, at);
            default -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
        };
    }

    /** Every element in C order as floats ({@code float32} and {@code float16} tensors in host memory). */
    public float[] toFloatArray() {
        floatWidth("toFloatArray", 4);
        float[] out = new float[arrayLength("toFloatArray")];
        int i = 0;
        for (long[] idx = new long[shape.length]; i < out.length; i++, next(idx)) {
            out[i] = getFloat(idx);
        }
        return out;
    }

    /** Every element in C order as doubles (any floating-point tensor in host memory). */
    public double[] toDoubleArray() {
        floatWidth("toDoubleArray", 8);
        double[] out = new double[arrayLength("toDoubleArray")];
        int i = 0;
        for (long[] idx = new long[shape.length]; i < out.length; i++, next(idx)) {
            out[i] = getDouble(idx);
        }
        return out;
    }

    /** Every element in C order as longs (integer and {@code bool} tensors in host memory; see {@link #getLong}). */
    public long[] toLongArray() {
        long[] out = new long[arrayLength("toLongArray")];
        int i = 0;
        for (long[] idx = new long[shape.length]; i < out.length; i++, next(idx)) {
            out[i] = getLong(idx);
        }
        return out;
    }

    private MemorySegment hostSegment(String what) {
        if (!buffer.kind().hostAccessible()) {
            throw new UnsupportedOperationException(what + " reads host memory; " + this
                    + " is in device memory: copy it to the host first (ZarrArray.read gives host tensors)");
        }
        return buffer.segment();
    }

    /** The byte width of this floating-point type, checked against the widest the caller returns. */
    private int floatWidth(String what, int widest) {
        if (dataType.kind() != DataType.Kind.FLOAT || dataType.byteSize() > widest) {
            throw new IllegalArgumentException(what + " reads " + (widest == 4 ? "float32 and float16" : "floating-point")
                    + " tensors, not " + dataType);
        }
        return dataType.byteSize();
    }

    private int arrayLength(String what) {
        long n = elementCount();
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(what + ": " + n + " elements do not fit a Java array; read a smaller selection");
        }
        return (int) n;
    }

    /** Advances a C-order index; wraps to all zeros after the last element. */
    private void next(long[] idx) {
        for (int d = idx.length - 1; d >= 0; d--) {
            if (++idx[d] < shape[d]) {
                return;
            }
            idx[d] = 0;
        }
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
