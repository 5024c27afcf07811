// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.core.json.Json;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FillValueProperties {

    private static final String W = Json.where("fill_value", "p/zarr.json");

    @Provide
    Arbitrary<DataType> types() {
        return Arbitraries.oneOf(Arbitraries.of(DataType.named()),
                Arbitraries.integers().between(1, 6).map(n -> DataType.raw(8 * n)));
    }

    /** Any bit pattern of any type, NaN payloads and subnormals included, survives JSON text. */
    @Property(tries = 3000)
    void everyBitPatternRoundTripsThroughJsonText(@ForAll("types") DataType type, @ForAll long lo, @ForAll long hi) {
        byte[] b = new byte[type.byteSize()];
        for (int i = 0; i < b.length; i++) {
            long word = i < 8 ? lo : hi;
            b[i] = (byte) (word >>> (8 * (i % 8)));
        }
        if (type.kind() == DataType.Kind.BOOL) {
            b[0] &= 1;
        }
        FillValue f = FillValue.ofBytes(type, b);
        FillValue back = FillValue.parse(Json.parse(Json.write(f.toJson())), type, W);
        assertEquals(f, back, () -> type + " " + f + " came back as " + back);
    }

    @Property(tries = 2000)
    void float32ValuesReadBackFromTheirShortestDecimal(@ForAll float x) {
        FillValue f = FillValue.ofBytes(DataType.FLOAT32, le(Float.floatToRawIntBits(x), 4));
        assertEquals(f, FillValue.parse(Json.parse(Json.write(f.toJson())), DataType.FLOAT32, W));
    }

    private static byte[] le(long v, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }
}
