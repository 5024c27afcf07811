// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.assemble;

import dev.zarrdirect.loader.dataset.Variable;

import java.util.Arrays;
import java.util.List;

/**
 * How one batch's decoded data lies in a staging buffer: a region per variable holding, in the
 * array's own axis order, the batch's distinct time steps × the distinct channels it selects × the
 * cropped plane. Sized for the worst batch (every sample's steps distinct), so one buffer serves
 * every batch and none is allocated per batch.
 */
public final class StagingLayout {

    private final List<Variable> variables;
    private final long[] offsets;
    private final int[][] staged;
    private final long totalBytes;
    private final int maxSteps;
    private final long planeElements;

    public StagingLayout(List<Variable> variables, int maxSteps, long planeElements) {
        this.variables = List.copyOf(variables);
        this.maxSteps = maxSteps;
        this.planeElements = planeElements;
        offsets = new long[variables.size()];
        staged = new int[variables.size()][];
        long at = 0;
        for (int i = 0; i < variables.size(); i++) {
            Variable v = variables.get(i);
            staged[i] = Arrays.stream(v.channels()).distinct().sorted().toArray();
            offsets[i] = at;
            long bytes = (long) maxSteps * staged[i].length * planeElements * v.array().dataType().byteSize();
            // 256-byte alignment keeps every region aligned for vector loads on every device
            at += (bytes + 255) & ~255L;
        }
        totalBytes = Math.max(1, at);
    }

    public List<Variable> variables() {
        return variables;
    }

    /** Byte offset of variable {@code i}'s region. */
    public long offset(int i) {
        return offsets[i];
    }

    /** The distinct source channels variable {@code i} reads, ascending: the staged channel axis. */
    public int[] stagedChannels(int i) {
        return staged[i];
    }

    public long totalBytes() {
        return totalBytes;
    }

    public int maxSteps() {
        return maxSteps;
    }

    public long planeElements() {
        return planeElements;
    }
}
