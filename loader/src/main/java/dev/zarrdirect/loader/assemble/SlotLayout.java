// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.assemble;

import dev.zarrdirect.api.backend.PlaneGather;

/**
 * Where a batch lies in one slot: the input {@code [B, history, C, H, W]} from byte 0, the target
 * {@code [B, future, C, H, W]} right after it, both C-contiguous in the output type. A short last
 * batch fills the first rows of the same layout, so a slot never changes shape.
 */
public record SlotLayout(int batchSize, int history, int future, int channels, int height, int width,
                         PlaneGather.Output dtype) {

    public long planeElements() {
        return (long) height * width;
    }

    public long planeBytes() {
        return planeElements() * dtype.byteSize();
    }

    public long inputBytes() {
        return (long) batchSize * history * channels * planeBytes();
    }

    public long targetOffset() {
        return inputBytes();
    }

    public long targetBytes() {
        return (long) batchSize * future * channels * planeBytes();
    }

    public long slotBytes() {
        return Math.max(1, inputBytes() + targetBytes());
    }

    /** Bytes of input and target in a batch of {@code rows} samples: what a consumer receives. */
    public long deliveredBytes(int rows) {
        return (long) rows * (history + future) * channels * planeBytes();
    }

    public long[] inputShape() {
        return new long[] {batchSize, history, channels, height, width};
    }

    public long[] targetShape() {
        return new long[] {batchSize, future, channels, height, width};
    }

    /** Output plane of sample {@code b}, window step {@code t} (inputs first, then targets), channel {@code c}. */
    public long plane(int b, int t, int c) {
        if (t < history) {
            return ((long) b * history + t) * channels + c;
        }
        return (long) batchSize * history * channels + ((long) b * future + (t - history)) * channels + c;
    }
}
