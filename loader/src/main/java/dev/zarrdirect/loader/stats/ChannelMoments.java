// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.stats;

import java.io.Serial;
import java.io.Serializable;

/**
 * The running count, mean and sum of squared deviations ({@code M2}) of one channel's values, NaNs
 * skipped and counted, everything in double.
 *
 * <p>A block of values (a piece of one plane) is summarised first: its mean from one pass, then its
 * {@code M2} from a second pass as {@code Σd² − (Σd)²/n} with {@code d = x − mean}, the corrected
 * two-pass algorithm of Chan, Golub and LeVeque, whose second term removes the rounding error of the
 * mean. That is as stable as Welford's update for a block held in memory, and needs no division per
 * element. Blocks then merge into the running moments by Chan et al.'s pairwise formula
 * ({@link #merge}), which keeps the error independent of where the running mean sits: a channel
 * of values near 10⁴ with noise of 10⁻² loses no more than one near 0.
 *
 * <p>Serializable, so that the parts of a channel computed apart (the Spark {@code stats} job's
 * tasks) merge into one with {@link #merge(ChannelMoments)}. Not thread-safe.
 */
public final class ChannelMoments implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    private long count;
    private double mean;
    private double m2;
    private long nanCount;

    /** Adds {@code values[0, n)}. */
    public void add(float[] values, int n) {
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
        double d2 = 0;
        double d1 = 0;
        for (int i = 0; i < n; i++) {
            float x = values[i];
            if (x == x) {
                double d = x - blockMean;
                d1 += d;
                d2 += d * d;
            }
        }
        merge(valid, blockMean, Math.max(0, d2 - d1 * d1 / valid));
    }

    /** Adds {@code values[0, n)}. */
    public void add(double[] values, int n) {
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
        double d2 = 0;
        double d1 = 0;
        for (int i = 0; i < n; i++) {
            double x = values[i];
            if (x == x) {
                double d = x - blockMean;
                d1 += d;
                d2 += d * d;
            }
        }
        merge(valid, blockMean, Math.max(0, d2 - d1 * d1 / valid));
    }

    /**
     * Merges the moments of {@code n} more values of mean {@code blockMean} and sum of squared
     * deviations {@code blockM2}: Chan, Golub and LeVeque's {@code δ = mean_b − mean_a},
     * {@code mean = mean_a + δ·n_b/n}, {@code M2 = M2_a + M2_b + δ²·n_a·n_b/n}.
     */
    public void merge(long n, double blockMean, double blockM2) {
        if (n == 0) {
            return;
        }
        long total = count + n;
        double delta = blockMean - mean;
        mean += delta * ((double) n / total);
        m2 += blockM2 + delta * delta * ((double) count * n / total);
        count = total;
    }

    /** Adds the moments of another part of the same channel, its NaNs included. */
    public void merge(ChannelMoments other) {
        nanCount += other.nanCount;
        merge(other.count, other.mean, other.m2);
    }

    /** Values seen that are not NaN. */
    public long count() {
        return count;
    }

    /** NaN values seen. */
    public long nanCount() {
        return nanCount;
    }

    /** The mean of the values that are not NaN; NaN when there are none. */
    public double mean() {
        return count == 0 ? Double.NaN : mean;
    }

    /** The population standard deviation (ddof = 0) of the values that are not NaN; NaN when there are none. */
    public double std() {
        return count == 0 ? Double.NaN : Math.sqrt(m2 / count);
    }
}
