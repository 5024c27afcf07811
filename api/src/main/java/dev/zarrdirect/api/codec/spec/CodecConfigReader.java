// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a codec's {@code configuration} object (JSON values as the {@link
 * dev.zarrdirect.api.codec.CodecProvider} contract passes them) and rejects what does not fit,
 * with messages that name the codec, the field and the value. Integers are {@link Long},
 * {@link Integer}, {@link Short} or {@link Byte}; a field holding JSON {@code null} reads as absent.
 */
public final class CodecConfigReader {

    private final String codec;
    private final Map<String, Object> values;

    private CodecConfigReader(String codec, Map<String, Object> values) {
        this.codec = codec;
        this.values = values;
    }

    /**
     * A reader for {@code configuration} (null reads as empty) that allows only {@code known} fields.
     *
     * @throws IllegalArgumentException naming the first unknown field (in sorted order) and the known ones
     */
    public static CodecConfigReader of(String codec, Map<String, Object> configuration, Set<String> known) {
        Map<String, Object> values = configuration == null ? Map.of() : configuration;
        for (String field : new TreeSet<>(values.keySet())) {
            if (!known.contains(field)) {
                throw new IllegalArgumentException("codec \"" + codec + "\": unknown configuration field \""
                        + field + "\" (value " + describe(values.get(field)) + "); known fields are "
                        + new TreeSet<>(known));
            }
        }
        return new CodecConfigReader(codec, values);
    }

    /** The codec's name, as the messages give it. */
    public String codec() {
        return codec;
    }

    /** Whether {@code field} is present and not null. */
    public boolean has(String field) {
        return values.get(field) != null;
    }

    /** An integer field in {@code [min, max]}, or {@code fallback} when absent. */
    public long integer(String field, long min, long max, long fallback) {
        Object v = values.get(field);
        if (v == null) {
            return fallback;
        }
        if (!isInteger(v) || ((Number) v).longValue() < min || ((Number) v).longValue() > max) {
            throw bad(field, v, "an integer from " + min + " to " + max);
        }
        return ((Number) v).longValue();
    }

    /** A boolean field, or {@code fallback} when absent. */
    public boolean bool(String field, boolean fallback) {
        Object v = values.get(field);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw bad(field, v, "true or false");
    }

    /** A string field that is one of {@code allowed}, or null when absent. */
    public String choice(String field, Set<String> allowed) {
        Object v = values.get(field);
        if (v == null) {
            return null;
        }
        if (v instanceof String s && allowed.contains(s)) {
            return s;
        }
        throw bad(field, v, "one of " + new TreeSet<>(allowed));
    }

    /** A required list field. */
    public List<?> list(String field) {
        Object v = values.get(field);
        if (v instanceof List<?> l) {
            return l;
        }
        throw v == null ? new IllegalArgumentException("codec \"" + codec + "\": configuration field \"" + field
                + "\" is required") : bad(field, v, "a list");
    }

    /** An {@link IllegalArgumentException} saying that {@code field} holds {@code value} but must be {@code want}. */
    public IllegalArgumentException bad(String field, Object value, String want) {
        return new IllegalArgumentException("codec \"" + codec + "\": configuration field \"" + field + "\" is "
                + describe(value) + ", must be " + want);
    }

    /** Whether {@code v} is a JSON integer as the reader accepts one. */
    static boolean isInteger(Object v) {
        return v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte;
    }

    private static String describe(Object v) {
        if (v instanceof String s) {
            return "\"" + s + "\"";
        }
        return v == null ? "null" : v + " (" + v.getClass().getSimpleName() + ")";
    }
}
