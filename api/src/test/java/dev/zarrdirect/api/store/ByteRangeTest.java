// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.store;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ByteRangeTest {

    @Test
    void allCoversTheWholeValue() {
        assertTrue(ByteRange.ALL.isAll());
        assertFalse(ByteRange.ALL.isSuffix());
        assertEquals(0, ByteRange.ALL.start(100));
        assertEquals(100, ByteRange.ALL.lengthIn(100));
        assertTrue(ByteRange.ALL.fits(0));
        assertEquals(ByteRange.ALL, ByteRange.from(0));
    }

    @Test
    void offsetAndLengthRangesFitOnlyInsideTheValue() {
        ByteRange r = ByteRange.of(10, 20);
        assertEquals(10, r.start(100));
        assertEquals(20, r.lengthIn(100));
        assertTrue(r.fits(30));
        assertFalse(r.fits(29));
        assertTrue(ByteRange.of(30, 0).fits(30));
        assertFalse(ByteRange.of(31, 0).fits(30));
        assertFalse(ByteRange.of(Long.MAX_VALUE, Long.MAX_VALUE).fits(Long.MAX_VALUE), "must not overflow into a fit");
        assertEquals("bytes 10-30", r.toString());
    }

    @Test
    void openEndedRangesRunToTheEnd() {
        ByteRange r = ByteRange.from(40);
        assertEquals(60, r.lengthIn(100));
        assertTrue(r.fits(40));
        assertFalse(r.fits(39));
        assertEquals("bytes 40-end", r.toString());
    }

    @Test
    void suffixesCountFromTheEnd() {
        ByteRange r = ByteRange.suffix(16);
        assertTrue(r.isSuffix());
        assertEquals(84, r.start(100));
        assertEquals(16, r.lengthIn(100));
        assertTrue(r.fits(16));
        assertFalse(r.fits(15));
        assertTrue(ByteRange.suffix(0).fits(0));
        assertEquals("last 16 bytes", r.toString());
    }

    @Test
    void negativePositionsAreRefusedWithTheValueSeen() {
        assertMessage(() -> ByteRange.of(-8, 1), "negative offset -8");
        assertMessage(() -> ByteRange.of(0, -2), "negative length -2");
        assertMessage(() -> ByteRange.from(-3), "negative offset -3");
        assertMessage(() -> ByteRange.suffix(-4), "negative suffix length -4");
        assertMessage(() -> new ByteRange(-1, -1), "offset=-1 length=-1");
        assertMessage(() -> new ByteRange(-2, 5), "offset=-2");
    }

    private static void assertMessage(org.junit.jupiter.api.function.Executable e, String expected) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
        assertTrue(x.getMessage().contains(expected), "expected \"" + expected + "\" in: " + x.getMessage());
    }
}
