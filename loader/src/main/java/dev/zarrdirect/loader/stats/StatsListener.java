// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.stats;

/**
 * Hears how far a {@link ChannelStatistics} computation is. Called on the computing thread after
 * each read, with counts that only grow; {@code stepsDone == stepsTotal} comes last.
 */
@FunctionalInterface
public interface StatsListener {

    /** A listener that ignores progress. */
    StatsListener NONE = (stepsDone, stepsTotal, bytesRead) -> { };

    /**
     * @param stepsDone  time steps of variables done (a step of two variables counts twice)
     * @param stepsTotal time steps in the range times the number of variables
     * @param bytesRead  bytes of decoded array data read so far
     */
    void progress(long stepsDone, long stepsTotal, long bytesRead);
}
