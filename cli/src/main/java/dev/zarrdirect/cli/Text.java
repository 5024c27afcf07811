// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import java.util.Locale;

/** Small text formatting shared by the commands. */
final class Text {

    private Text() {
    }

    /**
     * {@code s} made safe to print to a terminal: control characters (C0 including newline, carriage
     * return and tab; DEL; C1) and the bidirectional overrides and isolates (U+202A..U+202E,
     * U+2066..U+2069) become visible escapes: {@code \n}, {@code \r}, {@code \t}, otherwise
     * {@code \u001b}-style, which inside a JSON string still reads as the same character. A name
     * from a store can then neither move the cursor, recolour the screen, reorder the text, nor
     * start a line of its own (and so forge, say, a {@code sha256} line). Every string that comes
     * from a store (names, keys, paths, attributes, messages that quote them) goes through this
     * before it is printed for people; JSON output is escaped by the JSON writer instead.
     */
    static String escape(String s) {
        if (s == null) {
            return "null";
        }
        int i = 0;
        while (i < s.length() && !needsEscape(s.charAt(i))) {
            i++;
        }
        if (i == s.length()) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length() + 16).append(s, 0, i);
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!needsEscape(c)) {
                b.append(c);
            } else if (c == '\n') {
                b.append("\\n");
            } else if (c == '\r') {
                b.append("\\r");
            } else if (c == '\t') {
                b.append("\\t");
            } else {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            }
        }
        return b.toString();
    }

    private static boolean needsEscape(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
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
