// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.kernels.ScatterTable;

import java.util.ArrayList;
import java.util.List;

/**
 * Many contiguous device-to-device copies as one scatter launch (instead of one
 * {@code cuMemcpyDtoDAsync} per chunk): each copy a rank-1 box whose element is the largest of 16,
 * 8, 4, 2 or 1 bytes that divides every length, which keeps the kernel's index arithmetic per byte
 * small. Copies whose source and destination are the same address are skipped.
 */
final class DeviceCopies {

    private final List<long[]> copies = new ArrayList<>(); // {src, dst, bytes}

    void add(long src, long dst, long bytes) {
        if (bytes > 0 && src != dst) {
            copies.add(new long[]{src, dst, bytes});
        }
    }

    boolean isEmpty() {
        return copies.isEmpty();
    }

    /** The element size the copies run with. */
    static int elementFor(List<long[]> copies) {
        int e = 16;
        for (long[] c : copies) {
            while (c[2] % e != 0) {
                e >>= 1;
            }
        }
        return e;
    }

    /** The scatter entries for the copies with element size {@code elem}. */
    static List<ScatterTable.Entry> entries(List<long[]> copies, int elem) {
        List<ScatterTable.Entry> out = new ArrayList<>(copies.size());
        for (long[] c : copies) {
            long[] stride = {elem};
            out.add(new ScatterTable.Entry(c[0], stride, c[1], stride, new long[]{c[2] / elem}));
        }
        return out;
    }

    /** Runs the copies; returns when they are complete. */
    void run(CudaBackend backend, CudaDevice device, String what) {
        if (copies.isEmpty()) {
            return;
        }
        int elem = elementFor(copies);
        backend.scatter(device, entries(copies, elem), elem, null, what);
    }
}
