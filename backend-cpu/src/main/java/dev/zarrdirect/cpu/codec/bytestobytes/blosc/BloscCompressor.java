// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;

import java.util.Arrays;
import java.util.List;

/**
 * The compressors a Blosc1 buffer may name, with the code its header stores in the top three bits
 * of the flags byte. {@code lz4hc} writes plain LZ4 blocks and shares the code of {@code lz4}.
 * Snappy (code 2) is part of the format but not implemented here.
 */
public enum BloscCompressor {
    BLOSCLZ("blosclz", 0),
    LZ4("lz4", 1),
    LZ4HC("lz4hc", 1),
    ZLIB("zlib", 3),
    ZSTD("zstd", 4);

    /** The code of Snappy, which the format reserves and this implementation cannot decode. */
    public static final int SNAPPY_CODE = 2;

    private final String cname;
    private final int code;

    BloscCompressor(String cname, int code) {
        this.cname = cname;
        this.code = code;
    }

    /** The name in a codec configuration: {@code "lz4"}. */
    public String cname() {
        return cname;
    }

    /** The 3-bit code in the header's flags. */
    public int code() {
        return code;
    }

    /** The compressor that decodes blocks written with {@code code}, or null for codes not implemented. */
    public static BloscCompressor forCode(int code) {
        return switch (code) {
            case 0 -> BLOSCLZ;
            case 1 -> LZ4;
            case 3 -> ZLIB;
            case 4 -> ZSTD;
            default -> null;
        };
    }

    /** The compressor named {@code cname}, or null. */
    public static BloscCompressor forName(String cname) {
        for (BloscCompressor c : values()) {
            if (c.cname.equals(cname)) {
                return c;
            }
        }
        return null;
    }

    /** All configuration names, for error messages. */
    public static List<String> names() {
        return Arrays.stream(values()).map(BloscCompressor::cname).toList();
    }
}
