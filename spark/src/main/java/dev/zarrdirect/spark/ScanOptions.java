// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import java.io.Serial;
import java.io.Serializable;
import java.util.Map;

/**
 * The scan's tuning options, checked when the scan is built.
 *
 * @param partitionBytes the bytes of variables (decoded) one partition covers at most, unless one
 *                       unit alone is larger: option {@code partitionBytes}, default 128 MiB
 * @param batchRows      the rows of one columnar batch: option {@code batchRows}, default 65536
 */
record ScanOptions(long partitionBytes, int batchRows) implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    static final long DEFAULT_PARTITION_BYTES = 128L << 20;
    static final int DEFAULT_BATCH_ROWS = 1 << 16;

    static ScanOptions of(Map<String, String> options) {
        return new ScanOptions(positive(options, "partitionBytes", DEFAULT_PARTITION_BYTES, Long.MAX_VALUE),
                (int) positive(options, "batchRows", DEFAULT_BATCH_ROWS, 1 << 24));
    }

    private static long positive(Map<String, String> options, String name, long fallback, long most) {
        String text = options.get(name);
        if (text == null) {
            return fallback;
        }
        try {
            long v = Long.parseLong(text.trim());
            if (v >= 1 && v <= most) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("option " + name + " = \"" + text + "\": expected an integer 1.." + most);
    }
}
