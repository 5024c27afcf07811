// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class CfTimeTest {

    private static long micros(String iso) {
        Instant i = Instant.parse(iso);
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    @Test
    void unitsSinceAReferenceBecomeMicrosecondsSince1970() {
        CfTime era5 = CfTime.of(Map.of("units", "hours since 1900-01-01 00:00:00.0", "calendar", "gregorian"));
        assertEquals(micros("1900-01-01T00:00:00Z"), era5.epochMicros());
        assertEquals(micros("2020-01-01T06:00:00Z"), era5.micros(1_051_902));
        assertEquals(micros("1970-01-02T00:00:00Z"), CfTime.of(Map.of("units", "days since 1970-01-01")).micros(1));
        assertEquals(micros("2000-01-01T12:30:16Z"),
                CfTime.of(Map.of("units", "seconds since 2000-1-1T12:30:15.5Z")).micros(0.5));
    }

    @Test
    void otherCalendarsOffsetsAndUnitsStayNumbers() {
        assertNull(CfTime.of(Map.of("units", "days since 2000-01-01", "calendar", "noleap")));
        assertNull(CfTime.of(Map.of("units", "hours since 1900-01-01 00:00:00 +05:00")));
        assertNull(CfTime.of(Map.of("units", "months since 1900-01-01")));
        assertNull(CfTime.of(Map.of("units", "K")));
        assertNull(CfTime.of(Map.of("long_name", "time")));
    }
}
