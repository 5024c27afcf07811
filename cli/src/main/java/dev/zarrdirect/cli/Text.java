package dev.zarrdirect.cli;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/** Small text formatting shared by the commands. */
final class Text {

    private Text() {
    }

    /** JSON on one line: {@code {"level": 3, "checksum": false}}. */
    static String compactJson(Object v) {
        StringBuilder sb = new StringBuilder();
        append(sb, v);
        return sb.toString();
    }

    private static void append(StringBuilder sb, Object v) {
        switch (v) {
            case null -> sb.append("null");
            case String s -> quote(sb, s);
            case Map<?, ?> m -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) {
                        sb.append(", ");
                    }
                    first = false;
                    quote(sb, String.valueOf(e.getKey()));
                    sb.append(": ");
                    append(sb, e.getValue());
                }
                sb.append('}');
            }
            case Collection<?> c -> {
                sb.append('[');
                boolean first = true;
                for (Object o : c) {
                    if (!first) {
                        sb.append(", ");
                    }
                    first = false;
                    append(sb, o);
                }
                sb.append(']');
            }
            default -> sb.append(v);
        }
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
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
