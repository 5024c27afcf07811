// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import java.util.Map;
import java.util.function.IntFunction;

import static java.util.Map.entry;

/**
 * Names and short meanings for the codes cuFile returns: {@code CUfileOpError} (5001 … 5050, from
 * the {@code CUfileOpError} enum of NVIDIA's public cuFile API reference, {@code cufile.h}) and the
 * few {@code errno} values a cuFile read or an {@code open} reports. Every cuFile error message of
 * this package goes through {@link #describe(int, int, IntFunction)}:
 * {@code CU_FILE_HANDLE_NOT_REGISTERED (5027): file descriptor is not registered}. Pure functions.
 */
public final class CuFileErrors {

    /** A code's enumerator name and what it means. */
    public record Code(String name, String meaning) {
    }

    /** {@code CUfileOpError} values; 5032 is unassigned, 5021 exists only in older headers. */
    private static final Map<Integer, Code> OP_ERRORS = Map.ofEntries(
            op(0, "CU_FILE_SUCCESS", "success"),
            op(5001, "CU_FILE_DRIVER_NOT_INITIALIZED", "nvidia-fs driver is not loaded"),
            op(5002, "CU_FILE_DRIVER_INVALID_PROPS", "invalid driver property"),
            op(5003, "CU_FILE_DRIVER_UNSUPPORTED_LIMIT", "driver property out of range"),
            op(5004, "CU_FILE_DRIVER_VERSION_MISMATCH", "nvidia-fs driver version does not match libcufile"),
            op(5005, "CU_FILE_DRIVER_VERSION_READ_ERROR", "cannot read the nvidia-fs driver version"),
            op(5006, "CU_FILE_DRIVER_CLOSING", "driver shutdown in progress"),
            op(5007, "CU_FILE_PLATFORM_NOT_SUPPORTED", "GPUDirect Storage is not supported on this platform"),
            op(5008, "CU_FILE_IO_NOT_SUPPORTED", "GPUDirect Storage is not supported for this file"),
            op(5009, "CU_FILE_DEVICE_NOT_SUPPORTED", "GPUDirect Storage is not supported on this GPU"),
            op(5010, "CU_FILE_NVFS_DRIVER_ERROR", "nvidia-fs driver ioctl failed"),
            op(5011, "CU_FILE_CUDA_DRIVER_ERROR", "CUDA driver API call failed (see the CUresult)"),
            op(5012, "CU_FILE_CUDA_POINTER_INVALID", "invalid device pointer"),
            op(5013, "CU_FILE_CUDA_MEMORY_TYPE_INVALID", "pointer is not to a supported memory type"),
            op(5014, "CU_FILE_CUDA_POINTER_RANGE_ERROR", "pointer range runs past its allocation"),
            op(5015, "CU_FILE_CUDA_CONTEXT_MISMATCH", "CUDA context of the pointer is not the current one"),
            op(5016, "CU_FILE_INVALID_MAPPING_SIZE", "access beyond the maximum pinned size"),
            op(5017, "CU_FILE_INVALID_MAPPING_RANGE", "access beyond the mapped size"),
            op(5018, "CU_FILE_INVALID_FILE_TYPE", "unsupported file type"),
            op(5019, "CU_FILE_INVALID_FILE_OPEN_FLAG", "unsupported file open flags"),
            op(5020, "CU_FILE_DIO_NOT_SET", "file descriptor is not opened with O_DIRECT"),
            op(5021, "CU_FILE_EXPECTED_FILE_MODE", "file mode not as expected (older cufile.h)"),
            op(5022, "CU_FILE_INVALID_VALUE", "invalid argument"),
            op(5023, "CU_FILE_MEMORY_ALREADY_REGISTERED", "device memory is already registered"),
            op(5024, "CU_FILE_MEMORY_NOT_REGISTERED", "device memory is not registered (pointer lookup failed)"),
            op(5025, "CU_FILE_PERMISSION_DENIED", "driver or file access denied"),
            op(5026, "CU_FILE_DRIVER_ALREADY_OPEN", "driver is already open"),
            op(5027, "CU_FILE_HANDLE_NOT_REGISTERED", "file descriptor is not registered"),
            op(5028, "CU_FILE_HANDLE_ALREADY_REGISTERED", "file descriptor is already registered"),
            op(5029, "CU_FILE_DEVICE_NOT_FOUND", "GPU device not found"),
            op(5030, "CU_FILE_INTERNAL_ERROR", "internal error in libcufile"),
            op(5031, "CU_FILE_GETNEWFD_FAILED", "cannot obtain a new file descriptor"),
            op(5033, "CU_FILE_NVFS_SETUP_ERROR", "nvidia-fs driver initialisation failed"),
            op(5034, "CU_FILE_IO_DISABLED", "GPUDirect Storage is disabled by configuration for this file"),
            op(5035, "CU_FILE_BATCH_SUBMIT_FAILED", "batch operation could not be submitted"),
            op(5036, "CU_FILE_GPU_MEMORY_PINNING_FAILED", "GPU memory could not be pinned (BAR space)"),
            op(5037, "CU_FILE_BATCH_FULL", "batch queue is full"),
            op(5038, "CU_FILE_ASYNC_NOT_SUPPORTED", "stream (asynchronous) operation is not supported"),
            op(5039, "CU_FILE_INTERNAL_BATCH_SETUP_ERROR", "internal error setting up a batch"),
            op(5040, "CU_FILE_INTERNAL_BATCH_SUBMIT_ERROR", "internal error submitting a batch"),
            op(5041, "CU_FILE_INTERNAL_BATCH_GETSTATUS_ERROR", "internal error polling a batch"),
            op(5042, "CU_FILE_INTERNAL_BATCH_CANCEL_ERROR", "internal error cancelling a batch"),
            op(5043, "CU_FILE_NOMEM_ERROR", "out of host memory"),
            op(5044, "CU_FILE_IO_ERROR", "I/O error"),
            op(5045, "CU_FILE_INTERNAL_BUF_REGISTER_ERROR", "internal buffer registration failed"),
            op(5046, "CU_FILE_HASH_OPR_ERROR", "internal hash table operation failed"),
            op(5047, "CU_FILE_INVALID_CONTEXT_ERROR", "invalid CUDA context"),
            op(5048, "CU_FILE_NVFS_INTERNAL_DRIVER_ERROR", "internal nvidia-fs driver error"),
            op(5049, "CU_FILE_BATCH_NOCOMPAT_ERROR", "batch I/O is not available in compatibility mode"),
            op(5050, "CU_FILE_IO_MAX_ERROR", "end of the error range (not a real error)"));

