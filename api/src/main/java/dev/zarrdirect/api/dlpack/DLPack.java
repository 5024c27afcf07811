// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.dlpack;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.ExternalBuffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Hands {@link Tensor}s to native code as DLPack 1.x {@code DLManagedTensorVersioned} structs, and
 * takes such structs from native producers as tensors, zero-copy both ways. See the
 * {@linkplain dev.zarrdirect.api.dlpack package documentation} for ownership and threads.
 *
 * <p>The {@code *_LAYOUT} constants describe the C structs of {@code dlpack.h} for code that reads
 * or writes them itself. All methods are static and thread-safe; every one that touches native
 * memory needs native access enabled.
 *
 * {@snippet :
 * MemorySegment managed = ...;                    // DLManagedTensorVersioned* from a producer
 * try (Tensor t = DLPack.importTensor(managed)) { // now owns the producer's memory
 *     float first = t.getFloat(0, 0);             // host tensors only; device ones are read by their backend
 * }                                               // calls the producer's deleter once
 * }
 */
public final class DLPack {

    /**
     * The DLPack major version this class writes into every export, and the only major version
     * {@link #importTensor} accepts.
     */
    public static final int VERSION_MAJOR = 1;
    /** The DLPack minor version this class writes into every export; imports accept any minor version. */
    public static final int VERSION_MINOR = 1;

    /** {@code flags} bit: the consumer must not write to the tensor's memory. */
    public static final long FLAG_READ_ONLY = 1L;
    /** {@code flags} bit: the producer made a copy for this export. */
    public static final long FLAG_IS_COPIED = 1L << 1;

