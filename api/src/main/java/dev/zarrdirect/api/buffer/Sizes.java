// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import java.util.Locale;

/**
 * Byte counts for people: {@code 64 MiB}, {@code 1.5 GiB}, {@code 812 B}, in binary units
 * (1 KiB = 1024 bytes), as messages and {@code toString()} methods print them.
 */
public final class Sizes {
    private Sizes() {
    }

    /**
     * Formats a byte count with the largest binary unit (up to PiB) that keeps the number at least 1:
     * a whole number when the value in that unit is whole, else one decimal, rounded
     * ({@code 1536} is {@code 1.5 KiB}, {@code 1048575} is {@code 1024.0 KiB}). Counts below 1024,
     * negative ones included, print as {@code <n> B}.
     *
     * @param bytes the count, in bytes
     * @return the text, with a dot as decimal separator whatever the locale
     */
    public static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return (v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f %s", v, units[u])
                : String.format(Locale.ROOT, "%.1f %s", v, units[u]));
    }
}
