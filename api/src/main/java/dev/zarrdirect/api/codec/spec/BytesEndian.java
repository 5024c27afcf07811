// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import dev.zarrdirect.api.DataType;

import java.nio.ByteOrder;
import java.util.Map;
import java.util.Set;

/**
 * The {@code endian} of the {@code bytes} codec: the byte order of the stored bytes, or none.
 * The in-memory representation is little-endian, so big-endian stored bytes swap each
 * {@linkplain DataType#swapUnit() swap unit}. The specification lets {@code endian} be absent only
 * for types whose swap unit is one byte (bool, int8, uint8, raw {@code r<N>}); as that depends on
 * the chunk's data type, {@link #needsSwap} checks it when a chunk is coded. Immutable.
 */
public final class BytesEndian {

    /** The configuration field. */
    public static final String FIELD = "endian";
    private static final String LITTLE = "little";
    private static final String BIG = "big";

    private final String codec;
    private final ByteOrder order; // null: none given

    private BytesEndian(String codec, ByteOrder order) {
        this.codec = codec;
        this.order = order;
    }

    /**
     * Reads {@code {"endian": "little"|"big"}}, the only field allowed; {@code endian} may be absent.
     *
     * @param codec the codec's name, for messages
     * @param configuration the codec's {@code configuration} object; null reads as empty
     * @return the parsed endian
     * @throws IllegalArgumentException when a field is unknown or {@code endian} is another value
     */
    public static BytesEndian parse(String codec, Map<String, Object> configuration) {
        String endian = CodecConfigReader.of(codec, configuration, Set.of(FIELD)).choice(FIELD, Set.of(LITTLE, BIG));
        return new BytesEndian(codec, endian == null ? null : endian.equals(BIG) ? ByteOrder.BIG_ENDIAN
                : ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * The byte order of the stored bytes, or null when the configuration gave none.
     *
     * @return {@link ByteOrder#LITTLE_ENDIAN}, {@link ByteOrder#BIG_ENDIAN}, or null
     */
    public ByteOrder order() {
        return order;
    }

    /**
     * {@code "little"} or {@code "big"} as the configuration spells it, or null when it gave none.
     *
     * @return the name, or null
     */
    public String name() {
        return order == null ? null : order == ByteOrder.BIG_ENDIAN ? BIG : LITTLE;
    }

    /**
     * Whether the specification requires {@code endian} for {@code type}: its swap unit is more than one byte.
     *
     * @param type the chunk's data type
     * @return true when {@code type}'s {@linkplain DataType#swapUnit() swap unit} is more than one byte
     */
    public static boolean required(DataType type) {
        return type.swapUnit() != 1;
    }

    /**
     * Whether coding {@code type} reverses each swap unit: true for big-endian and a multi-byte swap
     * unit, false for little-endian or a one-byte swap unit.
     *
     * @param type the chunk's data type
     * @return true when the stored bytes must be swapped to reach the little-endian in-memory form
     * @throws IllegalArgumentException when {@code type} {@linkplain #required requires} an endian and none was given
     */
    public boolean needsSwap(DataType type) {
        if (!required(type)) {
            return false;
        }
        if (order == null) {
            throw new IllegalArgumentException("codec \"" + codec + "\": configuration field \"" + FIELD
                    + "\" is required for data type " + type + " (swap unit " + type.swapUnit() + " bytes)");
        }
        return order == ByteOrder.BIG_ENDIAN;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BytesEndian e && e.order == order;
    }

    @Override
    public int hashCode() {
        return order == null ? 0 : order.hashCode();
    }

    /** As {@link #name()}, with {@code "null"} for none. */
    @Override
    public String toString() {
        return String.valueOf(name());
    }
}
