// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.plan;

import java.util.List;

/**
 * One request to the store: bytes {@code [offset, offset+length)} of the value at {@code key}
 * ({@code length} -1: the whole value, holding one chunk), and the chunks whose bytes lie in it.
 * Ranges of one key that lie close together are coalesced into one ({@link ReadPlanner#COALESCE_GAP}).
 */
public record FetchRange(String key, long offset, long length, List<ChunkRead> chunks) {

    public FetchRange {
        chunks = List.copyOf(chunks);
    }

    /** True when the request is the whole value at {@link #key()}. */
    public boolean whole() {
        return length < 0;
    }
}
