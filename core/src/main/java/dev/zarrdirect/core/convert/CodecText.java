// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import dev.zarrdirect.core.metadata.CodecMetadata;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Bytes-to-bytes codecs written as text, the grammar of {@code zarr-direct convert --codec}, which the
 * Spark jobs and the Spark {@code zarr} writer read too: {@code none}, or
 * {@code NAME[:KEY=VALUE,...]} with integer, {@code true}/{@code false} or text values
 * ({@code zstd:level=3,checksum=false}, {@code blosc:cname=lz4,clevel=5,shuffle=shuffle},
 * {@code crc32c}). Stateless.
 */
public final class CodecText {

    private CodecText() {
    }

    /**
     * Parses one codec.
     *
     * @param text the codec as above
     * @param what how the text is named in messages ({@code --codec}, {@code codec})
     * @return the codec, or an empty list for {@code none}
     * @throws IllegalArgumentException naming {@code what} and the text, when it has no name or a
     *                                  part is not KEY=VALUE
     */
    public static List<CodecMetadata> parse(String text, String what) {
        String t = text.trim();
        if (t.equalsIgnoreCase("none")) {
            return List.of();
        }
        int colon = t.indexOf(':');
        String name = (colon < 0 ? t : t.substring(0, colon)).trim().toLowerCase(Locale.ROOT);
        if (name.isEmpty()) {
            throw new IllegalArgumentException(what + " \"" + text + "\" has no codec name; write NAME or"
                    + " NAME:KEY=VALUE,..., such as zstd:level=3");
        }
        Map<String, Object> cfg = new LinkedHashMap<>();
        if (colon >= 0 && !t.substring(colon + 1).isBlank()) {
            for (String kv : t.substring(colon + 1).split(",")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException(what + " \"" + text + "\": \"" + kv.trim()
                            + "\" is not KEY=VALUE, such as level=3");
                }
                cfg.put(kv.substring(0, eq).trim(), value(kv.substring(eq + 1).trim()));
            }
        }
        return List.of(CodecMetadata.of(name, cfg));
    }

    /**
     * Parses a chain of codecs separated by {@code ;}, in order.
     *
     * @param text such as {@code zstd:level=3;crc32c}
     * @param what how the text is named in messages
     * @return the codecs; empty for {@code none}
     * @throws IllegalArgumentException as {@link #parse}
     */
    public static List<CodecMetadata> parseChain(String text, String what) {
        List<CodecMetadata> out = new ArrayList<>();
        for (String part : text.split(";")) {
            out.addAll(parse(part, what));
        }
        return out;
    }

    private static Object value(String v) {
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(v);
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            return v;
        }
    }
}
