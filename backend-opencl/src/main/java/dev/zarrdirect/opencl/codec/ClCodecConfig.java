package dev.zarrdirect.opencl.codec;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a codec's {@code configuration} (JSON values as {@link dev.zarrdirect.api.codec.CodecProvider}
 * passes them) with the same rules and messages as the CPU codecs, so that a configuration is
 * valid on one device exactly when it is valid on the other.
 */
public final class ClCodecConfig {

    private final String codec;
    private final Map<String, Object> values;

    private ClCodecConfig(String codec, Map<String, Object> values) {
        this.codec = codec;
        this.values = values;
    }

    /** A reader allowing only {@code known} fields; null reads as empty. */
    public static ClCodecConfig of(String codec, Map<String, Object> configuration, Set<String> known) {
        Map<String, Object> v = configuration == null ? Map.of() : configuration;
        for (String field : new TreeSet<>(v.keySet())) {
            if (!known.contains(field)) {
                throw new IllegalArgumentException("codec \"" + codec + "\": unknown configuration field \"" + field
                        + "\" (value " + describe(v.get(field)) + "); known fields are " + new TreeSet<>(known));
            }
        }
        return new ClCodecConfig(codec, v);
    }

    /** An integer field in {@code [min, max]}, or {@code fallback} when absent. */
    public long integer(String field, long min, long max, long fallback) {
        Object v = values.get(field);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte)
                || ((Number) v).longValue() < min || ((Number) v).longValue() > max) {
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

    public IllegalArgumentException bad(String field, Object value, String want) {
        return new IllegalArgumentException("codec \"" + codec + "\": configuration field \"" + field + "\" is "
                + describe(value) + ", must be " + want);
    }

    private static String describe(Object v) {
        if (v instanceof String s) {
            return "\"" + s + "\"";
        }
        return v == null ? "null" : v + " (" + v.getClass().getSimpleName() + ")";
    }
}
