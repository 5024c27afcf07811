// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.assemble;

import dev.zarrdirect.core.plan.ReadPlanner;
import dev.zarrdirect.loader.dataset.Variable;
import dev.zarrdirect.loader.dataset.WindowDataset;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one batch needs, worked out before anything is read: for each variable, the boxes to read
 * (each distinct time step once, however many samples share it; selected channels in contiguous
 * runs) into its staging region, and the plane table that gathers them into the slot.
 *
 * @param sampleStarts the time index of each sample's first input step
 * @param steps        the distinct time steps the batch reads, ascending
 * @param variables    per variable, its reads and gather table
 */
public record BatchAssembly(long[] sampleStarts, long[] steps, List<VariableAssembly> variables) {

    /**
     * One variable's part of a batch.
     *
     * @param variable  the variable
     * @param requests  boxes of the array and where they go in the staging region
     * @param destShape the staging region's shape, in the array's axis order
     * @param srcPlane  per gathered plane, its plane in the staging region
     * @param dstPlane  per gathered plane, its plane in the slot
     * @param scale     per gathered plane, the normalization factor
     * @param shift     per gathered plane, the normalization offset
     */
    public record VariableAssembly(Variable variable, List<ReadPlanner.Request> requests, long[] destShape,
                                   long[] srcPlane, long[] dstPlane, float[] scale, float[] shift) {
    }

    /** Plans the batch of {@code sampleStarts} (at most the layout's batch size) of {@code dataset}. */
    public static BatchAssembly of(WindowDataset dataset, StagingLayout staging, SlotLayout slot, Normalizer norm,
                                   long[] sampleStarts) {
        int window = slot.history() + slot.future();
        if (sampleStarts.length > slot.batchSize()) {
            throw new IllegalArgumentException(sampleStarts.length + " samples do not fit a batch of " + slot.batchSize());
        }
        long[][] sampleSteps = new long[sampleStarts.length][];
        for (int b = 0; b < sampleStarts.length; b++) {
            long[] in = dataset.inputSteps(sampleStarts[b]);
            long[] out = dataset.targetSteps(sampleStarts[b]);
            long[] all = Arrays.copyOf(in, window);
            System.arraycopy(out, 0, all, in.length, out.length);
            sampleSteps[b] = all;
        }
        long[] steps = Arrays.stream(sampleSteps).flatMapToLong(Arrays::stream).distinct().sorted().toArray();
        long[] cropStart = dataset.cropStart();
        List<VariableAssembly> out = new ArrayList<>();
        for (int vi = 0; vi < staging.variables().size(); vi++) {
            Variable v = staging.variables().get(vi);
            int[] staged = staging.stagedChannels(vi);
            int rank = v.array().rank();
            int ta = v.timeAxis();
            int ca = v.channelAxis();
            long[] destShape = new long[rank];
            destShape[ta] = steps.length;
            if (ca >= 0) {
                destShape[ca] = staged.length;
            }
            destShape[rank - 2] = slot.height();
            destShape[rank - 1] = slot.width();
            List<ReadPlanner.Request> requests = new ArrayList<>();
            for (int i = 0; i < steps.length; i++) {
                if (ca < 0) {
                    requests.add(box(rank, ta, steps[i], i, -1, 0, 0, 0, cropStart, slot));
                    continue;
                }
                for (int k = 0; k < staged.length; ) {
                    int end = k + 1;
                    while (end < staged.length && staged[end] == staged[end - 1] + 1) {
                        end++;
                    }
                    requests.add(box(rank, ta, steps[i], i, ca, staged[k], staged[end - 1] + 1, k, cropStart, slot));
                    k = end;
                }
            }
            int nChan = v.channels().length;
            int planes = sampleStarts.length * window * nChan;
            long[] srcPlane = new long[planes];
            long[] dstPlane = new long[planes];
            float[] scale = new float[planes];
            float[] shift = new float[planes];
            int p = 0;
            for (int b = 0; b < sampleStarts.length; b++) {
                for (int t = 0; t < window; t++) {
                    int i = Arrays.binarySearch(steps, sampleSteps[b][t]);
                    for (int j = 0; j < nChan; j++) {
                        int k = ca < 0 ? 0 : Arrays.binarySearch(staged, v.channels()[j]);
                        int c = v.firstOutputChannel() + j;
                        srcPlane[p] = ca < 0 ? i : ta < ca ? (long) i * staged.length + k : (long) k * steps.length + i;
                        dstPlane[p] = slot.plane(b, t, c);
                        scale[p] = norm.scale(c);
                        shift[p] = norm.shift(c);
                        p++;
                    }
                }
            }
            out.add(new VariableAssembly(v, List.copyOf(requests), destShape, srcPlane, dstPlane, scale, shift));
        }
        return new BatchAssembly(sampleStarts.clone(), steps, List.copyOf(out));
    }

    private static ReadPlanner.Request box(int rank, int ta, long step, int stepIndex, int ca, int c0, int c1, int k,
                                           long[] cropStart, SlotLayout slot) {
        long[] start = new long[rank];
        long[] stop = new long[rank];
        long[] at = new long[rank];
        start[ta] = step;
        stop[ta] = step + 1;
        at[ta] = stepIndex;
        if (ca >= 0) {
            start[ca] = c0;
            stop[ca] = c1;
            at[ca] = k;
        }
        start[rank - 2] = cropStart[0];
        stop[rank - 2] = cropStart[0] + slot.height();
        start[rank - 1] = cropStart[1];
        stop[rank - 1] = cropStart[1] + slot.width();
        return new ReadPlanner.Request(start, stop, at);
    }
}
