// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zarrdirect.api.backend.PlaneGather;
import dev.zarrdirect.loader.LoaderSpec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the fields of an {@code open} request (docs/loader-protocol.md) into a spec and options. */
final class Requests {

    private Requests() {
    }

    /** What an {@code open} request says beyond the spec: where and how to run. */
    record Options(String device, String backend, Map<String, String> settings, Long memoryBudget,
                   JsonNode normalize) {
    }

    static LoaderSpec spec(JsonNode r) {
        List<String> variables = new ArrayList<>();
        for (JsonNode v : array(r, "variables")) {
            variables.add(v.asText());
        }
        Map<String, int[]> channels = new LinkedHashMap<>();
        JsonNode ch = r.path("channels");
        if (ch.isObject()) {
            ch.properties().forEach(e -> {
                JsonNode list = e.getValue();
                if (!list.isArray()) {
                    throw new IllegalArgumentException("channels of '" + e.getKey() + "' must be a list of indices");
                }
                int[] idx = new int[list.size()];
                for (int i = 0; i < idx.length; i++) {
                    idx[i] = intValue(list.get(i), "channels of '" + e.getKey() + "'");
                }
                channels.put(e.getKey(), idx);
            });
        } else if (!ch.isMissingNode() && !ch.isNull()) {
            throw new IllegalArgumentException("channels must be a mapping of variable to indices");
        }
        JsonNode td = r.path("time_dim");
        String timeDim = td.isMissingNode() || td.isNull() ? null : td.asText();
        long timeStart = 0;
        long timeStop = -1;
        JsonNode tr = r.path("time_range");
        if (tr.isArray()) {
            if (tr.size() != 2) {
                throw new IllegalArgumentException("time_range must be (start, stop)");
            }
            timeStart = tr.get(0).isNull() ? 0 : tr.get(0).asLong();
            timeStop = tr.get(1).isNull() ? -1 : tr.get(1).asLong();
        }
        long[] crop = null;
        JsonNode c = r.path("crop");
        if (c.isArray()) {
            if (c.size() != 4) {
                throw new IllegalArgumentException("crop must be (y0, y1, x0, x1)");
            }
            crop = new long[4];
            for (int i = 0; i < 4; i++) {
                crop[i] = c.get(i).asLong();
            }
        }
        JsonNode nan = r.path("nan");
        Float nanValue = nan.isNumber() ? (float) nan.asDouble() : null;
        return new LoaderSpec(text(r, "path"), variables, channels, timeDim, r.path("history").asInt(1),
                r.path("future").asInt(0), r.path("stride").asInt(1), r.path("batch_size").asInt(1),
                r.path("shuffle").asBoolean(false), r.path("seed").asLong(0), r.path("drop_last").asBoolean(false),
                timeStart, timeStop, crop, r.path("rank").asInt(0), r.path("world_size").asInt(1), Map.of(),
                PlaneGather.Output.parse(r.path("dtype").asText("float32")), nanValue, r.path("prefetch").asInt(2));
    }

    static Options options(JsonNode r) {
        Map<String, String> settings = new LinkedHashMap<>();
        JsonNode s = r.path("settings");
        if (s.isObject()) {
            s.properties().forEach(e -> settings.put(e.getKey(), e.getValue().asText()));
        }
        JsonNode mb = r.path("memory_budget");
        return new Options(r.path("device").asText("cpu"), r.path("backend").asText("auto"), settings,
                mb.isNumber() ? mb.asLong() : null, r.path("normalize"));
    }

    private static JsonNode array(JsonNode r, String field) {
        JsonNode n = r.path(field);
        if (!n.isArray()) {
            throw new IllegalArgumentException("'" + field + "' must be a list");
        }
        return n;
    }

    private static String text(JsonNode r, String field) {
        JsonNode n = r.path(field);
        if (!n.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' must be a string");
        }
        return n.asText();
    }

    private static int intValue(JsonNode n, String what) {
        if (!n.isIntegralNumber()) {
            throw new IllegalArgumentException(what + " must be integers, not " + n);
        }
        return n.asInt();
    }
}
