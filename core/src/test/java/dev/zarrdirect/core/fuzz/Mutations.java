// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Mutators for {@link Fuzz}: byte-level for binary formats, token-level for JSON documents. */
final class Mutations {

    private static final int[] INTERESTING = {0, 1, 0x7F, 0x80, 0xFF, 0xFE, 0x10, 0x40};
    private static final String[] JSON_VALUES = {"-1", "0", "1", "2147483648", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "1e308", "1e-308", "-0.0", "0.5", "NaN", "\"NaN\"",
        "\"Infinity\"", "null", "true", "[]", "{}", "[[]]", "\"\"", "\"\\u0000\"", "\"\\ud800\"",
        "\"0x7fc00000\"", "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]",
        "[4294967296, 4294967296, 4294967296]", "\"bytes\"", "\"sharding_indexed\"", "\"zstd\"", "\"blosc\"",
        "\"|S0\"", "\"<f8\"", "\"<U3\"", "\"r0\"", "\"int4\"", "{\"name\": \"bytes\"}"};
    private static final Pattern TOKEN = Pattern.compile("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?|\"(\\\\.|[^\"\\\\])*\"|true|false|null");

    private Mutations() {
    }

    /** One to four byte-level changes: flips, interesting bytes, cuts, duplicated or inserted runs. */
    static byte[] bytes(byte[] in, SplittableRandom r) {
        byte[] b = in.clone();
        for (int n = r.nextInt(1, 5); n > 0; n--) {
            if (b.length == 0) {
                return new byte[]{(byte) r.nextInt(256)};
            }
            switch (r.nextInt(7)) {
                case 0, 1 -> {
                    int bit = r.nextInt(8 * b.length);
                    b[bit / 8] ^= (byte) (1 << (bit % 8));
                }
                case 2 -> b[r.nextInt(b.length)] = (byte) INTERESTING[r.nextInt(INTERESTING.length)];
                case 3 -> b = Arrays.copyOf(b, r.nextInt(b.length));
                case 4 -> {
                    // a little-endian integer field set to an extreme
                    int at = r.nextInt(b.length);
                    long v = r.nextBoolean() ? -1L : r.nextBoolean() ? 0L : 1L << r.nextInt(63);
                    for (int k = 0; k < 8 && at + k < b.length; k++) {
                        b[at + k] = (byte) (v >>> (8 * k));
                    }
                }
                case 5 -> {
                    int from = r.nextInt(b.length);
                    int len = r.nextInt(1, Math.min(64, b.length - from) + 1);
                    int to = r.nextInt(b.length + 1);
                    byte[] c = new byte[b.length + len];
                    System.arraycopy(b, 0, c, 0, to);
                    System.arraycopy(b, from, c, to, len);
                    System.arraycopy(b, to, c, to + len, b.length - to);
                    b = c;
                }
                default -> {
                    int at = r.nextInt(b.length);
                    b[at] = (byte) r.nextInt(256);
                }
            }
        }
        return b;
    }

    /** {@link #bytes} aimed at the tail of the input (where a zip's central directory lies) three times in four. */
    static byte[] tail(byte[] in, SplittableRandom r) {
        if (in.length < 64 || r.nextInt(4) == 0) {
            return bytes(in, r);
        }
        int keep = in.length - r.nextInt(1, Math.min(in.length, 256));
        byte[] head = Arrays.copyOf(in, keep);
        byte[] t = bytes(Arrays.copyOfRange(in, keep, in.length), r);
        byte[] out = Arrays.copyOf(head, keep + t.length);
        System.arraycopy(t, 0, out, keep, t.length);
        return out;
    }

    /**
     * A JSON document with one to three values replaced by hostile ones (huge, negative,
     * fractional or mistyped numbers, odd strings, empty containers), sometimes wrapped in deep
     * nesting, and sometimes a byte-level change on top.
     */
    static byte[] json(byte[] in, SplittableRandom r) {
        String s = new String(in, StandardCharsets.UTF_8);
        for (int n = r.nextInt(1, 4); n > 0; n--) {
            Matcher m = TOKEN.matcher(s);
            java.util.List<int[]> spans = new java.util.ArrayList<>();
            while (m.find()) {
                spans.add(new int[]{m.start(), m.end()});
            }
            if (spans.isEmpty()) {
                break;
            }
            int[] t = spans.get(r.nextInt(spans.size()));
            s = s.substring(0, t[0]) + JSON_VALUES[r.nextInt(JSON_VALUES.length)] + s.substring(t[1]);
        }
        if (r.nextInt(20) == 0) {
            int depth = r.nextInt(100, 20_000);
            s = "[".repeat(depth) + s + "]".repeat(depth);
        }
        byte[] out = s.getBytes(StandardCharsets.UTF_8);
        return r.nextInt(4) == 0 ? bytes(out, r) : out;
    }
}
