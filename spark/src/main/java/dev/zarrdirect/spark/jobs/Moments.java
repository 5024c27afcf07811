// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import java.io.Serial;
import java.io.Serializable;

/**
 * Count, mean and sum of squared deviations ({@code M2}) of one channel's values, NaNs skipped and
 * counted, in double: what a task sends back, merged on the driver in task order.
 *
 * <p>The same method as the loader's single-machine statistics (whose accumulator is package-private
 * there): each block of values is summarised by two passes (mean, then {@code Σd² − (Σd)²/n}, the
 * corrected form whose second term cancels the rounding of the mean), and blocks merge by Chan,
 * Golub and LeVeque's pairwise update, so that the result does not depend on how the work was cut
 * beyond rounding. Not thread-safe.
 */
final class Moments implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    private long count;
    private double mean;
    private double m2;
    private long nanCount;

    /** Adds {@code values[0, n)}. */
    void add(float[] values, int n) {
        double sum = 0;
        long valid = 0;
        for (int i = 0; i < n; i++) {
            float x = values[i];
            if (x == x) {
                sum += x;
                valid++;
            }
        }
        nanCount += n - valid;
        if (valid == 0) {
            return;
        }
        double blockMean = sum / valid;
        double d1 = 0;
        double d2 = 0;
        for (int i = 0; i < n; i++) {
            float x = values[i];
            if (x == x) {
                double d = x - blockMean;
                d1 += d;
                d2 += d * d;
            }
        }
        merge(valid, blockMean, Math.max(0, d2 - d1 * d1 / valid), 0);
    }

    /** Adds {@code values[0, n)}. */
    void add(double[] values, int n) {
        double sum = 0;
        long valid = 0;
        for (int i = 0; i < n; i++) {
            double x = values[i];
            if (x == x) {
                sum += x;
                valid++;
            }
        }
        nanCount += n - valid;
        if (valid == 0) {
            return;
        }
        double blockMean = sum / valid;
        double d1 = 0;
        double d2 = 0;
        for (int i = 0; i < n; i++) {
            double x = values[i];
            if (x == x) {
                double d = x - blockMean;
                d1 += d;
                d2 += d * d;
            }
        }
        merge(valid, blockMean, Math.max(0, d2 - d1 * d1 / valid), 0);
    }

    /** Adds the moments of another part of the same channel. */
    void merge(Moments other) {
        merge(other.count, other.mean, other.m2, other.nanCount);
    }

    private void merge(long n, double otherMean, double otherM2, long otherNans) {
        nanCount += otherNans;
        if (n == 0) {
            return;
        }
        long total = count + n;
        double delta = otherMean - mean;
        mean += delta * ((double) n / total);
        m2 += otherM2 + delta * delta * ((double) count * n / total);
        count = total;
    }

    long count() {
        return count;
    }

    long nanCount() {
        return nanCount;
    }

    /** NaN when there are no values. */
    double mean() {
        return count == 0 ? Double.NaN : mean;
    }

    /** The population standard deviation (ddof 0); NaN when there are no values. */
    double std() {
        return count == 0 ? Double.NaN : Math.sqrt(m2 / count);
    }
}
