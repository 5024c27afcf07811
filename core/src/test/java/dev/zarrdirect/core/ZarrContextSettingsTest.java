// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.settings.ResolvedSetting;
import dev.zarrdirect.api.settings.SettingSource;
import dev.zarrdirect.core.registry.CodecRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/** Settings of a context: parsed once when it starts, explicit over property over environment over default. */
@Isolated("sets system properties")
class ZarrContextSettingsTest {

    /** Runs {@code body} with system property {@code name} set to {@code value}, restoring it after. */
    private static <T> T withProperty(String name, String value, Supplier<T> body) {
        String before = System.getProperty(name);
        System.setProperty(name, value);
        try {
            return body.get();
        } finally {
            if (before == null) System.clearProperty(name);
            else System.setProperty(name, before);
        }
    }

    private static Map<String, ResolvedSetting<?>> byName(ZarrContext ctx) {
        return ctx.settings().stream().collect(Collectors.toMap(ResolvedSetting::name, r -> r, (a, b) -> a));
    }

    @Test
    void theBuilderSetsReadSettingsThreadsAndBackend() {
        ReadSettings rs = ReadSettings.defaults().withDecodeDepth(5).withDeviceBatchBytes(512L << 20).withTrace(true);
        try (ZarrContext ctx = ZarrContext.builder().backend("cpu").threads(2).readSettings(rs)
                .set("deviceBatchSize", "64").open()) {
            assertEquals(new ReadSettings(5, 64, 512L << 20, 0, true), ctx.readSettings());
            assertEquals(2, ctx.parallelism());
            assertEquals("cpu", ctx.backend().name());
            Map<String, ResolvedSetting<?>> s = byName(ctx);
            assertEquals("decodeDepth = 5 (explicit)", s.get("zarrdirect.decodeDepth").describe());
            assertEquals("deviceBatchBytes = 512m (explicit)", s.get("zarrdirect.deviceBatchBytes").describe());
            assertEquals("threads = 2 (explicit)", s.get("zarrdirect.threads").describe());
            // the backend's own settings are listed too, with their sources
            assertEquals(SettingSource.DEFAULT, s.get("zarrdirect.cpu.poolRetainedBytes").source());
            assertEquals(512L << 20, s.get("zarrdirect.cpu.poolRetainedBytes").value());
        }
    }

    @Test
    void theOldOpenMethodsStillWorkAndTakeDefaults() {
        try (ZarrContext ctx = ZarrContext.open("cpu", 3)) {
            assertEquals(3, ctx.parallelism());
            assertEquals(ReadSettings.defaults(), ctx.readSettings());
            assertEquals("decodeDepth = 3 (default)", byName(ctx).get("zarrdirect.decodeDepth").describe());
        }
        assertThrows(IllegalArgumentException.class, () -> ZarrContext.open("cpu", 0));
    }

    @Test
    void aBadSystemPropertyFailsTheStartWithTheNameAndTheRange() {
        var e = assertThrows(InvalidSettingException.class,
                () -> withProperty("zarrdirect.decodeDepth", "banana", () -> ZarrContext.open("cpu", 1)));
        assertEquals("zarrdirect.decodeDepth = \"banana\": expected an integer 1..64 (from the system property "
                + "-Dzarrdirect.decodeDepth)", e.getMessage());
        e = assertThrows(InvalidSettingException.class,
                () -> withProperty("zarrdirect.threads", "0", () -> ZarrContext.open("cpu")));
        assertTrue(e.getMessage().startsWith("zarrdirect.threads = \"0\": expected an integer 1..4096"), e.getMessage());
        // a backend's setting too: the CPU backend parses its own when it starts
        e = assertThrows(InvalidSettingException.class,
                () -> withProperty("zarrdirect.cpu.poolRetainedBytes", "1t", () -> ZarrContext.open("cpu", 1)));
        assertTrue(e.getMessage().startsWith("zarrdirect.cpu.poolRetainedBytes = \"1t\": expected a byte size"),
                e.getMessage());
    }

    @Test
    void explicitWinsOverTheSystemProperty() {
        try (ZarrContext ctx = withProperty("zarrdirect.decodeDepth", "7",
                () -> ZarrContext.builder().backend("cpu").threads(1).set("decodeDepth", "2").open())) {
            assertEquals(2, ctx.readSettings().decodeDepth());
        }
        try (ZarrContext ctx = withProperty("zarrdirect.decodeDepth", "7", () -> ZarrContext.open("cpu", 1))) {
            assertEquals(7, ctx.readSettings().decodeDepth());
            assertEquals("decodeDepth = 7 (-Dzarrdirect.decodeDepth)", byName(ctx).get("zarrdirect.decodeDepth").describe());
        }
    }