    /** The Linux (asm-generic) errno values that file opens and cuFile reads report. */
    private static final Map<Integer, Code> ERRNOS = Map.ofEntries(
            op(1, "EPERM", "operation not permitted"),
            op(2, "ENOENT", "no such file or directory"),
            op(5, "EIO", "I/O error"),
            op(9, "EBADF", "bad file descriptor"),
            op(11, "EAGAIN", "try again"),
            op(12, "ENOMEM", "out of memory"),
            op(13, "EACCES", "permission denied"),
            op(14, "EFAULT", "bad address"),
            op(16, "EBUSY", "device or resource busy"),
            op(19, "ENODEV", "no such device"),
            op(21, "EISDIR", "is a directory"),
            op(22, "EINVAL", "invalid argument (for O_DIRECT: unsupported by the file system, or misaligned)"),
            op(24, "EMFILE", "too many open files"),
            op(27, "EFBIG", "file too large"),
            op(28, "ENOSPC", "no space left on device"),
            op(30, "EROFS", "read-only file system"),
            op(38, "ENOSYS", "function not implemented"),
            op(95, "EOPNOTSUPP", "operation not supported"));

    private static Map.Entry<Integer, Code> op(int code, String name, String meaning) {
        return entry(code, new Code(name, meaning));
    }

    private CuFileErrors() {
    }

    /** The {@code CUfileOpError} named {@code code}, or null for a code the table does not know. */
    public static Code opError(int code) {
        return OP_ERRORS.get(code);
    }

    /** {@code CU_FILE_HANDLE_NOT_REGISTERED (5027): file descriptor is not registered}. */
    public static String describe(int err) {
        Code c = OP_ERRORS.get(err);
        return c == null ? "CUfileOpError " + err + " (unknown to this table)" : c.name() + " (" + err + "): " + c.meaning();
    }

    /**
     * A {@code CUfileError_t}: {@link #describe(int)} of {@code err}, then, when {@code cuErr} is
     * non-zero, the {@code CUresult} as {@code cuResultName} names it
     * ({@code "; CUresult CUDA_ERROR_INVALID_VALUE (1)"}).
     */
    public static String describe(int err, int cuErr, IntFunction<String> cuResultName) {
        String s = describe(err);
        if (cuErr != 0) {
            String n = cuResultName == null ? null : cuResultName.apply(cuErr);
            s += "; CUresult " + (n == null || n.isBlank() || n.equals("CUresult " + cuErr) ? String.valueOf(cuErr)
                    : n + " (" + cuErr + ")");
        }
        return s;
    }

    /** {@code errno 22 (EINVAL: invalid argument …)}; unknown values as {@code errno 77}. */
    public static String errno(int errno) {
        Code c = ERRNOS.get(errno);
        return c == null ? "errno " + errno : "errno " + errno + " (" + c.name() + ": " + c.meaning() + ")";
    }

    /**
     * A negative {@code cuFileRead} result: {@code -1} is a system error whose {@code errno} is
     * {@code errno}, anything else is {@code -CUfileOpError}.
     */
    public static String readResult(long r, int errno) {
        return r == -1 ? errno(errno) : describe((int) -r);
    }
}
