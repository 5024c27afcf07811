// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.settings;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.ZarrDirectException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class SettingTypeTest {

    private static final Setting<Integer> DEPTH = Setting.of("zarrdirect.decodeDepth", SettingType.intRange(1, 64), 3,
            "core", "device batches of one read that decode at once");
    private static final Setting<Long> BYTES = Setting.of("zarrdirect.cuda.batchBytes",
            SettingType.byteSize(1, Long.MAX_VALUE), 1L << 30, "cuda", "bytes");

    private static String rejection(Setting<?> s, String text) {
        return assertThrows(InvalidSettingException.class, () -> s.parse(text)).getMessage();
    }

    @Test
    void aBadValueNamesTheSettingTheTextAndTheRange() {
        var e = assertThrows(InvalidSettingException.class, () -> DEPTH.parse("banana"));
        assertEquals("zarrdirect.decodeDepth = \"banana\": expected an integer 1..64", e.getMessage());
        assertEquals("zarrdirect.decodeDepth", e.name());
        assertEquals("banana", e.value());
        assertInstanceOf(ZarrDirectException.class, e);
    }

    @Test
    void integersAcceptTheirBoundsAndRejectEverythingElse() {
        assertEquals(1, DEPTH.parse("1"));
        assertEquals(64, DEPTH.parse("64"));
        assertEquals(7, DEPTH.parse(" 7 "), "surrounding blanks are trimmed");
        for (String bad : new String[]{"0", "65", "-1", "", " ", "3.5", "0x10", "9999999999999", "2147483648", "1e3",
                "+", "٣"}) {
            assertEquals("zarrdirect.decodeDepth = \"" + bad + "\": expected an integer 1..64", rejection(DEPTH, bad), bad);
        }
        Setting<Integer> any = Setting.of("zarrdirect.x", SettingType.intRange(0, Integer.MAX_VALUE), 0, "core", "x");
        assertEquals(Integer.MAX_VALUE, any.parse("2147483647"));
        assertTrue(rejection(any, "2147483648").endsWith("expected an integer 0.."));
        Setting<Long> longs = Setting.of("zarrdirect.y", SettingType.longRange(-1, Long.MAX_VALUE), 0L, "core", "y");
        assertEquals(Long.MAX_VALUE, longs.parse("9223372036854775807"));
        assertEquals(-1L, longs.parse("-1"));
        assertThrows(InvalidSettingException.class, () -> longs.parse("9223372036854775808"));
        assertThrows(InvalidSettingException.class, () -> longs.parse("-2"));
    }

    @Test
    void byteSizesTakeBinarySuffixesAndRejectOverflowAndUnknownUnits() {
        assertEquals(1L << 30, BYTES.parse("1g"));
        assertEquals(1L << 30, BYTES.parse("1G"));
        assertEquals(512L << 20, BYTES.parse("512m"));
        assertEquals(512L << 20, BYTES.parse("512MiB"));
        assertEquals(64L << 10, BYTES.parse("64k"));
        assertEquals(65536L, BYTES.parse("65536"));
        assertEquals(65536L, BYTES.parse("65536b"));
        assertEquals(8L << 30, BYTES.parse("8 g"));
        for (String bad : new String[]{"1t", "1p", "", "g", "m1", "1.5g", "-1g", "0", "banana", "9999999999999g",
                "8589934592g", "99999999999999999999"}) {
            assertEquals("zarrdirect.cuda.batchBytes = \"" + bad + "\": expected a byte size 1.. (e.g. 65536, 512k, 64m, 1g)",
                    rejection(BYTES, bad), bad);
        }
        assertEquals(8589934591L << 30, BYTES.parse("8589934591g"), "the largest gibibyte count that fits");
        assertEquals("1g", BYTES.format(1L << 30));
        assertEquals("512m", BYTES.format(512L << 20));
        assertEquals("1000", BYTES.format(1000L));
    }

    @Test
    void booleansAreTrueOrFalseOnly() {
        Setting<Boolean> b = Setting.of("zarrdirect.trace", SettingType.bool(), false, "core", "t");
        assertTrue(b.parse("true"));
        assertTrue(b.parse("TRUE"));
        assertFalse(b.parse("false"));
        for (String bad : new String[]{"yes", "1", "0", "on", "", "truee"}) {
            assertEquals("zarrdirect.trace = \"" + bad + "\": expected true or false", rejection(b, bad));
        }
    }

    enum Mode { AUTO, SPIN, BLOCKING }

    @Test
    void choicesListWhatTheyAccept() {
        Setting<String> reader = Setting.of("zarrdirect.cuda.reader", SettingType.oneOf("auto", "threaded", "cufile"),
                "auto", "cuda", "r");
        assertEquals("cufile", reader.parse("CuFile"));
        assertEquals("zarrdirect.cuda.reader = \"gds\": expected one of auto, threaded, cufile", rejection(reader, "gds"));
        Setting<Mode> mode = Setting.of("zarrdirect.m", SettingType.enumOf(Mode.class), Mode.AUTO, "core", "m");
        assertEquals(Mode.SPIN, mode.parse("spin"));
        assertEquals("zarrdirect.m = \"x\": expected one of auto, spin, blocking", rejection(mode, "x"));
        assertEquals("blocking", mode.format(Mode.BLOCKING));
        Setting<String> text = Setting.derived("zarrdirect.t", SettingType.text("a path"), "none", "core", "t");
        assertEquals("zarrdirect.t = \" \": expected a path", rejection(text, " "));
        Setting<String> any = Setting.derived("zarrdirect.o", SettingType.anyText("options"), "none", "core", "o");
        assertEquals("", any.parse(""));
    }

    @Test
    void environmentNamesFollowTheSettingName() {
        assertEquals("ZARRDIRECT_CUDA_BATCH_BYTES", Setting.envName("zarrdirect.cuda.batchBytes"));
        assertEquals("ZARRDIRECT_DECODE_DEPTH", Setting.envName("zarrdirect.decodeDepth"));
        assertEquals("ZARRDIRECT_THREADS", Setting.envName("zarrdirect.threads"));
        assertEquals("ZARRDIRECT_CUDA_ZSTD_MULTI_PASS_SEQ_MIN", Setting.envName("zarrdirect.cuda.zstdMultiPassSeqMin"));
        assertEquals("decodeDepth", DEPTH.shortName());
        assertThrows(IllegalArgumentException.class, () -> Setting.of("decodeDepth", SettingType.bool(), true, "core", "x"));
    }
}
