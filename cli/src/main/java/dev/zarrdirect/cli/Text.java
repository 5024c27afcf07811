// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import java.util.Locale;

/** Small text formatting shared by the commands. */
final class Text {

    private Text() {
    }

    /** JSON on one line: {@code {"level": 3, "checksum": false}}. */
    static String compactJson(Object v) {
        return dev.zarrdirect.core.json.Json.compactLine(v);
    }

    /** {@code 104,256,000 bytes (99.4 MiB)}. */
    static String bytes(long n) {
        return String.format(Locale.ROOT, "%,d bytes (%s)", n, human(n));
    }

    /** {@code 99.4 MiB}. */
    static String human(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /** Decimal gigabytes per second, as disks and links are rated. */
    static String gbPerSecond(long bytes, long nanos) {
        return String.format(Locale.ROOT, "%.2f GB/s", bytes / Math.max(1.0, nanos));
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}