    @Test
    void anUnknownExplicitNameIsRejectedListingTheKnownOnes() {
        var e = assertThrows(InvalidSettingException.class,
                () -> ZarrContext.builder().backend("cpu").set("decodeDepht", "4").open());
        assertTrue(e.getMessage().startsWith("unknown setting zarrdirect.decodeDepht = \"4\"; the settings are: "),
                e.getMessage());
        assertTrue(e.getMessage().contains("zarrdirect.decodeDepth") && e.getMessage().contains("zarrdirect.threads")
                && e.getMessage().contains("zarrdirect.cpu.poolRetainedBytes")
                && e.getMessage().contains("zarrdirect.codec.<name>"), e.getMessage());
    }

    @Test
    void aCodecChoiceIsParsedWhenTheContextStartsAndListed() {
        try (ZarrContext ctx = ZarrContext.builder().backend("cpu").threads(1).set("codec.zstd", "cpu").open()) {
            assertEquals("codec.zstd = cpu (explicit)", byName(ctx).get("zarrdirect.codec.zstd").describe());
            assertEquals("cpu (set by zarrdirect.codec.zstd)", ctx.codecs().describe(ctx.device()).get("zstd"));
            assertEquals("codec.crc32c = auto (default)", byName(ctx).get("zarrdirect.codec.crc32c").describe());
        }
        var e = assertThrows(InvalidSettingException.class,
                () -> ZarrContext.builder().backend("cpu").set("codec.zstd", "gpu").open());
        assertTrue(e.getMessage().startsWith("zarrdirect.codec.zstd = \"gpu\": expected auto or the name of a codec provider, one of ["),
                e.getMessage());
    }

    @Test
    void readSettingsAreValidatedWhenMade() {
        var e = assertThrows(InvalidSettingException.class, () -> ReadSettings.defaults().withDecodeDepth(0));
        assertEquals("zarrdirect.decodeDepth = \"0\": expected an integer 1..64", e.getMessage());
        assertThrows(InvalidSettingException.class, () -> ReadSettings.defaults().withDeviceBatchBytes(-1));
        assertThrows(InvalidSettingException.class, () -> ReadSettings.defaults().withDeviceFirstBatch(-1));
        assertEquals(new ReadSettings(3, 0, 0, 0, false), ReadSettings.defaults());
        ReadSettings rs = ReadSettings.defaults().withDeviceBatchSize(32).withDeviceFirstBatch(4);
        assertEquals(rs, ReadSettings.from(dev.zarrdirect.api.settings.SettingResolver.system(rs.toValues())));
        ReadSettings off = ReadSettings.defaults().withHostDecodeOverlap(false);
        assertEquals(off, ReadSettings.from(dev.zarrdirect.api.settings.SettingResolver.system(off.toValues())));
        assertEquals(true, ReadSettings.defaults().hostDecodeOverlap());
        ReadSettings serial = ReadSettings.defaults().withSerialRunsPerCore(0);
        assertEquals(serial, ReadSettings.from(dev.zarrdirect.api.settings.SettingResolver.system(serial.toValues())));
        assertEquals(8, ReadSettings.defaults().serialRunsPerCore());
        ReadSettings oneWay = ReadSettings.defaults().withHostShare(false);
        assertEquals(oneWay, ReadSettings.from(dev.zarrdirect.api.settings.SettingResolver.system(oneWay.toValues())));
        assertEquals(true, ReadSettings.defaults().hostShare());
        assertEquals(new ReadSettings(3, 0, 0, 0, false, true, 8), ReadSettings.defaults(), "the seven-setting form shares");
        assertEquals(List.of("zarrdirect.decodeDepth", "zarrdirect.deviceBatchSize", "zarrdirect.deviceBatchBytes",
                "zarrdirect.deviceFirstBatch", "zarrdirect.trace", "zarrdirect.hostDecodeOverlap",
                "zarrdirect.serialRunsPerCore", "zarrdirect.hostShare"), ReadSettings.SETTINGS.stream().map(s -> s.name()).toList());
        assertEquals(CodecRegistry.CODEC_FAMILY, ZarrContext.coreSettingDescriptors().getLast());
    }
}
