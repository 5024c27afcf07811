// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.buffer;

import java.util.Locale;

/** Byte counts for people: {@code 64 MiB}, {@code 1.5 GiB}, {@code 812 B}. */
public final class Sizes {
    private Sizes() {
    }

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
