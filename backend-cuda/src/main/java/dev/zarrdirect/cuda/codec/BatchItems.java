// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cuda.driver.CudaDevice;

import java.util.Arrays;

/**
 * The items of a batch that a bytes-to-bytes decode kernel runs over: for items {@code [from, to)},
 * their batch indices, device input and output addresses and sizes. An item whose buffers are not on
 * the codec's device, or that {@code check} rejects, fails alone and is left out.
 *
 * @param item the batch index of each kept item
 * @param srcAddr input device addresses
 * @param srcSize input byte sizes
 * @param dstAddr output device addresses
 * @param dstSize output byte sizes
 */
record BatchItems(int[] item, long[] srcAddr, long[] srcSize, long[] dstAddr, long[] dstSize) {

    /** Rejects an item before the launch by throwing (a corrupt or impossible input). */
    interface Check {
        void check(int i);
    }

    static BatchItems collect(String codec, CodecBatch batch, int from, int to, CudaDevice device, Check check) {
        int cap = to - from;
        int[] item = new int[cap];
        long[] sa = new long[cap], ss = new long[cap], da = new long[cap], ds = new long[cap];
        int n = 0;
        for (int i = from; i < to; i++) {
            try {
                long in = DeviceWork.address(codec, batch, i, batch.input(i), "input", device);
                long out = DeviceWork.address(codec, batch, i, batch.output(i), "output", device);
                check.check(i);
                item[n] = i;
                sa[n] = in;
                ss[n] = batch.input(i).byteSize();
                da[n] = out;
                ds[n] = batch.output(i).byteSize();
                n++;
            } catch (ZarrDirectException e) {
                batch.fail(i, e);
            }
        }
        return new BatchItems(Arrays.copyOf(item, n), Arrays.copyOf(sa, n), Arrays.copyOf(ss, n), Arrays.copyOf(da, n),
                Arrays.copyOf(ds, n));
    }

    int size() {
        return item.length;
    }

    ItemTable table() {
        return ItemTable.of(srcAddr, srcSize, dstAddr, dstSize);
    }

    /** The items at {@code which} (indices into these), in that order. */
    BatchItems subset(java.util.List<Integer> which) {
        int n = which.size();
        int[] it = new int[n];
        long[] sa = new long[n], ss = new long[n], da = new long[n], ds = new long[n];
        for (int j = 0; j < n; j++) {
            int k = which.get(j);
            it[j] = item[k];
            sa[j] = srcAddr[k];
            ss[j] = srcSize[k];
            da[j] = dstAddr[k];
            ds[j] = dstSize[k];
        }
        return new BatchItems(it, sa, ss, da, ds);
    }
}
