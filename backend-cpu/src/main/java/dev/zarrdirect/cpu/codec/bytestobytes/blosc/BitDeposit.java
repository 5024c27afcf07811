// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Whether {@link Long#expand} is one fast instruction on this machine, for {@link ByteShuffle}:
 * HotSpot turns it into BMI2's {@code PDEP} on x86, which is one cycle on Intel since Haswell and on
 * AMD since Zen 3, but microcoded on Zen 1 and 2 (tens to hundreds of cycles, more than the
 * shifts and masks it replaces); elsewhere (aarch64 without SVE2's bit permutes) it is a loop in
 * Java. So: x86-64, {@code bmi2} among the CPU's flags, and not an AMD processor of family 0x17 or
 * older. On Linux the flags come from {@code /proc/cpuinfo}; where that cannot be read, no.
 */
final class BitDeposit {

    /** {@link Long#expand} is fast here. */
    static final boolean FAST = fast(System.getProperty("os.arch", ""), cpuinfo());

    private BitDeposit() {
    }

    /** The decision, from the JVM's architecture and the lines of {@code /proc/cpuinfo} (empty when unread). */
    static boolean fast(String arch, List<String> cpuinfo) {
        if (!arch.equals("amd64") && !arch.equals("x86_64")) {
            return false;
        }
        String vendor = null, family = null, flags = null;
        for (String line : cpuinfo) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                if (flags != null) {
                    break; // the first processor's block has ended
                }
                continue;
            }
            String key = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            switch (key) {
                case "vendor_id" -> vendor = value;
                case "cpu family" -> family = value;
                case "flags" -> flags = value;
                default -> { }
            }
        }
        if (flags == null || !List.of(flags.split("\\s+")).contains("bmi2")) {
            return false;
        }
        if ("AuthenticAMD".equals(vendor)) {
            try {
                return family != null && Integer.parseInt(family) >= 0x19;
            } catch (NumberFormatException e) {
                return false;
            }
        }
        return true;
    }

    private static List<String> cpuinfo() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo"));
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
