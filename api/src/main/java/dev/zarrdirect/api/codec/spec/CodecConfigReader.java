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
 * Immutable once made; it does not copy the configuration map.
 *
 * {@snippet :
 * CodecConfigReader c = CodecConfigReader.of("zstd", configuration, Set.of("level", "checksum"));
 * long level = c.integer("level", -131072, 22, 0);
 * boolean checksum = c.bool("checksum", false);
 * }
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
     * @param codec         the codec's name, for messages
     * @param configuration the {@code configuration} object from the metadata, or null; not copied, so
     *                      it must not change while the reader is used
     * @param known         the field names the codec defines
     * @return the reader
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

    /**
     * The codec's name, as the messages give it.
     *
     * @return the name given to {@link #of}
     */
    public String codec() {
        return codec;
    }

    /**
     * Whether {@code field} is present and not null.
     *
     * @param field the field's name
     * @return true when the field is present with a non-null value
     */
    public boolean has(String field) {
        return values.get(field) != null;
    }

    /**
     * An integer field in {@code [min, max]}, or {@code fallback} when absent.
     *
     * @param field    the field's name
     * @param min      the smallest allowed value
     * @param max      the largest allowed value
     * @param fallback the value when the field is absent or null (not checked against the bounds)
     * @return the value
     * @throws IllegalArgumentException when the value is not an integer (a JSON {@code 3.0} is not) or
     *                                  lies outside the bounds
     */
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

    /**
     * A boolean field, or {@code fallback} when absent.
     *
     * @param field    the field's name
     * @param fallback the value when the field is absent or null
     * @return the value
     * @throws IllegalArgumentException when the value is not a {@link Boolean}
     */
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

    /**
     * A string field that is one of {@code allowed}, or null when absent.
     *
     * @param field   the field's name
     * @param allowed the accepted strings, compared case-sensitively
     * @return the value, or null when absent
     * @throws IllegalArgumentException when the value is not a string or not one of {@code allowed}
     */
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

    /**
     * A required list field.
     *
     * @param field the field's name
     * @return the list as given (not copied, elements unchecked)
     * @throws IllegalArgumentException when the field is absent, null or not a {@link List}
     */
    public List<?> list(String field) {
        Object v = values.get(field);
        if (v instanceof List<?> l) {
            return l;
        }
        throw v == null ? new IllegalArgumentException("codec \"" + codec + "\": configuration field \"" + field
                + "\" is required") : bad(field, v, "a list");
    }

    /**
     * An {@link IllegalArgumentException} saying that {@code field} holds {@code value} but must be {@code want}.
     *
     * @param field the field's name
     * @param value the value found, described in the message (strings quoted, others with their type)
     * @param want  what the field must be, as a phrase ({@code "an integer from 1 to 22"})
     * @return the exception, for the caller to throw
     */
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
