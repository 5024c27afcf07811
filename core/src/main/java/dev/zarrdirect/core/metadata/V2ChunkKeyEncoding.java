// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

/**
 * The {@code v2} encoding: the index alone, {@code 0.3.1} or {@code 0/3/1}; {@code 0} at rank 0.
 *
 * @param separator {@code '.'} (the spec's default) or {@code '/'}
 */
public record V2ChunkKeyEncoding(char separator) implements ChunkKeyEncoding {
    /** The encoding's name in metadata. */
    public static final String NAME = "v2";

    /**
     * Checks the separator.
     *
     * @throws IllegalArgumentException when {@code separator} is neither {@code '/'} nor {@code '.'}
     */
    public V2ChunkKeyEncoding {
        ChunkKeys.checkSeparator(separator, NAME);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String encode(long[] chunkIndex) {
        return chunkIndex.length == 0 ? "0" : ChunkKeys.join("", chunkIndex, separator);
    }

    @Override
    public long[] decode(String relativeKey, int rank) {
        if (rank == 0) {
            return relativeKey.equals("0") ? new long[0] : null;
        }
        return ChunkKeys.split(relativeKey, separator, rank);
    }
}
