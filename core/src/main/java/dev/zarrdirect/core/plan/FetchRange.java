// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.plan;

import java.util.List;

/**
 * One request to the store: bytes {@code [offset, offset+length)} of the value at {@code key}
 * ({@code length} -1: the whole value, holding one chunk), and the chunks whose bytes lie in it.
 * Ranges of one key that lie close together are coalesced into one ({@link ReadPlanner#COALESCE_GAP}),
 * so a range may include gap bytes that no chunk uses. Made by {@link ReadPlanner}; immutable.
 *
 * @param key    the store key to read, such as {@code t2m/c/0/3} (a chunk, or a shard)
 * @param offset first byte of the range in that value; 0 for a whole value
 * @param length bytes in the range, or -1 for the whole value (then {@code chunks} holds one
 *               whole chunk)
 * @param chunks the chunks whose bytes lie in the range, in ascending offset; their offsets are
 *               relative to the value, not to the range; copied, unmodifiable
 */
public record FetchRange(String key, long offset, long length, List<ChunkRead> chunks) {

    /**
     * Copies the chunk list. Nothing else is checked.
     *
     * @throws NullPointerException if {@code chunks} or one of its elements is null
     */
    public FetchRange {
        chunks = List.copyOf(chunks);
    }

    /**
     * Whether the request reads the whole value at {@link #key()} rather than a byte range.
     *
     * @return true when {@link #length()} is negative (-1)
     */
    public boolean whole() {
        return length < 0;
    }
}
