// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import dev.zarrdirect.api.InvalidMetadataException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads and writes JSON as plain Java values, and checks the type of single fields. See the
 * package documentation for the value model.
 */
public final class Json {

    private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    // Python's json module writes bare NaN/Infinity into attributes; zarr-python reads them back,
    // so we read them too (and never write them).
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    private Json() {
    }

    /** Parses a whole document; errors name no document. Prefer {@link #parse(String, String)}. */
    public static Object parse(String text) {
        return parse(text, "JSON document");
    }

    /**
     * Parses a whole document into the plain value model.
     *
     * @param source names the document in error messages, such as {@code "t2m/zarr.json"}
     * @throws JsonException on malformed JSON, duplicate keys or content after the first value
     */
    public static Object parse(String text, String source) {
        if (text == null) {
            throw new IllegalArgumentException("no JSON text given for " + source);
        }
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new JsonException(source + " is empty: expected a JSON value", 1, 1, null);
            }
            Object value = readValue(p);
            if (p.nextToken() != null) {
                JsonLocation at = p.currentTokenLocation();
                throw new JsonException(source + " has content after the JSON value at line " + at.getLineNr()
                        + ", column " + at.getColumnNr(), at.getLineNr(), at.getColumnNr(), null);
            }
            return value;
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            int line = at == null ? -1 : at.getLineNr();
            int column = at == null ? -1 : at.getColumnNr();
            throw new JsonException(source + " is not valid JSON at line " + line + ", column " + column + ": "
                    + e.getOriginalMessage(), line, column, e);
        } catch (IOException e) {
            // Reading from a String cannot fail with I/O; anything else is a parser bug.
            throw new UncheckedIOException("reading JSON of " + source, e);
        }
    }

    private static Object readValue(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT -> {
                LinkedHashMap<String, Object> map = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    map.put(name, readValue(p));
                }
                return map;
            }
            case START_ARRAY -> {
                ArrayList<Object> list = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    list.add(readValue(p));
                }
                return list;
            }
            case VALUE_STRING -> {
                return p.getText();
            }
            case VALUE_NUMBER_INT -> {
                return switch (p.getNumberType()) {
                    case INT, LONG -> p.getLongValue();
                    default -> normalize(p.getBigIntegerValue());
                };
            }
            case VALUE_NUMBER_FLOAT -> {
                return p.getDoubleValue();
            }
            case VALUE_TRUE -> {
                return Boolean.TRUE;
            }
            case VALUE_FALSE -> {
                return Boolean.FALSE;
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> throw new IllegalStateException("unexpected JSON token " + t + " at " + p.currentLocation());
        }
    }

    private static Object normalize(BigInteger b) {
        return b.compareTo(LONG_MIN) >= 0 && b.compareTo(LONG_MAX) <= 0 ? (Object) b.longValueExact() : b;
    }

    /**
     * Writes a value of the plain model (also accepting other {@code Number}s, any {@code Map} with
     * string keys and any {@code Collection}) as JSON: objects one member per line with a two-space
     * indent and keys in iteration order, arrays of scalars on one line, a newline at the end.
     *
     * @throws IllegalArgumentException for NaN or infinite numbers (write them as the strings
     *                                  {@code "NaN"}, {@code "Infinity"}), non-string keys or values
     *                                  outside the model
     */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder(256);
        writeValue(sb, value, 0, "$");
        return sb.append('\n').toString();
    }

    private static void writeValue(StringBuilder sb, Object v, int indent, String path) {
        switch (v) {
            case null -> sb.append("null");
            case String s -> writeString(sb, s);
            case Boolean b -> sb.append(b.booleanValue());
            case Double d -> writeDouble(sb, d, path);
            case Float f -> writeDouble(sb, f.doubleValue(), path);
            case Long l -> sb.append(l.longValue());
            case Integer i -> sb.append(i.intValue());
            case Short s -> sb.append(s.shortValue());
            case Byte b -> sb.append(b.byteValue());
            case BigInteger b -> sb.append(b);
            case BigDecimal b -> sb.append(b);
            case Map<?, ?> m -> writeObject(sb, m, indent, path);
            case Collection<?> c -> writeArray(sb, c, indent, path);
            case long[] a -> {
                List<Long> boxed = new ArrayList<>(a.length);
                for (long x : a) {
                    boxed.add(x);
                }
                writeArray(sb, boxed, indent, path);
            }
            default -> throw new IllegalArgumentException("cannot write a " + v.getClass().getName()
                    + " as JSON at " + path + ": use maps, lists, strings, numbers, booleans or null");
        }
    }

    private static void writeDouble(StringBuilder sb, double d, String path) {
        if (!Double.isFinite(d)) {
            throw new IllegalArgumentException("cannot write the number " + d + " at " + path
                    + ": JSON has no NaN or Infinity; write it as the string \"NaN\", \"Infinity\" or \"-Infinity\"");
        }
        // Double.toString gives forms like 1.0E-5, which are valid JSON numbers and round-trip exactly.
        sb.append(Double.toString(d));
    }

    private static void writeObject(StringBuilder sb, Map<?, ?> m, int indent, String path) {
        if (m.isEmpty()) {
            sb.append("{}");
            return;
        }
        sb.append("{\n");
        int i = 0;
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String key)) {
                throw new IllegalArgumentException("JSON object keys must be strings, got " + e.getKey() + " at " + path);
            }
            indent(sb, indent + 1);
            writeString(sb, key);
            sb.append(": ");
            writeValue(sb, e.getValue(), indent + 1, path + "." + key);
            sb.append(++i < m.size() ? ",\n" : "\n");
        }
        indent(sb, indent);
        sb.append('}');
    }

    private static void writeArray(StringBuilder sb, Collection<?> c, int indent, String path) {
        if (c.isEmpty()) {
            sb.append("[]");
            return;
        }
        boolean flat = c.stream().noneMatch(x -> x instanceof Map<?, ?> || x instanceof Collection<?> || x instanceof long[]);
        sb.append(flat ? "[" : "[\n");
        int i = 0;
        for (Object x : c) {
            if (!flat) {
                indent(sb, indent + 1);
            }
            writeValue(sb, x, indent + 1, path + "[" + i + "]");
            boolean last = ++i == c.size();
            if (flat) {
                sb.append(last ? "" : ", ");
            } else {
                sb.append(last ? "\n" : ",\n");
            }
        }
        if (!flat) {
            indent(sb, indent);
        }
        sb.append(']');
    }

    private static void indent(StringBuilder sb, int level) {
        sb.repeat(' ', 2 * level);
    }

    private static void writeString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    /** A deep, unmodifiable copy of a value of the model: maps keep their order, nulls stay. */
    public static Object freeze(Object v) {
        return switch (v) {
            case Map<?, ?> m -> freezeObject(m, "value");
            case Collection<?> c -> {
                List<Object> copy = new ArrayList<>(c.size());
                for (Object x : c) {
                    copy.add(freeze(x));
                }
                yield Collections.unmodifiableList(copy);
            }
            // Numbers are widened so that a value built in code equals the same value parsed.
            case Integer i -> i.longValue();
            case Short s -> s.longValue();
            case Byte b -> b.longValue();
            case Float f -> f.doubleValue();
            case null, default -> v;
        };
    }

    /** {@link #freeze(Object)} for a JSON object; {@code what} names it if a key is not a string. */
    public static Map<String, Object> freezeObject(Map<?, ?> m, String what) {
        LinkedHashMap<String, Object> copy = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String key)) {
                throw new IllegalArgumentException(what + " has the non-string key " + e.getKey());
            }
            copy.put(key, freeze(e.getValue()));
        }
        return Collections.unmodifiableMap(copy);
    }

    // ---- field helpers ----

    /** The {@code where} of field {@code field} in document {@code key}: {@code "shape" in "t2m/zarr.json"}. */
    public static String where(String field, String key) {
        return "\"" + field + "\" in \"" + key + "\"";
    }

    /**
     * The {@code where} of a member of the field that {@code where} names:
     * {@code child("\"chunk_grid\" in \"a/zarr.json\"", "configuration")} is
     * {@code "chunk_grid.configuration" in "a/zarr.json"}.
     */
    public static String child(String where, String member) {
        int close = where.startsWith("\"") ? where.indexOf('"', 1) : -1;
        if (close < 0) {
            return where + " (member " + member + ")";
        }
        return where.substring(0, close) + "." + member + where.substring(close);
    }

    /** The {@code where} of element {@code index} of the array that {@code where} names ({@code "codecs[2]"}). */
    public static String element(String where, int index) {
        int close = where.startsWith("\"") ? where.indexOf('"', 1) : -1;
        if (close < 0) {
            return where + " (element " + index + ")";
        }
        return where.substring(0, close) + "[" + index + "]" + where.substring(close);
    }

    /** A short description of a value for error messages: {@code the string "abc"}, {@code an array of 3 elements}. */
    public static String describe(Object v) {
        return switch (v) {
            case null -> "null";
            case String s -> "the string \"" + (s.length() > 60 ? s.substring(0, 60) + "..." : s) + "\"";
            case Boolean b -> b.toString();
            case Number n -> "the number " + n;
            case Map<?, ?> m -> m.isEmpty() ? "an empty object" : "an object with keys " + m.keySet();
            case Collection<?> c -> c.size() == 1 ? "an array of 1 element" : "an array of " + c.size() + " elements";
            default -> "a " + v.getClass().getSimpleName();
        };
    }

    private static InvalidMetadataException mismatch(String where, String expected, Object v) {
        return new InvalidMetadataException(where + " must be " + expected + ", got " + describe(v));
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Object v, String where) {
        if (v instanceof Map<?, ?> m) {
            for (Object k : m.keySet()) {
                if (!(k instanceof String)) {
                    throw mismatch(where, "a JSON object", v);
                }
            }
            return (Map<String, Object>) m;
        }
        throw mismatch(where, "an object", v);
    }

    @SuppressWarnings("unchecked")
    public static List<Object> array(Object v, String where) {
        if (v instanceof List<?> l) {
            return (List<Object>) l;
        }
        throw mismatch(where, "an array", v);
    }

    public static String string(Object v, String where) {
        if (v instanceof String s) {
            return s;
        }
        throw mismatch(where, "a string", v);
    }

    public static boolean bool(Object v, String where) {
        if (v instanceof Boolean b) {
            return b;
        }
        throw mismatch(where, "true or false", v);
    }

    /** An integer field; fractions, integral doubles such as {@code 2.0} and values past {@code long} are refused. */
    public static long longValue(Object v, String where) {
        return switch (v) {
            case null -> throw mismatch(where, "an integer", null); // a pattern switch throws NPE on null
            case Long l -> l;
            case Integer i -> i;
            case Short s -> s;
            case Byte b -> b;
            case BigInteger b -> throw new InvalidMetadataException(where + " must be an integer that fits in 64 bits"
                    + " (signed), got " + b);
            default -> throw mismatch(where, "an integer", v);
        };
    }

    public static long[] longArray(Object v, String where) {
        List<Object> list = array(v, where);
        long[] out = new long[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = longValue(list.get(i), element(where, i));
        }
        return out;
    }
    /**
     * JSON on one line, {@code {"level": 3, "checksum": false}}, for messages, summaries and the
     * convert journal's metadata digests, which depend on its exact form: do not change it (its
     * escapes differ from {@link #write}'s, which writes metadata documents).
     */
    public static String compactLine(Object v) {
        StringBuilder sb = new StringBuilder();
        appendJson(sb, v);
        return sb.toString();
    }

    private static void appendJson(StringBuilder sb, Object v) {
        switch (v) {
            case null -> sb.append("null");
            case String s -> quoteCompact(sb, s);
            case Map<?, ?> m -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) {
                        sb.append(", ");
                    }
                    first = false;
                    quoteCompact(sb, String.valueOf(e.getKey()));
                    sb.append(": ");
                    appendJson(sb, e.getValue());
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
                    appendJson(sb, o);
                }
                sb.append(']');
            }
            default -> sb.append(v);
        }
    }

    private static void quoteCompact(StringBuilder sb, String s) {
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

}
