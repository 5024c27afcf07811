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
 *
 * <h2>Layout</h2>
 * The element at index {@code (i0, i1, …)} starts at byte
 * {@code byteOffset() + (i0*strides[0] + i1*strides[1] + …) * dataType().byteSize()} of the buffer.
 * Strides may be zero (broadcast) or negative; every element the layout reaches must lie inside the
 * buffer, which the factories check. Shapes and strides are copied in and out: a tensor never shares
 * its arrays with the caller.
 *
 * <h2>Ownership</h2>
 * {@link #of} views a buffer someone else owns and closes; {@link #allocateHost} and
 * {@link #owning} make a tensor that owns its buffer, and closing it closes the buffer. A tensor
 * over a closed buffer fails on element access and {@link #segment()} with the buffer's
 * {@link IllegalStateException}; its shape, strides and data type stay readable.
 *
 * <h2>Threads</h2>
 * A tensor is immutable; its typed getters may run on many threads at once. Whether a write through
 * the buffer is visible to another thread is the buffer's matter (see {@link HostBuffer}).
 *
 * {@snippet :
 * try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, 2, 3)) {    // zeroed, 24 bytes, owned
 *     t.segment().setAtIndex(ValueLayout.JAVA_FLOAT, 4, 1.5f);       // C order: index [1, 1]
 *     float x = t.getFloat(1, 1);                                    // 1.5
 *     long[] strides = t.strides();                                  // [3, 1], in elements
 * }                                                                  // frees the memory
 * }
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

    /**
     * A C-order (row-major) view of {@code buffer} from byte 0. The tensor does not own the buffer:
     * closing the tensor does nothing, and the buffer must stay open while the tensor is used.
     *
     * @param buffer   the memory, on any device; the caller keeps ownership
     * @param dataType the element type
     * @param shape    the extent of each dimension, in elements; none negative; empty for rank 0
     * @return a view over the first {@code elementCount * dataType.byteSize()} bytes
     * @throws NullPointerException      when {@code buffer} or {@code dataType} is null
     * @throws IllegalArgumentException  for a negative extent
     * @throws IndexOutOfBoundsException when the elements do not fit in the buffer
     * @throws ArithmeticException       when the element count overflows a {@code long}
     */
    public static Tensor of(Buffer buffer, DataType dataType, long... shape) {
        return new Tensor(buffer, 0, dataType, shape, contiguousStrides(shape), false);
    }

    /**
     * A view of {@code buffer} with an explicit layout. The tensor does not own the buffer: closing
     * the tensor does nothing, and the buffer must stay open while the tensor is used.
     *
     * @param buffer     the memory, on any device; the caller keeps ownership
     * @param byteOffset the byte offset of the element at index all zeros, in bytes from the buffer's start
     * @param dataType   the element type
     * @param shape      the extent of each dimension, in elements; none negative; copied
     * @param strides    the step of each dimension, in elements (not bytes); may be zero or
     *                   negative; same length as {@code shape}; copied
     * @return the view
     * @throws NullPointerException      when {@code buffer}, {@code dataType}, {@code shape} or
     *                                   {@code strides} is null
     * @throws IllegalArgumentException  for a negative extent or offset, or when shape and strides
     *                                   differ in rank
     * @throws IndexOutOfBoundsException when an element the layout reaches lies outside the buffer,
     *                                   or the byte offsets overflow a {@code long}
     */
    public static Tensor of(Buffer buffer, long byteOffset, DataType dataType, long[] shape, long[] strides) {
        return new Tensor(buffer, byteOffset, dataType, shape, strides, false);
    }

    /**
     * A zeroed C-order tensor in newly allocated host memory ({@link HostBuffer#allocate}) that owns
     * its memory: {@link #close()} frees it, and must be called exactly once.
     *
     * @param dataType the element type
     * @param shape    the extent of each dimension, in elements; none negative; empty for rank 0
     * @return a tensor of {@code elementCount * dataType.byteSize()} bytes, all zero, on {@link Device#CPU}
     * @throws IllegalArgumentException for a negative extent
     * @throws ArithmeticException      when the byte size overflows a {@code long}
     * @throws OutOfMemoryError         when the host memory cannot be allocated
     */
    public static Tensor allocateHost(DataType dataType, long... shape) {
        long bytes = Math.multiplyExact(elementCount(shape), dataType.byteSize());
        HostBuffer b = HostBuffer.allocate(bytes);
        return new Tensor(b, 0, dataType, shape, contiguousStrides(shape), true);
    }

    /**
     * A tensor over {@code buffer} that takes ownership of it: {@link #close()} closes the buffer
     * (which frees it or returns it to its pool). The caller must not close the buffer itself. If
     * this throws, ownership was not taken and the caller still closes the buffer.
     *
     * @param buffer     an owning (not view) buffer, handed over to the tensor
     * @param byteOffset the byte offset of the element at index all zeros, in bytes from the buffer's start
     * @param dataType   the element type
     * @param shape      the extent of each dimension, in elements; none negative; copied
     * @param strides    the step of each dimension, in elements; same length as {@code shape}; copied
     * @return the owning tensor
     * @throws NullPointerException      when an argument is null
     * @throws IllegalArgumentException  for a negative extent or offset, or when shape and strides
     *                                   differ in rank
     * @throws IndexOutOfBoundsException when an element the layout reaches lies outside the buffer
     */
    public static Tensor owning(Buffer buffer, long byteOffset, DataType dataType, long[] shape, long[] strides) {
        return new Tensor(buffer, byteOffset, dataType, shape, strides, true);
    }

    /**
     * Row-major (C-order) strides, in elements, for {@code shape}: the last dimension has stride 1.
     * A zero extent counts as 1, so the strides stay distinct and positive.
     *
     * @param shape the extents, in elements
     * @return a new array of the same length as {@code shape}
     * @throws ArithmeticException when a stride overflows a {@code long}
     */
    public static long[] contiguousStrides(long[] shape) {
        long[] st = new long[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            st[i] = s;
            s = Math.multiplyExact(s, Math.max(shape[i], 1));
        }
        return st;
    }

    /**
     * The number of elements of a tensor of {@code shape}: the product of the extents, 1 for rank 0.
     *
     * @param shape the extents, in elements
     * @return the element count; 0 when an extent is 0
     * @throws ArithmeticException when the product overflows a {@code long}
     */
    public static long elementCount(long[] shape) {
        long n = 1;
        for (long s : shape) {
            n = Math.multiplyExact(n, s);
        }
        return n;
    }

    /**
     * The buffer this tensor views. It is the whole buffer, not a slice at {@link #byteOffset()}.
     * Do not close it through this reference unless you own it; a tensor that
     * {@linkplain #ownsBuffer() owns} its buffer closes it in {@link #close()}.
     *
     * @return the buffer, never null
     */
    public Buffer buffer() {
        return buffer;
    }

    /**
     * The device the elements live on: the buffer's device.
     *
     * @return the device, never null
     */
    public Device device() {
        return buffer.device();
    }

    /**
     * Where the element at index all zeros starts, in bytes from the start of {@link #buffer()}.
     *
     * @return the byte offset, never negative
     */
    public long byteOffset() {
        return byteOffset;
    }

    /**
     * The element type.
     *
     * @return the data type, never null
     */
    public DataType dataType() {
        return dataType;
    }

    /**
     * The extent of each dimension, in elements.
     *
     * @return a copy; changing it does not change the tensor
     */
    public long[] shape() {
        return shape.clone();
    }

    /**
     * The extent of one dimension, in elements, without copying the shape.
     *
     * @param dim the dimension, from 0 to {@link #rank()}{@code  - 1}
     * @return the extent
     * @throws ArrayIndexOutOfBoundsException when {@code dim} is not a dimension of this tensor
     */
    public long shape(int dim) {
        return shape[dim];
    }

    /**
     * The step of each dimension, in elements (not bytes, unlike {@link dev.zarrdirect.api.buffer.Region});
     * multiply by {@code dataType().byteSize()} for bytes.
     *
     * @return a copy; changing it does not change the tensor
     */
    public long[] strides() {
        return strides.clone();
    }

    /**
     * The number of dimensions; 0 for a tensor of one element.
     *
     * @return the rank
     */
    public int rank() {
        return shape.length;
    }

    /**
     * The number of elements: the product of the shape, 1 for rank 0, 0 when an extent is 0.
     *
     * @return the element count
     */
    public long elementCount() {
        return elementCount(shape);
    }

    /**
     * The bytes the elements occupy when packed: {@code elementCount() * dataType().byteSize()}. For a
     * strided tensor this is less than the span of buffer it reaches (or more, with zero strides).
     *
     * @return the packed size in bytes
     */
    public long byteSize() {
        return elementCount() * dataType.byteSize();
    }

    /**
     * Whether the elements are packed in C order, so that {@link #byteSize()} bytes from
     * {@link #byteOffset()} hold them all: every dimension of extent greater than 1 has the C-order
     * stride. A tensor without elements counts as contiguous.
     *
     * @return true for a packed C-order layout
     */
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
     * The tensor's bytes as a segment, for host tensors that are contiguous: {@link #byteSize()}
     * bytes from {@link #byteOffset()} of the buffer's segment. The segment shares the buffer's
     * memory (writes go to the tensor) and its lifetime: it is invalid once the buffer is closed.
     *
     * @return a slice of the buffer's segment
     * @throws UnsupportedOperationException for device tensors or strided layouts
     * @throws IllegalStateException         when the buffer is closed
     */
    public MemorySegment segment() {
        if (!isContiguous()) {
            throw new UnsupportedOperationException("tensor with strides " + Arrays.toString(strides)
                    + " is not contiguous; copy it first");
        }
        return buffer.segment().asSlice(byteOffset, byteSize());
    }

    /**
     * The byte offset of the element at {@code index}, relative to the start of {@link #buffer()}
     * (so {@link #byteOffset()} is included).
     *
     * @param index one index per dimension, each in {@code [0, shape(d))}
     * @return the offset in bytes
     * @throws IllegalArgumentException  when {@code index} has the wrong rank
     * @throws IndexOutOfBoundsException when an index is outside the shape
     */
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
     * @param index one index per dimension, each in {@code [0, shape(d))}
     * @return the element, widened from {@code float16} when that is the type
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

    /**
     * The element at {@code index} as a double: for any floating-point tensor ({@code float16},
     * {@code float32}, {@code float64}) in host memory. Strides are honoured.
     *
     * @param index one index per dimension, each in {@code [0, shape(d))}
     * @return the element, widened exactly
     * @throws IllegalArgumentException      for a type that is not floating point or an index of the wrong rank
     * @throws IndexOutOfBoundsException     for an index outside the shape
     * @throws UnsupportedOperationException for a tensor in device memory (copy it to the host first)
     */
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
     * negative, as its bits). Strides are honoured.
     *
     * @param index one index per dimension, each in {@code [0, shape(d))}
     * @return the element: sign-extended for signed types, zero-extended for unsigned and bool
     * @throws IllegalArgumentException      for a floating-point, complex or raw type, or an index of the wrong rank
     * @throws IndexOutOfBoundsException     for an index outside the shape
     * @throws UnsupportedOperationException for a tensor in device memory (copy it to the host first)
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

    /**
     * Every element, in C order whatever the strides, as a new float array: for {@code float32} and
     * {@code float16} tensors in host memory.
     *
     * @return a new array of {@link #elementCount()} floats
     * @throws IllegalArgumentException      for another data type
     * @throws IllegalStateException         when there are more elements than a Java array holds
     * @throws UnsupportedOperationException for a tensor in device memory (checked only when the tensor
     *                                       has an element; copy it to the host first)
     */
    public float[] toFloatArray() {
        floatWidth("toFloatArray", 4);
        float[] out = new float[arrayLength("toFloatArray")];
        int i = 0;
        for (long[] idx = new long[shape.length]; i < out.length; i++, next(idx)) {
            out[i] = getFloat(idx);
        }
        return out;
    }

    /**
     * Every element, in C order whatever the strides, as a new double array: for any floating-point
     * tensor in host memory.
     *
     * @return a new array of {@link #elementCount()} doubles
     * @throws IllegalArgumentException      for a type that is not floating point
     * @throws IllegalStateException         when there are more elements than a Java array holds
     * @throws UnsupportedOperationException for a tensor in device memory (checked only when the tensor
     *                                       has an element; copy it to the host first)
     */
    public double[] toDoubleArray() {
        floatWidth("toDoubleArray", 8);
        double[] out = new double[arrayLength("toDoubleArray")];
        int i = 0;
        for (long[] idx = new long[shape.length]; i < out.length; i++, next(idx)) {
            out[i] = getDouble(idx);
        }
        return out;
    }

    /**
     * Every element, in C order whatever the strides, as a new long array: for integer and
     * {@code bool} tensors in host memory, widened as {@link #getLong} widens them.
     *
     * @return a new array of {@link #elementCount()} longs
     * @throws IllegalArgumentException      for a floating-point, complex or raw type (checked only when
     *                                       the tensor has an element)
     * @throws IllegalStateException         when there are more elements than a Java array holds
     * @throws UnsupportedOperationException for a tensor in device memory (checked only when the tensor
     *                                       has an element)
     */
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

    /**
     * Whether this tensor owns its buffer, so that {@link #close()} closes it: true for tensors
     * made by {@link #allocateHost} and {@link #owning} (and by
     * {@link dev.zarrdirect.api.dlpack.DLPack#importTensor}), false for {@link #of}.
     *
     * @return true when closing the tensor closes the buffer
     */
    public boolean ownsBuffer() {
        return ownsBuffer;
    }

    /**
     * Closes the buffer if this tensor owns it; otherwise does nothing (the buffer's owner closes it).
     * For an owning tensor, a second call closes the buffer again, which throws the buffer's
     * {@link IllegalStateException}: close an owning tensor once.
     *
     * @throws IllegalStateException when this tensor owns its buffer and it is already closed
     */
    @Override
    public void close() {
        if (ownsBuffer) {
            buffer.close();
        }
    }

    /**
     * A short description for messages: {@code Tensor[float32[2, 3] on cpu:0]}, with the strides
     * when the layout is not contiguous.
     *
     * @return the description
     */
    @Override
    public String toString() {
        return "Tensor[" + dataType + Arrays.toString(shape) + " on " + buffer.device()
                + (isContiguous() ? "" : " strides " + Arrays.toString(strides)) + "]";
    }
}
