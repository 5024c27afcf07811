// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import java.util.List;

/**
 * How a conversion ended.
 *
 * @param arrays       the paths of the arrays converted ("" for a root array)
 * @param unitName     {@code shards} or {@code chunks}, as in {@link ConvertSummary#unitName()}
 * @param unitsTotal   the shards (or chunks) of every destination array
 * @param unitsDone    those written, by this run or the runs it resumed
 * @param unitsWritten those written by this run
 * @param decodedBytes the elements' bytes this run wrote
 * @param nanos        how long this run wrote, in nanoseconds
 */
public record ConvertResult(List<String> arrays, String unitName, long unitsTotal, long unitsDone, long unitsWritten,
                            long decodedBytes, long nanos) {

    /**
     * Copies {@code arrays}.
     *
     * @throws NullPointerException when {@code arrays} is or holds null
     */
    public ConvertResult {
        arrays = List.copyOf(arrays);
    }

    /**
     * True when every shard is written and the metadata final; false when {@link ConvertOptions#maxShards()}
     * stopped the conversion, which a second run with the same source and options resumes.
     *
     * @return whether {@code unitsDone >= unitsTotal}
     */
    public boolean complete() {
        return unitsDone >= unitsTotal;
    }
}