    /** {@code DLPackVersion}. */
    public static final StructLayout VERSION_LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("major"),
            JAVA_INT.withName("minor")).withName("DLPackVersion");

    /** {@code DLDevice}. */
    public static final StructLayout DEVICE_LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("device_type"),
            JAVA_INT.withName("device_id")).withName("DLDevice");

    /** {@code DLDataType}; code and bits are unsigned bytes, lanes an unsigned 16-bit count. */
    public static final StructLayout DATA_TYPE_LAYOUT = MemoryLayout.structLayout(
            JAVA_BYTE.withName("code"),
            JAVA_BYTE.withName("bits"),
            JAVA_SHORT.withName("lanes")).withName("DLDataType");

    /** {@code DLTensor}. */
    public static final StructLayout TENSOR_LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("data"),
            DEVICE_LAYOUT.withName("device"),
            JAVA_INT.withName("ndim"),
            DATA_TYPE_LAYOUT.withName("dtype"),
            ADDRESS.withName("shape"),
            ADDRESS.withName("strides"),
            JAVA_LONG.withName("byte_offset")).withName("DLTensor");

    /** {@code DLManagedTensorVersioned}. */
    public static final StructLayout MANAGED_TENSOR_VERSIONED_LAYOUT = MemoryLayout.structLayout(
            VERSION_LAYOUT.withName("version"),
            ADDRESS.withName("manager_ctx"),
            ADDRESS.withName("deleter"),
            JAVA_LONG.withName("flags"),
            TENSOR_LAYOUT.withName("dl_tensor")).withName("DLManagedTensorVersioned");

    private static final long MANAGED_SIZE = MANAGED_TENSOR_VERSIONED_LAYOUT.byteSize();
    private static final long OFF_MAJOR = offset(groupElement("version"), groupElement("major"));
    private static final long OFF_MINOR = offset(groupElement("version"), groupElement("minor"));
    private static final long OFF_CTX = offset(groupElement("manager_ctx"));
    private static final long OFF_DELETER = offset(groupElement("deleter"));
    private static final long OFF_FLAGS = offset(groupElement("flags"));
    private static final long OFF_DATA = offset(groupElement("dl_tensor"), groupElement("data"));
    private static final long OFF_DEVICE_TYPE = offset(groupElement("dl_tensor"), groupElement("device"),
            groupElement("device_type"));
    private static final long OFF_DEVICE_ID = offset(groupElement("dl_tensor"), groupElement("device"),
            groupElement("device_id"));
    private static final long OFF_NDIM = offset(groupElement("dl_tensor"), groupElement("ndim"));
    private static final long OFF_CODE = offset(groupElement("dl_tensor"), groupElement("dtype"), groupElement("code"));
    private static final long OFF_BITS = offset(groupElement("dl_tensor"), groupElement("dtype"), groupElement("bits"));
    private static final long OFF_LANES = offset(groupElement("dl_tensor"), groupElement("dtype"),
            groupElement("lanes"));
    private static final long OFF_SHAPE = offset(groupElement("dl_tensor"), groupElement("shape"));
    private static final long OFF_STRIDES = offset(groupElement("dl_tensor"), groupElement("strides"));
    private static final long OFF_BYTE_OFFSET = offset(groupElement("dl_tensor"), groupElement("byte_offset"));

    /** Far above any real tensor's rank; guards against reading a garbage ndim as a huge array. */
    private static final int MAX_IMPORT_RANK = 1024;

    private static final System.Logger LOG = System.getLogger(DLPack.class.getName());

    /** Keeps each exported tensor reachable until the consumer calls the deleter; keyed by manager_ctx. */
    private static final ConcurrentHashMap<Long, Export> EXPORTS = new ConcurrentHashMap<>();
    /**
     * Struct address to export id. The deleter looks the address up here before it reads the struct,
     * so that a deleter call on a pointer that is not (or no longer) a live export touches no memory.
     */
    private static final ConcurrentHashMap<Long, Long> LIVE_STRUCTS = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT_ID = new AtomicLong(1);

    private static final MemorySegment DELETER_STUB;
    /** {@code void (*)(DLManagedTensorVersioned*)} with the function pointer as first argument. */
    private static final MethodHandle CALL_DELETER;

    static {
        Linker linker = Linker.nativeLinker();
        try {
            MethodHandle onDelete = MethodHandles.lookup().findStatic(DLPack.class, "onDelete",
                    MethodType.methodType(void.class, MemorySegment.class));
            // Global: native consumers may hold the function pointer for as long as the process lives.
            DELETER_STUB = linker.upcallStub(onDelete, FunctionDescriptor.ofVoid(ADDRESS), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        CALL_DELETER = linker.downcallHandle(FunctionDescriptor.ofVoid(ADDRESS));
    }

    private record Export(Tensor tensor, Arena arena, boolean owned) {
    }

    private DLPack() {
    }

    /**
     * Exports {@code tensor} as a {@code DLManagedTensorVersioned} (version 1.1, flags 0) in native
     * memory and returns a pointer to it, sized to the struct and not tied to any arena. The consumer
     * takes the pointer and must call its {@code deleter} exactly once, from any thread; the deleter
     * frees the struct and lets go of the tensor. The tensor's buffer is not closed: its owner must
     * keep it open until the deleter has run, because the consumer reads the memory in place.
     *
     * @param tensor the tensor to lend; on any device; its buffer must be open
     * @return a pointer to the new struct, a segment of the struct's size with the global scope (it does
     *         not become invalid by itself: it dangles once the deleter has run)
     * @throws IllegalStateException    when the tensor's buffer is closed
     * @throws IllegalArgumentException when the data type does not fit in a {@code DLDataType} or a
     *                                  host buffer is not backed by native memory
     * @throws NullPointerException     when {@code tensor} is null
     */
    public static MemorySegment export(Tensor tensor) {
        return export(tensor, false);
    }

    /**
     * As {@link #export}, but ownership passes to the consumer: the deleter also closes
     * {@code tensor} (which closes its buffer when the tensor owns it, see {@link Tensor#close()}).
     * The caller must not close or use the tensor after this returns.
     *
     * @param tensor the tensor to give away; usually one that {@linkplain Tensor#ownsBuffer() owns} its
     *         buffer, so that the consumer's deleter frees the memory
     * @return a pointer to the new struct, as for {@link #export}
     * @throws NullPointerException     when {@code tensor} is null
     * @throws IllegalStateException    when the tensor's buffer is closed
     * @throws IllegalArgumentException when the data type does not fit in a {@code DLDataType} or a
     *         host buffer is not backed by native memory
     */
    public static MemorySegment exportOwned(Tensor tensor) {
        return export(tensor, true);
    }

    /**
     * How many exports the consumers have not yet released; for tests and leak reports.
     *
     * @return the number of structs made by {@link #export} and {@link #exportOwned} whose deleter has
     *         not run yet, in this process
     */
    public static int liveExports() {
        return EXPORTS.size();
    }

    private static MemorySegment export(Tensor tensor, boolean owned) {
        Objects.requireNonNull(tensor, "tensor");
        Buffer buffer = tensor.buffer();
        DataType dt = tensor.dataType();
        int bits = 8 * dt.byteSize();
        if (bits > 255) {
            throw new IllegalArgumentException("cannot export " + tensor + ": data type " + dt + " has " + bits
                    + " bits, more than a DLDataType can hold (255)");
        }
        long data = buffer.address();
        if (buffer.kind().hostAccessible() && !buffer.segment().isNative()) {
            throw new IllegalArgumentException("cannot export " + tensor + ": " + buffer
                    + " is backed by a Java heap segment, which has no stable address; copy it to native memory");
        }
        int ndim = tensor.rank();
        long[] shape = tensor.shape();
        long[] strides = tensor.strides();
        long id = NEXT_ID.getAndIncrement();
        Arena arena = Arena.ofShared();
        boolean success = false;
        try {
            MemorySegment m = arena.allocate(MANAGED_TENSOR_VERSIONED_LAYOUT);
            // Rank 0 still gets valid (one-slot) arrays: some consumers read shape[0] unconditionally.
            MemorySegment shapeArray = arena.allocate(JAVA_LONG, Math.max(ndim, 1));
            MemorySegment stridesArray = arena.allocate(JAVA_LONG, Math.max(ndim, 1));
            for (int i = 0; i < ndim; i++) {
                shapeArray.setAtIndex(JAVA_LONG, i, shape[i]);
                stridesArray.setAtIndex(JAVA_LONG, i, strides[i]);
            }
            m.set(JAVA_INT, OFF_MAJOR, VERSION_MAJOR);
            m.set(JAVA_INT, OFF_MINOR, VERSION_MINOR);
            m.set(ADDRESS, OFF_CTX, MemorySegment.ofAddress(id));
            m.set(ADDRESS, OFF_DELETER, DELETER_STUB);
            m.set(JAVA_LONG, OFF_FLAGS, 0L);
            m.set(ADDRESS, OFF_DATA, MemorySegment.ofAddress(data));
            m.set(JAVA_INT, OFF_DEVICE_TYPE, tensor.device().type().dlpackCode());
            m.set(JAVA_INT, OFF_DEVICE_ID, tensor.device().index());
            m.set(JAVA_INT, OFF_NDIM, ndim);
            m.set(JAVA_BYTE, OFF_CODE, (byte) dt.kind().dlpackCode());
            m.set(JAVA_BYTE, OFF_BITS, (byte) bits);
            m.set(JAVA_SHORT, OFF_LANES, (short) 1);
            m.set(ADDRESS, OFF_SHAPE, shapeArray);
            m.set(ADDRESS, OFF_STRIDES, stridesArray);
            m.set(JAVA_LONG, OFF_BYTE_OFFSET, tensor.byteOffset());
            EXPORTS.put(id, new Export(tensor, arena, owned));
            LIVE_STRUCTS.put(m.address(), id);
            success = true;
            // Global scope on purpose: a segment of the export's arena passed to a downcall would keep
            // the arena acquired, and the consumer's deleter could then not close it.
            return MemorySegment.ofAddress(m.address()).reinterpret(MANAGED_SIZE);
        } finally {
            if (!success) {
                arena.close();
            }
        }
    }

    /** The deleter of every export; runs on whatever thread the consumer calls it from. */
    private static void onDelete(MemorySegment managed) {
        // An exception escaping an upcall kills the JVM, so everything is caught and logged.
        try {
            Long id = LIVE_STRUCTS.remove(managed.address());
            if (id == null) {
                LOG.log(System.Logger.Level.WARNING, "DLPack deleter called for 0x" + Long.toHexString(managed.address())
                        + ", which is not a live export of this process: the deleter was called twice or"
                        + " on a struct that DLPack.export did not make; ignored");
                return;
            }
            MemorySegment m = managed.reinterpret(MANAGED_SIZE);
            long ctx = m.get(ADDRESS, OFF_CTX).address();
            if (ctx != id) {
                LOG.log(System.Logger.Level.WARNING, "DLPack export 0x" + Long.toHexString(managed.address())
                        + " has manager_ctx " + ctx + ", expected " + id + ": the consumer overwrote it;"
                        + " releasing export " + id);
            }
            Export e = EXPORTS.remove(id);
            if (e == null) {
                return;
            }
            try {
                if (e.owned()) {
                    e.tensor().close();
                }
            } finally {
                e.arena().close();
            }
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, "DLPack deleter for 0x" + Long.toHexString(managed.address())
                    + " failed", t);
        }
    }

    /**
     * True when the struct's {@code flags} carry {@code DLPACK_FLAG_BITMASK_READ_ONLY}.
     *
     * @param managed a pointer to a {@code DLManagedTensorVersioned}; its size may be zero (it is
     *         reinterpreted to the struct's size)
     * @return true when the read-only flag is set
     * @throws NullPointerException     when {@code managed} is null
     * @throws IllegalArgumentException for a NULL pointer
     */
    public static boolean isReadOnly(MemorySegment managed) {
        return (struct(managed).get(JAVA_LONG, OFF_FLAGS) & FLAG_READ_ONLY) != 0;
    }

    /**
     * Takes a {@code DLManagedTensorVersioned} from a native producer as a tensor over the same
     * memory. The tensor owns it: closing the tensor calls the producer's deleter, exactly once
     * (nothing when the deleter is NULL). CPU memory becomes a {@link HostBuffer} (read-only when the
     * producer set the read-only flag), CUDA host memory a pinned {@code HostBuffer}, every other
     * device an {@link ExternalBuffer}. The buffer spans exactly the bytes the shape and strides
     * reach.
     *
     * <p>When this throws, nothing was taken: the caller still owns the struct and calls its deleter.
     *
     * @param managed a pointer to a {@code DLManagedTensorVersioned} from a native producer; its size may
     *         be zero (it is reinterpreted to the struct's size)
     * @return a tensor that {@linkplain Tensor#ownsBuffer() owns} a buffer over the producer's memory;
     *         close it once to release the memory
     * @throws IllegalArgumentException for a NULL pointer, a major version other than 1, an unknown
     *                                  device or data type, vectors ({@code lanes != 1}), or a shape
     *                                  and strides that reach outside the address space
     * @throws NullPointerException     when {@code managed} is null
     */
    public static Tensor importTensor(MemorySegment managed) {
        MemorySegment m = struct(managed);
        String where = "DLManagedTensorVersioned at 0x" + Long.toHexString(m.address());
        int major = m.get(JAVA_INT, OFF_MAJOR);
        int minor = m.get(JAVA_INT, OFF_MINOR);
        if (major != VERSION_MAJOR) {
            throw new IllegalArgumentException(where + " has DLPack version " + Integer.toUnsignedString(major) + "."
                    + Integer.toUnsignedString(minor) + "; this reader supports " + VERSION_MAJOR + ".x");
        }
        int ndim = m.get(JAVA_INT, OFF_NDIM);
        if (ndim < 0 || ndim > MAX_IMPORT_RANK) {
            throw new IllegalArgumentException(where + " has ndim " + ndim + ", outside 0.." + MAX_IMPORT_RANK);
        }
        int code = Byte.toUnsignedInt(m.get(JAVA_BYTE, OFF_CODE));
        int bits = Byte.toUnsignedInt(m.get(JAVA_BYTE, OFF_BITS));
        int lanes = Short.toUnsignedInt(m.get(JAVA_SHORT, OFF_LANES));
        DataType dataType = dataType(where, code, bits, lanes);
        int deviceCode = m.get(JAVA_INT, OFF_DEVICE_TYPE);
        int deviceId = m.get(JAVA_INT, OFF_DEVICE_ID);
        DeviceType deviceType;
        try {
            deviceType = DeviceType.fromDlpackCode(deviceCode);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
        if (deviceId < 0) {
            throw new IllegalArgumentException(where + " has negative device_id " + deviceId);
        }
        Device device = new Device(deviceType, deviceId);

        long[] shape = readLongs(where, "shape", m.get(ADDRESS, OFF_SHAPE), ndim, true);
        long[] strides = readLongs(where, "strides", m.get(ADDRESS, OFF_STRIDES), ndim, false);
        for (long s : shape) {
            if (s < 0) {
                throw new IllegalArgumentException(where + " has a negative extent in shape " + Arrays.toString(shape));
            }
        }
        if (strides == null) {
            strides = Tensor.contiguousStrides(shape);
        }
        long data = m.get(ADDRESS, OFF_DATA).address();
        long byteOffset = m.get(JAVA_LONG, OFF_BYTE_OFFSET);
        if (byteOffset < 0) {
            throw new IllegalArgumentException(where + " has byte_offset " + Long.toUnsignedString(byteOffset)
                    + ", beyond the address space");
        }

        // The buffer covers exactly the reachable bytes; with negative strides they start before
        // data + byte_offset, and the tensor's offset into the buffer absorbs the difference.
        long base;
        long size;
        long offsetInBuffer;
        try {
            long lo = 0;
            long hi = 0;
            boolean empty = Tensor.elementCount(shape) == 0;
            if (!empty) {
                for (int i = 0; i < ndim; i++) {
                    long reach = Math.multiplyExact(shape[i] - 1, strides[i]);
                    if (reach < 0) {
                        lo = Math.addExact(lo, reach);
                    } else {
                        hi = Math.addExact(hi, reach);
                    }
                }
                lo = Math.multiplyExact(lo, (long) dataType.byteSize());
                hi = Math.multiplyExact(Math.addExact(hi, 1), (long) dataType.byteSize());
            }
            long shift = Math.min(0, Math.addExact(byteOffset, lo));
            base = Math.addExact(data, shift);
            offsetInBuffer = byteOffset - shift;
            size = empty ? 0 : Math.addExact(offsetInBuffer, hi);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(where + ": shape " + Arrays.toString(shape) + " with strides "
                    + Arrays.toString(strides) + " of " + dataType + " at byte_offset " + byteOffset
                    + " overflows a 64-bit address", e);
        }
        if (data == 0 && size > 0) {
            throw new IllegalArgumentException(where + " has NULL data for a non-empty " + dataType
                    + Arrays.toString(shape));
        }

        Runnable release = releaseAction(m);
        boolean readOnly = (m.get(JAVA_LONG, OFF_FLAGS) & FLAG_READ_ONLY) != 0;
        Buffer buffer = switch (deviceType) {
            case CPU, CUDA_HOST -> {
                MemorySegment seg = MemorySegment.ofAddress(base).reinterpret(size);
                yield HostBuffer.of(readOnly ? seg.asReadOnly() : seg,
                        deviceType == DeviceType.CPU ? MemoryKind.HOST : MemoryKind.HOST_PINNED, device, release);
            }
            case CUDA_MANAGED -> ExternalBuffer.of(base, size, device, MemoryKind.MANAGED, release);
            default -> ExternalBuffer.of(base, size, device, MemoryKind.DEVICE, release);
        };
        return Tensor.owning(buffer, offsetInBuffer, dataType, shape, strides);
    }

    private static Runnable releaseAction(MemorySegment m) {
        long deleter = m.get(ADDRESS, OFF_DELETER).address();
        if (deleter == 0) {
            return () -> { };
        }
        MemorySegment fn = MemorySegment.ofAddress(deleter);
        MemorySegment self = MemorySegment.ofAddress(m.address());
        AtomicBoolean called = new AtomicBoolean();
        return () -> {
            if (!called.compareAndSet(false, true)) {
                return;
            }
            try {
                CALL_DELETER.invokeExact(fn, self);
            } catch (Throwable t) {
                throw new IllegalStateException("DLPack deleter 0x" + Long.toHexString(deleter) + " of 0x"
                        + Long.toHexString(self.address()) + " failed", t);
            }
        };
    }

    private static DataType dataType(String where, int code, int bits, int lanes) {
        if (lanes != 1) {
            throw new IllegalArgumentException(where + " has dtype code " + code + " bits " + bits + " lanes " + lanes
                    + ": vector types (lanes != 1) are not supported");
        }
        if (bits > 0 && bits % 8 == 0) {
            for (DataType t : DataType.named()) {
                if (t.kind().dlpackCode() == code && t.byteSize() * 8 == bits) {
                    return t;
                }
            }
            if (code == DataType.Kind.RAW.dlpackCode()) {
                return DataType.raw(bits);
            }
        }
        throw new IllegalArgumentException(where + " has dtype code " + code + " bits " + bits + " lanes " + lanes
                + ", which matches no data type; supported: int (0) and uint (1) of 8-64 bits, float (2) of"
                + " 16-64 bits, complex (5) of 64 and 128 bits, bool (6) of 8 bits, opaque (3) of whole bytes");
    }

    private static long[] readLongs(String where, String field, MemorySegment ptr, int n, boolean required) {
        if (ptr.address() == 0) {
            if (required && n > 0) {
                throw new IllegalArgumentException(where + " has NULL " + field + " with ndim " + n);
            }
            return required ? new long[n] : null;
        }
        return ptr.reinterpret(8L * n).toArray(JAVA_LONG);
    }

    private static MemorySegment struct(MemorySegment managed) {
        Objects.requireNonNull(managed, "managed");
        if (managed.address() == 0) {
            throw new IllegalArgumentException("NULL DLManagedTensorVersioned pointer");
        }
        return managed.byteSize() >= MANAGED_SIZE ? managed : managed.reinterpret(MANAGED_SIZE);
    }

    private static long offset(MemoryLayout.PathElement... path) {
        return MANAGED_TENSOR_VERSIONED_LAYOUT.byteOffset(path);
    }
}
