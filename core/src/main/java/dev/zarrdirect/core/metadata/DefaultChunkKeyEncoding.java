// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

/**
 * The {@code default} encoding: {@code c} then the index, {@code c/0/3/1} or {@code c.0.3.1}; {@code c} at rank 0.
 *
 * @param separator {@code '/'} (the spec's default) or {@code '.'}
 */
public record DefaultChunkKeyEncoding(char separator) implements ChunkKeyEncoding {
    /** The encoding's name in metadata. */
    public static final String NAME = "default";

    /**
     * Checks the separator.
     *
     * @throws IllegalArgumentException when {@code separator} is neither {@code '/'} nor {@code '.'}
     */
    public DefaultChunkKeyEncoding {
        ChunkKeys.checkSeparator(separator, NAME);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String encode(long[] chunkIndex) {
        return ChunkKeys.join("c", chunkIndex, separator);
    }

    @Override
    public long[] decode(String relativeKey, int rank) {
        if (rank == 0) {
            return relativeKey.equals("c") ? new long[0] : null;
        }
        String prefix = "c" + separator;
        return relativeKey.startsWith(prefix)
                ? ChunkKeys.split(relativeKey.substring(prefix.length()), separator, rank) : null;
    }
}
