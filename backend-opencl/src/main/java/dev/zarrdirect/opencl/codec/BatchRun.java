// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.opencl.OpenClBackend;

/**
 * The frame of every OpenCL codec call: find the backend, let the codec's host-side checks fail
 * single items, resolve the rest to device memory, run the launches, copy host outputs back. A
 * failure of a launch itself (a driver error) fails every item that was part of it, never the
 * items of other launches.
 */
public final class BatchRun {

    /** The codec's part of a batch call. */
    public interface Work {
        /**
         * Checks item {@code i} on the host (sizes); throws to fail it alone; returns false when it
         * completed the item itself without a launch (an in-place identity copy).
         */
        boolean check(int i);

        /**
         * Runs one group of items (one launch per stage); sets {@code written[i]} to the bytes item
         * {@code i} wrote, or fails the item on the batch.
         */
        void launch(OpenClBackend backend, DeviceItems items, DeviceItems.Group group, long[] written);
    }

    private BatchRun() {
    }

    public static void run(OpenClBackend bound, String codec, String direction, CodecBatch batch, Work work) {
        OpenClBackend backend = DeviceItems.backendOf(bound, batch);
        if (DeviceItems.failWithoutBackend(backend, codec, direction, batch)) {
            return;
        }
        boolean[] active = new boolean[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            try {
                active[i] = work.check(i);
            } catch (ZarrDirectException e) {
                batch.fail(i, e);
            } catch (RuntimeException e) {
                batch.fail(i, new CodecException(codec, "opencl " + codec + " " + direction + " of " + batch.label(i)
                        + " failed: " + e.getMessage(), e));
            }
        }
        long[] written = new long[batch.size()];
        java.util.Arrays.fill(written, -1);
        try (DeviceItems items = DeviceItems.resolve(backend, codec, direction, batch, active)) {
            for (DeviceItems.Group g : items.groups(active)) {
                try {
                    work.launch(backend, items, g, written);
                } catch (RuntimeException e) {
                    for (int i : g.items()) {
                        written[i] = -1;
                        // One exception per item: the batch attaches the others to the first as suppressed.
                        batch.fail(i, new CodecException(codec, "opencl " + codec + " " + direction + " of "
                                + batch.label(i) + " failed on " + backend.device() + ": " + e.getMessage(), e));
                    }
                }
            }
            items.finish(written);
        }
        for (int i = 0; i < batch.size(); i++) {
            if (written[i] >= 0 && batch.failure(i) == null) {
                batch.complete(i, written[i]);
            }
        }
    }
}
