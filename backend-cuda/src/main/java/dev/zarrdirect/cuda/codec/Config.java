package dev.zarrdirect.cuda.codec;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Reads a codec's {@code configuration} (JSON values) and rejects what does not fit, naming codec, field and value. */
final class Config {

    private final String codec;
    private final Map<String, Object> values;

    private Config(String codec, Map<String, Object> values) {
        this.codec = codec;
        this.values = values;
    }

    static Config of(String codec, Map<String, Object> configuration, Set<String> known) {
        Map<String, Object> values = configuration == null ? Map.of() : configuration;
        for (String field : new TreeSet<>(values.keySet())) {
            if (!known.contains(field)) {
                throw new IllegalArgumentException("codec \"" + codec + "\": unknown configuration field \"" + field
                        + "\" (value " + describe(values.get(field)) + "); known fields are " + new TreeSet<>(known));
            }
        }
        return new Config(codec, values);
    }

    long integer(String field, long min, long max, long fallback) {
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

    boolean bool(String field, boolean fallback) {
        Object v = values.get(field);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw bad(field, v, "true or false");
    }

    String choice(String field, Set<String> allowed) {
        Object v = values.get(field);
        if (v == null) {
            return null;
        }
        if (v instanceof String s && allowed.contains(s)) {
            return s;
        }
        throw bad(field, v, "one of " + new TreeSet<>(allowed));
    }

    List<?> list(String field) {
        Object v = values.get(field);
        if (v instanceof List<?> l) {
            return l;
        }
        throw v == null ? new IllegalArgumentException("codec \"" + codec + "\": configuration field \"" + field
                + "\" is required") : bad(field, v, "a list");
    }

    IllegalArgumentException bad(String field, Object value, String want) {
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
