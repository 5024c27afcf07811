// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata.v2;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.metadata.FillValue;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Zarr v2 {@code fill_value} encoding, to and from the engine's {@link FillValue}.
 *
 * <p>Forms read: {@code null}; {@code true}/{@code false} (and 0/1) for bool; integers for integer
 * types (an integral number such as {@code 0.0} too, as some writers emit); numbers and the strings
 * {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"} for floats; {@code [re, im]} (or one number,
 * the imaginary part 0) for complex types; a base64 string of the bytes for raw {@code |V<n>}.
 *
 * <p>{@code null} means "no fill value": the spec leaves chunks that were never written undefined.
 * They read as zeros here, the one answer every device produces without a fill pass.
 *
 * <p>Stateless and thread-safe.
 */
public final class V2FillValue {

    private V2FillValue() {
    }

    /**
     * Reads {@code json} as a fill value of {@code dtype}. Besides the v2 forms of this class, the
     * v3 forms {@link FillValue#parse} reads are accepted.
     *
     * @param json  the {@code fill_value} value, as parsed; null (JSON {@code null}) for zero
     * @param dtype the array's {@code dtype}; its byte order does not matter (fill values are
     *              numbers, not bytes, except for raw types)
     * @param where names the field in errors, such as {@code "fill_value" in "t2m/.zarray"}
     * @return the fill value, of {@code dtype.dataType()}
     * @throws InvalidMetadataException naming {@code where} and the value, for a form the type does
     *                                  not take, a value out of range, or a raw value that is not
     *                                  base64 of exactly the type's size
     * @throws NullPointerException     if {@code dtype} is null
     */
    public static FillValue parse(Object json, V2DataType dtype, String where) {
        DataType t = dtype.dataType();
        if (json == null) {
            return FillValue.zero(t);
        }
        switch (t.kind()) {
            case RAW -> {
                if (json instanceof String s) {
                    byte[] b;
                    try {
                        b = Base64.getDecoder().decode(s);
                    } catch (IllegalArgumentException e) {
                        throw new InvalidMetadataException(where + " is \"" + s + "\", not base64 (the v2 form of a "
                                + dtype.typestr() + " fill value): " + e.getMessage(), e);
                    }
                    if (b.length != t.byteSize()) {
                        throw new InvalidMetadataException(where + " is \"" + s + "\", base64 of " + b.length
                                + " bytes, but " + dtype.typestr() + " has " + t.byteSize());
                    }
                    return FillValue.ofBytes(t, b);
                }
                if (json instanceof Long l && l == 0) {
                    return FillValue.zero(t);
                }
                return FillValue.parse(json, t, where);
            }
            case BOOL -> {
                if (json instanceof Long l && (l == 0 || l == 1)) {
                    return FillValue.parse(l == 1, t, where);
                }
                return FillValue.parse(json, t, where);
            }
            case INT, UINT -> {
                if (json instanceof Double d && d == Math.rint(d) && Math.abs(d) < 0x1p53) {
                    return FillValue.parse((long) (double) d, t, where);
                }
                return FillValue.parse(json, t, where);
            }
            case COMPLEX -> {
                if (json instanceof Number || json instanceof String) {
                    List<Object> parts = new ArrayList<>(2);
                    parts.add(json);
                    parts.add(0.0);
                    return FillValue.parse(parts, t, where);
                }
                return FillValue.parse(json, t, where);
            }
            default -> {
                return FillValue.parse(json, t, where);
            }
        }
    }

    /**
     * The v2 JSON form of {@code fill}: as zarr-python writes it. A NaN with a payload other than the
     * canonical one is written {@code "NaN"} (v2 has no form for payloads), so it reads back as the
     * canonical NaN.
     *
     * @param fill the fill value
     * @return a value of the metadata model: base64 of the bytes for raw types, a number or
     *         {@code "NaN"}/{@code "Infinity"}/{@code "-Infinity"} for floats, {@code [re, im]} for
     *         complex types, else the v3 form (a {@code Boolean} or an integer)
     */
    public static Object toJson(FillValue fill) {
        DataType t = fill.dataType();
        Object v3 = fill.toJson();
        return switch (t.kind()) {
            case RAW -> Base64.getEncoder().encodeToString(fill.toByteArray());
            case FLOAT -> v2Float(v3);
            case COMPLEX -> {
                List<Object> parts = new ArrayList<>(2);
                for (Object p : Json.array(v3, "fill value")) {
                    parts.add(v2Float(p));
                }
                yield parts;
            }
            default -> v3;
        };
    }

    private static Object v2Float(Object v3) {
        return v3 instanceof String s && s.startsWith("0x") ? "NaN" : v3;
    }
}
