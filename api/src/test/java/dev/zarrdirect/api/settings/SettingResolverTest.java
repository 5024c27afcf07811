// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.settings;

import dev.zarrdirect.api.InvalidSettingException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class SettingResolverTest {

    private static final Setting<Integer> THREADS = Setting.of("zarrdirect.threads", SettingType.intRange(1, 4096), 4,
            "core", "worker threads");
    private static final Setting<Integer> DEPTH = Setting.of("zarrdirect.decodeDepth", SettingType.intRange(1, 64), 3,
            "core", "depth");

    private final Map<String, String> props = new HashMap<>();
    private final Map<String, String> env = new HashMap<>();

    private SettingResolver resolver(SettingValues explicit) {
        return new SettingResolver(explicit, props::get, env::get);
    }

    @Test
    void explicitWinsOverPropertyWhichWinsOverEnvironmentWhichWinsOverDefault() {
        assertEquals(new ResolvedSetting<>(THREADS, 4, SettingSource.DEFAULT), resolver(SettingValues.none()).resolve(THREADS));
        env.put("ZARRDIRECT_THREADS", "8");
        assertEquals(new ResolvedSetting<>(THREADS, 8, SettingSource.ENVIRONMENT), resolver(SettingValues.none()).resolve(THREADS));
        props.put("zarrdirect.threads", "16");
        assertEquals(new ResolvedSetting<>(THREADS, 16, SettingSource.SYSTEM_PROPERTY),
                resolver(SettingValues.none()).resolve(THREADS));
        SettingValues explicit = SettingValues.builder().set("threads", "2").build();
        assertEquals(new ResolvedSetting<>(THREADS, 2, SettingSource.EXPLICIT), resolver(explicit).resolve(THREADS));
    }

    @Test
    void aBadValueFailsWhereverItCameFromAndSaysWhere() {
        env.put("ZARRDIRECT_DECODE_DEPTH", "banana");
        var e = assertThrows(InvalidSettingException.class, () -> resolver(SettingValues.none()).get(DEPTH));
        assertEquals("zarrdirect.decodeDepth = \"banana\": expected an integer 1..64 (from the environment variable "
                + "ZARRDIRECT_DECODE_DEPTH)", e.getMessage());
        props.put("zarrdirect.decodeDepth", "0");
        e = assertThrows(InvalidSettingException.class, () -> resolver(SettingValues.none()).get(DEPTH));
        assertEquals("zarrdirect.decodeDepth = \"0\": expected an integer 1..64 (from the system property "
                + "-Dzarrdirect.decodeDepth)", e.getMessage());
        // an explicit good value hides the bad ones below it: they are never read
        assertEquals(5, resolver(SettingValues.builder().set("zarrdirect.decodeDepth", "5").build()).get(DEPTH));
        // an empty property is a bad value, not an absent one
        props.put("zarrdirect.decodeDepth", "");
        assertThrows(InvalidSettingException.class, () -> resolver(SettingValues.none()).get(DEPTH));
    }

    @Test
    void theResolverRemembersEachValueAndItsSourceForDoctor() {
        env.put("ZARRDIRECT_THREADS", "8");
        SettingResolver r = resolver(SettingValues.none());
        r.get(DEPTH);
        r.get(THREADS);
        assertEquals(List.of("decodeDepth = 3 (default)", "threads = 8 (ZARRDIRECT_THREADS)"),
                r.resolved().stream().map(ResolvedSetting::describe).toList());
        props.put("zarrdirect.threads", "9");
        SettingResolver p = resolver(SettingValues.builder().set("decodeDepth", "4").build());
        p.get(THREADS);
        p.get(DEPTH);
        assertEquals(List.of("threads = 9 (-Dzarrdirect.threads)", "decodeDepth = 4 (explicit)"),
                p.resolved().stream().map(ResolvedSetting::describe).toList());
    }

    @Test
    void unknownExplicitNamesAreRejectedListingTheKnownOnes() {
        SettingValues v = SettingValues.builder().set("decodeDepht", "4").build();
        var e = assertThrows(InvalidSettingException.class,
                () -> v.requireKnown(List.of(THREADS, DEPTH), List.of("zarrdirect.codec.")));
        assertEquals("unknown setting zarrdirect.decodeDepht = \"4\"; the settings are: zarrdirect.decodeDepth, "
                + "zarrdirect.threads, zarrdirect.codec.<name>. See docs/settings.md.", e.getMessage());
        SettingValues.builder().set("codec.zstd", "cpu").set("threads", "2").build()
                .requireKnown(List.of(THREADS, DEPTH), List.of("zarrdirect.codec."));
    }

    @Test
    void explicitValuesTakeNamesWithOrWithoutThePrefixAndTheLastWins() {
        SettingValues v = SettingValues.builder().set("threads", "2").set("zarrdirect.threads", "3")
                .set(DEPTH, 7).build();
        assertEquals(List.of("zarrdirect.threads", "zarrdirect.decodeDepth"), List.copyOf(v.names()));
        assertEquals("3", v.get("zarrdirect.threads").orElseThrow());
        assertEquals("7", v.get("zarrdirect.decodeDepth").orElseThrow());
        assertEquals("4", v.with(SettingValues.of(Map.of("threads", "4"))).get("zarrdirect.threads").orElseThrow());
        assertThrows(IllegalArgumentException.class, () -> SettingValues.builder().set("", "1"));
        assertThrows(IllegalArgumentException.class, () -> SettingValues.builder().set("threads", null));
        assertTrue(SettingValues.none().isEmpty());
    }

    @Test
    void familyMembersComeFromExplicitValuesAndProperties() {
        props.put("zarrdirect.codec.blosc", "cpu");
        SettingResolver r = new SettingResolver(SettingValues.builder().set("codec.zstd", "cuda").build(), props::get,
                env::get);
        // the test constructor enumerates no properties: only explicit members
        assertEquals(List.of("zstd"), r.familyMembers("zarrdirect.codec."));
    }
}
