// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec.spec;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CodecConfigReaderTest {

    @Test
    void aNullConfigurationReadsAsEmptyAndEveryFieldFallsBack() {
        CodecConfigReader c = CodecConfigReader.of("zstd", null, Set.of("level", "checksum"));
        assertEquals("zstd", c.codec());
        assertFalse(c.has("level"));
        assertEquals(3, c.integer("level", -7, 22, 3));
        assertTrue(c.bool("checksum", true));
        assertNull(c.choice("cname", Set.of("lz4")));
    }

    @Test
    void anUnknownFieldNamesTheFirstInSortedOrderWithItsValueAndTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CodecConfigReader.of("zstd", Map.of("zz", 1, "extra", "x"), Set.of("level", "checksum")));
        assertEquals("codec \"zstd\": unknown configuration field \"extra\" (value \"x\"); known fields are"
                + " [checksum, level]", e.getMessage());
    }

    @Test
    void integersOfEveryJsonWidthReadAndOthersAreRejectedWithTheRange() {
        for (Object v : new Object[]{5L, 5, (short) 5, (byte) 5}) {
            assertEquals(5, CodecConfigReader.of("c", Map.of("n", v), Set.of("n")).integer("n", 0, 9, 0));
        }
        CodecConfigReader c = CodecConfigReader.of("c", Map.of("n", 2.5, "m", 10L), Set.of("n", "m"));
        assertEquals("codec \"c\": configuration field \"n\" is 2.5 (Double), must be an integer from 0 to 9",
                assertThrows(IllegalArgumentException.class, () -> c.integer("n", 0, 9, 0)).getMessage());
        assertEquals("codec \"c\": configuration field \"m\" is 10 (Long), must be an integer from 0 to 9",
                assertThrows(IllegalArgumentException.class, () -> c.integer("m", 0, 9, 0)).getMessage());
    }

    @Test
    void aJsonNullReadsAsAbsent() {
        Map<String, Object> m = new HashMap<>();
        m.put("level", null);
        CodecConfigReader c = CodecConfigReader.of("zstd", m, Set.of("level"));
        assertFalse(c.has("level"));
        assertEquals(7, c.integer("level", 0, 9, 7));
    }

    @Test
    void booleansChoicesAndListsSayWhatTheyWanted() {
        CodecConfigReader c = CodecConfigReader.of("c", Map.of("b", "yes", "s", "middle", "l", 3, "ok", List.of(1)),
                Set.of("b", "s", "l", "ok", "missing"));
        assertEquals("codec \"c\": configuration field \"b\" is \"yes\", must be true or false",
                assertThrows(IllegalArgumentException.class, () -> c.bool("b", false)).getMessage());
        assertEquals("codec \"c\": configuration field \"s\" is \"middle\", must be one of [big, little]",
                assertThrows(IllegalArgumentException.class, () -> c.choice("s", Set.of("little", "big"))).getMessage());
        assertEquals("codec \"c\": configuration field \"l\" is 3 (Integer), must be a list",
                assertThrows(IllegalArgumentException.class, () -> c.list("l")).getMessage());
        assertEquals("codec \"c\": configuration field \"missing\" is required",
                assertThrows(IllegalArgumentException.class, () -> c.list("missing")).getMessage());
        assertEquals(List.of(1), c.list("ok"));
        assertSame(Boolean.TRUE, CodecConfigReader.of("c", Map.of("b", true), Set.of("b")).bool("b", false));
    }
}
