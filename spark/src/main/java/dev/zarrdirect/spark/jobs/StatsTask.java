// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import dev.zarrdirect.loader.stats.ChannelMoments;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.loader.dataset.Variable;
import dev.zarrdirect.loader.dataset.WindowDataset;

import java.io.Serial;
import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One task of a statistics run: time steps {@code [t0, t1)} of source channels {@code [c0, c1)} of one
 * variable, read in one {@code ZarrArray.read} (the box is aligned to whole time chunks and channel
 * groups that share chunks, so no chunk is read by two tasks), summarised into the moments of the
 * covered channels it holds.
 *
 * @param request  the run's options
 * @param variable the variable's name
 * @param t0       the first step
 * @param t1       the step past the last
 * @param c0       the first source channel of the read (0 for a variable without channel axis)
 * @param c1       the channel past the last (1 for a variable without channel axis)
 * @param channels the covered channels within {@code [c0, c1)}, sorted
 */
record StatsTask(StatsRequest request, String variable, long t0, long t1, int c0, int c1, int[] channels)
        implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    /** Values copied out of a read at a time: bounds the scratch however large a plane is. */
    private static final int BLOCK_VALUES = 1 << 20;

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.nativeOrder());

    /** Runs on an executor: the moments of each of {@link #channels}, in order. */
    ChannelMoments[] run() {
        try (WindowDataset ds = WindowDataset.open(ExecutorContexts.of(request.backend()), request.spec())) {
            Variable v = ds.variable(variable);
            ChannelMoments[] out = new ChannelMoments[channels.length];
            Arrays.setAll(out, i -> new ChannelMoments());
            Selection box = ds.selection(v, t0, t1, c0, c1);
            long plane = (long) ds.height() * ds.width();
            boolean f32 = v.dataType().equals(DataType.FLOAT32);
            int block = (int) Math.min(plane, BLOCK_VALUES);
            float[] floats = f32 ? new float[block] : null;
            double[] doubles = f32 ? null : new double[block];
            try (Tensor data = v.array().read(box)) {
                long[] strides = data.strides();
                MemorySegment seg = data.segment();
                long width = v.dataType().byteSize();
                for (long t = t0; t < t1; t++) {
                    for (int i = 0; i < channels.length; i++) {
                        long offset = (t - t0) * strides[v.timeAxis()]
                                + (v.hasChannelAxis() ? (channels[i] - c0) * strides[v.channelAxis()] : 0);
                        for (long done = 0; done < plane; ) {
                            int n = (int) Math.min(block, plane - done);
                            long at = (offset + done) * width;
                            if (f32) {
                                MemorySegment.copy(seg, F32, at, floats, 0, n);
                                out[i].add(floats, n);
                            } else {
                                MemorySegment.copy(seg, F64, at, doubles, 0, n);
                                out[i].add(doubles, n);
                            }
                            done += n;
                        }
                    }
                }
            }
            return out;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StatsTask t && t.request.equals(request) && t.variable.equals(variable) && t.t0 == t0
                && t.t1 == t1 && t.c0 == c0 && t.c1 == c1 && Arrays.equals(t.channels, channels);
    }

    @Override
    public int hashCode() {
        return variable.hashCode() * 31 + Long.hashCode(t0);
    }

    @Override
    public String toString() {
        return "StatsTask[" + variable + " steps " + t0 + ":" + t1 + " channels " + Arrays.toString(channels) + "]";
    }
}
