// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.settings;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How the text of a setting becomes a value: a parser with the range or the values it accepts.
 * {@link #parse} throws {@link IllegalArgumentException} whose message is what was expected
 * ({@code an integer 1..64}); {@link Setting#parse} turns it into the full
 * {@link dev.zarrdirect.api.InvalidSettingException} message. Every type here trims the text
 * before parsing it; the types are immutable and safe to share.
 *
 * <p>The nested types {@link Ranged}, {@link Bool}, {@link OneOf} and {@link Text} and the helpers
 * {@link #enumOf}, {@link #parseBytes} and {@link #formatBytes} are public only because members of an
 * interface are; use the factory methods ({@link #intRange}, {@link #byteSize}, {@link #bool()},
 * {@link #oneOf}, {@link #text}).
 *
 * {@snippet :
 * SettingType<Long> size = SettingType.byteSize(1 << 20, 1L << 40);
 * size.parse("512m");          // 536870912
 * size.format(1L << 30);       // "1g"
 * size.parse("12");            // IllegalArgumentException: a byte size 1m..1024g (e.g. 65536, 512k, 64m, 1g)
 * }
 *
 * @param <T> the value's type
 */
public interface SettingType<T> {

    /**
     * Parses {@code text} (never null; not yet trimmed).
     *
     * @param text the text as given
     * @return the value
     * @throws IllegalArgumentException whose message is {@link #expected()}, when the text does not parse
     *         or is out of range
     */
    T parse(String text);

    /**
     * What the parser accepts, for messages and the reference table: {@code an integer 1..64}.
     *
     * @return a phrase that completes "expected …"
     */
    String expected();

    /**
     * The value as a user would write it (the inverse of {@link #parse}).
     *
     * @param value a value this type parses to
     * @return the text; by default {@link String#valueOf(Object)}
     */
    default String format(T value) {
        return String.valueOf(value);
    }

    /**
     * Integers from {@code min} to {@code max}, both included.
     *
     * @param min the smallest allowed value
     * @param max the largest allowed value; {@link Integer#MAX_VALUE} prints as an open range ({@code 1..})
     * @return the type; it accepts ASCII digits with an optional sign, nothing else
     */
    static SettingType<Integer> intRange(int min, int max) {
        return new Ranged<>("an integer", min, max, Integer::parseInt, t -> (int) (long) t, false);
    }

    /**
     * Longs from {@code min} to {@code max}, both included.
     *
     * @param min the smallest allowed value
     * @param max the largest allowed value; {@link Long#MAX_VALUE} prints as an open range
     * @return the type; it accepts ASCII digits with an optional sign, nothing else
     */
    static SettingType<Long> longRange(long min, long max) {
        return new Ranged<>("an integer", min, max, Long::parseLong, t -> t, false);
    }

    /**
     * A number of bytes from {@code min} to {@code max}: plain ({@code 65536}) or with a binary
     * suffix {@code k}, {@code m}, {@code g} ({@code 512m} is 512 MiB, {@code 1g} 1 GiB; {@code kb},
     * {@code mib}... also accepted). Overflowing values are rejected, not wrapped.
     *
     * @param min the smallest allowed size, in bytes
     * @param max the largest allowed size, in bytes
     * @return the type; it parses to a number of bytes and formats with the largest unit that divides
     *         the value ({@code 1g}, {@code 512m}, {@code 65536})
     */
    static SettingType<Long> byteSize(long min, long max) {
        return new Ranged<>("a byte size", min, max, SettingType::parseBytes, t -> t, true);
    }

    /**
     * {@code true} or {@code false} (any case); nothing else, not {@code yes} or {@code 1}.
     *
     * @return the type
     */
    static SettingType<Boolean> bool() {
        return Bool.INSTANCE;
    }

    /**
     * One of {@code values} (compared ignoring case; the value is the listed spelling).
     *
     * @param values the accepted spellings
     * @return the type
     */
    static SettingType<String> oneOf(String... values) {
        return new OneOf(List.of(values));
    }

    /**
     * Any text that is not blank, trimmed.
     *
     * @param what the phrase {@link #expected()} returns ({@code "a path"})
     * @return the type
     */
    static SettingType<String> text(String what) {
        return new Text(what, false);
    }

    /**
     * Any text, the empty text included (compiler options, where "" means none), trimmed.
     *
     * @param what the phrase {@link #expected()} returns
     * @return the type
     */
    static SettingType<String> anyText(String what) {
        return new Text(what, true);
    }

    /**
     * One constant of {@code type}, by name ignoring case ({@code SPIN} or {@code spin}).
     *
     * @param type the enum class
     * @param <E>  the enum type
     * @return the type; it formats constants in lower case (and null as {@code ""})
     */
    static <E extends Enum<E>> SettingType<E> enumOf(Class<E> type) {
        return new SettingType<>() {
            @Override
            public E parse(String text) {
                String t = text.trim();
                for (E e : type.getEnumConstants()) {
                    if (e.name().equalsIgnoreCase(t)) {
                        return e;
                    }
                }
                throw new IllegalArgumentException(expected());
            }

            @Override
            public String expected() {
                return "one of " + String.join(", ", Arrays.stream(type.getEnumConstants())
                        .map(e -> e.name().toLowerCase(Locale.ROOT)).toList());
            }

            @Override
            public String format(E value) {
                return value == null ? "" : value.name().toLowerCase(Locale.ROOT);
            }
        };
    }

    /**
     * {@code 512m} as 536870912.
     *
     * @param text the size: an optionally signed integer with an optional unit {@code b}, {@code k},
     *         {@code kb}, {@code kib}, {@code m}, … {@code gib} (any case, binary: {@code kb} is 1024)
     * @return the number of bytes
     * @throws NumberFormatException for an unknown unit or a number that is not an integer
     * @throws ArithmeticException   when the value overflows a {@code long}
     */
    static long parseBytes(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        int end = t.length();
        while (end > 0 && Character.isLetter(t.charAt(end - 1))) {
            end--;
        }
        String unit = t.substring(end);
        int shift = switch (unit) {
            case "", "b" -> 0;
            case "k", "kb", "kib" -> 10;
            case "m", "mb", "mib" -> 20;
            case "g", "gb", "gib" -> 30;
            default -> throw new NumberFormatException("unknown unit \"" + unit + "\"");
        };
        String digits = t.substring(0, end).trim();
        if (!digits.matches("-?[0-9]+")) {
            throw new NumberFormatException("not a number: \"" + digits + "\"");
        }
        long n = Long.parseLong(digits);
        if (shift > 0 && (n > (Long.MAX_VALUE >> shift) || n < (Long.MIN_VALUE >> shift))) {
            throw new ArithmeticException("overflow");
        }
        return n << shift;
    }

    /**
     * {@code 1073741824} as {@code 1g}: the largest binary unit that divides it; 0 and values no
     * unit divides print as plain digits.
     *
     * @param v a number of bytes
     * @return the text {@link #parseBytes} reads back
     */
    static String formatBytes(long v) {
        if (v != 0 && v % (1L << 30) == 0) return v / (1L << 30) + "g";
        if (v != 0 && v % (1L << 20) == 0) return v / (1L << 20) + "m";
        if (v != 0 && v % (1L << 10) == 0) return v / (1L << 10) + "k";
        return Long.toString(v);
    }

    /**
     * A number between two bounds; the bounds print as {@code 1..64}, {@code 0..} when the top is the type's maximum.
     * Made by {@link #intRange}, {@link #longRange} and {@link #byteSize}.
     *
     * @param what   the noun phrase of messages ({@code "an integer"}, {@code "a byte size"})
     * @param min    the smallest allowed value
     * @param max    the largest allowed value; {@link Integer#MAX_VALUE} or {@link Long#MAX_VALUE}
     *               prints as an open range
     * @param parser text to a {@link Number}; may throw {@link NumberFormatException} or {@link ArithmeticException}
     * @param box    the checked value to the setting's type
     * @param bytes  whether values are byte sizes (parsed and printed with units)
     * @param <T>    the value's type
     */
    record Ranged<T extends Comparable<T>>(String what, long min, long max, java.util.function.Function<String, ?> parser,
                                           java.util.function.Function<Long, T> box, boolean bytes)
            implements SettingType<T> {

        @Override
        public T parse(String text) {
            String t = text.trim();
            long v;
            try {
                if (!bytes && !t.matches("[+-]?[0-9]+")) {
                    // Integer.parseInt also takes other scripts' digits ("٣"); settings are ASCII
                    throw new NumberFormatException(t);
                }
                Object p = parser.apply(t);
                v = ((Number) p).longValue();
            } catch (NumberFormatException | ArithmeticException e) {
                throw new IllegalArgumentException(expected());
            }
            if (v < min || v > max) {
                throw new IllegalArgumentException(expected());
            }
            return box.apply(v);
        }

        @Override
        public String expected() {
            String top = max == Long.MAX_VALUE || max == Integer.MAX_VALUE ? "" : bound(max);
            return what + " " + bound(min) + ".." + top + (bytes ? " (e.g. 65536, 512k, 64m, 1g)" : "");
        }

        private String bound(long v) {
            return bytes ? formatBytes(v) : Long.toString(v);
        }

        @Override
        public String format(T value) {
            return bytes ? formatBytes(((Number) value).longValue()) : String.valueOf(value);
        }
    }

    /** {@link #bool()}: {@code true} or {@code false}, any case. */
    enum Bool implements SettingType<Boolean> {
        /** The only instance. */
        INSTANCE;

        @Override
        public Boolean parse(String text) {
            String t = text.trim();
            if (t.equalsIgnoreCase("true")) return true;
            if (t.equalsIgnoreCase("false")) return false;
            throw new IllegalArgumentException(expected());
        }

        @Override
        public String expected() {
            return "true or false";
        }
    }

    /**
     * {@link #oneOf}: one of a list of spellings, compared ignoring case.
     *
     * @param values the accepted spellings, in the order messages list them
     */
    record OneOf(List<String> values) implements SettingType<String> {
        @Override
        public String parse(String text) {
            String t = text.trim();
            return values.stream().filter(v -> v.equalsIgnoreCase(t)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(expected()));
        }

        @Override
        public String expected() {
            return "one of " + String.join(", ", values);
        }
    }

    /**
     * {@link #text} and {@link #anyText}: trimmed text.
     *
     * @param what       the phrase {@link #expected()} returns
     * @param allowEmpty whether empty (or blank) text is accepted, as the empty string
     */
    record Text(String what, boolean allowEmpty) implements SettingType<String> {
        /**
         * Checks the components.
         *
         * @throws NullPointerException when {@code what} is null
         */
        public Text {
            Objects.requireNonNull(what);
        }

        @Override
        public String parse(String text) {
            String t = text.trim();
            if (t.isEmpty() && !allowEmpty) {
                throw new IllegalArgumentException(expected());
            }
            return t;
        }

        @Override
        public String expected() {
            return what;
        }

        @Override
        public String format(String value) {
            return value == null ? "" : value;
        }
    }
}
