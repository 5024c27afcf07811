// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import java.io.Serial;
import java.io.Serializable;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A CF time coordinate ({@code units: "hours since 1900-01-01 00:00:00"}, the calendar standard,
 * gregorian or proleptic_gregorian, or none), as xarray writes ERA5's {@code time}: its values
 * become Spark timestamps (microseconds since 1970-01-01 UTC). The reference time is UTC, as CF
 * takes it when no offset is given; one with an offset, another calendar or another unit is left as
 * numbers.
 *
 * @param microsPerUnit the microseconds of one unit
 * @param epochMicros   the reference time, in microseconds since 1970-01-01 UTC
 * @param units         the attribute as written
 */
record CfTime(long microsPerUnit, long epochMicros, String units) implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    private static final Pattern UNITS = Pattern.compile(
            "^\\s*(days?|hours?|minutes?|seconds?|milliseconds?|microseconds?)\\s+since\\s+"
                    + "(\\d{1,4})-(\\d{1,2})-(\\d{1,2})(?:[ T](\\d{1,2}):(\\d{1,2})(?::(\\d{1,2})(?:\\.(\\d+))?)?)?\\s*(?:Z|UTC)?\\s*$",
            Pattern.CASE_INSENSITIVE);

    /** The CF time of a coordinate's attributes, or null when they do not describe one this reads. */
    static CfTime of(Map<String, Object> attributes) {
        if (!(attributes.get("units") instanceof String units)) {
            return null;
        }
        Object calendar = attributes.get("calendar");
        if (calendar != null && !(calendar instanceof String c && (c.equalsIgnoreCase("standard")
                || c.equalsIgnoreCase("gregorian") || c.equalsIgnoreCase("proleptic_gregorian")))) {
            return null;
        }
        Matcher m = UNITS.matcher(units);
        if (!m.matches()) {
            return null;
        }
        String unit = m.group(1).toLowerCase(Locale.ROOT);
        long micros = switch (unit.endsWith("s") ? unit.substring(0, unit.length() - 1) : unit) {
            case "day" -> 86_400_000_000L;
            case "hour" -> 3_600_000_000L;
            case "minute" -> 60_000_000L;
            case "second" -> 1_000_000L;
            case "millisecond" -> 1_000L;
            default -> 1L;
        };
        try {
            String fraction = m.group(8) == null ? "0" : (m.group(8) + "000000000").substring(0, 9);
            LocalDateTime reference = LocalDateTime.of(Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
                    Integer.parseInt(m.group(4)), m.group(5) == null ? 0 : Integer.parseInt(m.group(5)),
                    m.group(6) == null ? 0 : Integer.parseInt(m.group(6)),
                    m.group(7) == null ? 0 : Integer.parseInt(m.group(7)), Integer.parseInt(fraction));
            long epoch = reference.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + reference.getNano() / 1_000;
            return new CfTime(micros, epoch, units);
        } catch (java.time.DateTimeException e) {
            return null;
        }
    }

    /** The timestamp, in microseconds since 1970-01-01 UTC, of a coordinate value. */
    long micros(double value) {
        return epochMicros + Math.round(value * microsPerUnit);
    }
}
