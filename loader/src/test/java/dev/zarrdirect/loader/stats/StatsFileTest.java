// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.stats;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zarrdirect.loader.LoaderSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatsFileTest {

    /** t2m without channel axis; u with channels 0, 3 and 5, of which 5 is constant and 3 has no values. */
    private static StatsFile sample() {
        Map<String, StatsFile.VariableStats> vars = new LinkedHashMap<>();
        vars.put("t2m", new StatsFile.VariableStats(null, new double[]{287.5}, new double[]{15.25},
                new long[]{1000}, new long[]{0}));
        vars.put("u", new StatsFile.VariableStats(new int[]{0, 3, 5}, new double[]{1.5, Double.NaN, 2},
                new double[]{9.75, Double.NaN, 0}, new long[]{990, 0, 1000}, new long[]{10, 1000, 0}));
        return new StatsFile("/data/era5.zarr", 0, 48, vars);
    }

    private static String error(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    @Test
    void theFileHasTheDocumentedFieldsAndReadsBackEqual(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("stats.json");
        StatsFile stats = sample();
        stats.write(file);

        JsonNode doc = new ObjectMapper().readTree(Files.readString(file));
        assertEquals(List.of("format", "version", "store", "time_range", "variables"), List.copyOf(fieldNames(doc)));
        assertEquals("zarr-direct-stats", doc.get("format").asText());
        assertEquals(1, doc.get("version").intValue());
        assertEquals("[0,48]", doc.get("time_range").toString());
        assertTrue(doc.get("variables").get("t2m").get("channels").isNull());
        assertEquals("{\"channels\":[0,3,5],\"mean\":[1.5,null,2.0],\"std\":[9.75,null,0.0],\"count\":[990,0,1000],"
                + "\"nan_count\":[10,1000,0]}", doc.get("variables").get("u").toString());

        StatsFile back = StatsFile.read(file);
        assertEquals(stats, back);
        assertTrue(Double.isNaN(back.variables().get("u").mean()[1]));
        assertEquals(List.of("t2m", "u"), List.copyOf(back.variables().keySet()));
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> out = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(out::add);
        return out;
    }

    @Test
    void normalizationTakesTheSelectedChannelsBySourceIndexInTheOrderAsked() {
        Map<String, StatsFile.VariableStats> vars = new LinkedHashMap<>(sample().variables());
        vars.put("v", new StatsFile.VariableStats(new int[]{0, 1, 2}, new double[]{1, 2, 3}, new double[]{4, 5, 6},
                new long[]{1, 1, 1}, new long[]{0, 0, 0}));
        StatsFile stats = new StatsFile("s", 0, 1, vars);
        LoaderSpec.Normalization n = stats.normalization("v", new int[]{2, 0});
        assertArrayEquals(new double[]{3, 1}, n.mean());
        assertArrayEquals(new double[]{6, 4}, n.std());
        assertArrayEquals(new double[]{1, 2, 3}, stats.normalization("v", null).mean());
        assertArrayEquals(new double[]{287.5}, stats.normalization("t2m", null).mean());
        assertArrayEquals(new double[]{15.25}, stats.normalization("t2m", new int[]{0}).std());
    }

    @Test
    void normalizationOfAVariableOrChannelTheFileLacksSaysWhatItHas() {
        StatsFile stats = sample();
        assertEquals("the statistics of /data/era5.zarr over time steps [0, 48) have no variable \"v10\"; they have"
                + " [t2m, u]. Compute them with: zarr-direct stats /data/era5.zarr --variables t2m,u,v10",
                error(() -> stats.normalization("v10", null)));
        assertEquals("the statistics of /data/era5.zarr over time steps [0, 48) have no channel 1 of variable \"u\";"
                + " they cover its channels [0, 3, 5]. Compute them again with that channel selected",
                error(() -> stats.normalization("u", new int[]{0, 1})));
        assertEquals("variable \"t2m\" has no channel axis in the statistics of /data/era5.zarr over time steps [0, 48),"
                + " so it has channel 0 only, not 2", error(() -> stats.normalization("t2m", new int[]{2})));
    }

    @Test
    void aConstantChannelOrOneWithoutValuesCannotNormalizeAndSaysWhatToGiveInstead() {
        StatsFile stats = sample();
        assertEquals("channel 5 of variable \"u\" has mean 2.0 and standard deviation 0.0 in the statistics of"
                + " /data/era5.zarr over time steps [0, 48) (it is constant over the range); normalizing would divide"
                + " by zero: give it a fixed mean and std instead, such as (2.0, 1.0)",
                error(() -> stats.normalization("u", new int[]{5})));
        assertEquals("channel 3 of variable \"u\" has no values in the statistics of /data/era5.zarr over time steps"
                + " [0, 48) (all 1000 are NaN): give it a fixed mean and std to normalize it",
                error(() -> stats.normalization("u", new int[]{0, 3})));
    }

    @Test
    void aDocumentOfAnotherFormatOrVersionOrWithInconsistentArraysIsRefusedNamingTheField() {
        assertEquals("x.json is not a zarr-direct statistics file: its \"format\" is \"other\", not \"zarr-direct-stats\"",
                error(() -> StatsFile.parse("{\"format\": \"other\"}", "x.json")));
        assertEquals("x.json is a statistics file of version 2; this build reads version 1 (compute the statistics"
                        + " again with this build's zarr-direct stats)",
                error(() -> StatsFile.parse("{\"format\": \"zarr-direct-stats\", \"version\": 2}", "x.json")));
        String head = "{\"format\": \"zarr-direct-stats\", \"version\": 1, \"store\": \"s\", \"time_range\": [0, 4], ";
        assertEquals("x.json: \"variables.u\": statistics of 2 channel(s) need 2 entries each, not mean 1, std 2,"
                        + " count 2, nan_count 2",
                error(() -> StatsFile.parse(head + "\"variables\": {\"u\": {\"channels\": [0, 1], \"mean\": [1],"
                        + " \"std\": [1, 2], \"count\": [1, 1], \"nan_count\": [0, 0]}}}", "x.json")));
        assertEquals("x.json: \"variables.u.count\"[0] must be an integer, not 1.5",
                error(() -> StatsFile.parse(head + "\"variables\": {\"u\": {\"channels\": null, \"mean\": [1],"
                        + " \"std\": [1], \"count\": [1.5], \"nan_count\": [0]}}}", "x.json")));
        assertEquals("x.json: \"variables.u\" has no \"std\"",
                error(() -> StatsFile.parse(head + "\"variables\": {\"u\": {\"mean\": [1]}}}", "x.json")));
        assertTrue(error(() -> StatsFile.parse("{\"format\": ", "x.json")).startsWith("x.json is not valid JSON: "));
    }
}
