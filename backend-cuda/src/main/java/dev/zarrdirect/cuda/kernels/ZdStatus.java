// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.kernels;

/**
 * The status words the kernels write, one per chunk, as {@code zstd/zd_status.h} defines them: a
 * view of the kernels module's {@link dev.zarrdirect.kernels.ZdStatus} (kept equal to the header
 * by its test) for the int words this backend reads back. 0 is success; 1 to 31 and 64 to 95 mean
 * the input is not valid; 32 to 63 are caller errors (35: a split deflate stream to decode serially).
 */
public final class ZdStatus {

    public static final int OK = dev.zarrdirect.kernels.ZdStatus.OK.code();
    public static final int CORRUPT_TRUNCATED = dev.zarrdirect.kernels.ZdStatus.CORRUPT_TRUNCATED.code();
    public static final int CORRUPT_CHECKSUM = dev.zarrdirect.kernels.ZdStatus.CORRUPT_CHECKSUM.code();
    public static final int SCRATCH_TOO_SMALL = dev.zarrdirect.kernels.ZdStatus.SCRATCH_TOO_SMALL.code();
    public static final int BAD_ARGUMENT = dev.zarrdirect.kernels.ZdStatus.BAD_ARGUMENT.code();
    public static final int BLOSC_CODEC_UNSUPPORTED = dev.zarrdirect.kernels.ZdStatus.BLOSC_CODEC_UNSUPPORTED.code();
    public static final int BLOSC_BLOCK_TOO_LARGE = dev.zarrdirect.kernels.ZdStatus.BLOSC_BLOCK_TOO_LARGE.code();
    public static final int BLOSC_VERSION_UNSUPPORTED = dev.zarrdirect.kernels.ZdStatus.BLOSC_VERSION_UNSUPPORTED.code();
    public static final int CORRUPT_OUTPUT_OVERFLOW = dev.zarrdirect.kernels.ZdStatus.CORRUPT_OUTPUT_OVERFLOW.code();
    public static final int INFLATE_SPLIT_SERIAL = dev.zarrdirect.kernels.ZdStatus.INFLATE_SPLIT_SERIAL.code();

    private ZdStatus() {
    }

    private static dev.zarrdirect.kernels.ZdStatus of(int status) {
        try {
            return dev.zarrdirect.kernels.ZdStatus.of(status);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** {@code ZD_STATUS_CORRUPT_TRUNCATED} for 1; {@code ZD_STATUS_<n>} for a word the header does not define. */
    public static String name(int status) {
        var s = of(status);
        return "ZD_STATUS_" + (s != null ? s.name() : Integer.toUnsignedString(status));
    }

    /** What the status means, in words. */
    public static String text(int status) {
        var s = of(status);
        return s != null ? s.description() : "unknown status";
    }

    /** True for the statuses that blame the input (1 to 31 and 64 to 95). */
    public static boolean corrupt(int status) {
        return (status >= 1 && status < 32) || (status >= 64 && status < 96);
    }
}
