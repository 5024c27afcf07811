// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import java.nio.file.Path;

/**
 * Hears how a conversion goes, in this order: {@link #planned}, maybe {@link #overwriting},
 * {@link #started}, {@link #written} many times, {@link #writingEnded}, then, when every shard is
 * written, {@link #converted}, {@link #packed} for a .zip destination and {@link #verified} once per
 * array when verifying. Every method does nothing by default.
 *
 * <p>{@link #written} is called from the conversion's threads, concurrently; the others from the
 * thread that called {@link Converter#convert}. A listener that throws stops the conversion with that
 * exception, leaving the destination to be resumed.
 */
public interface ConvertListener {

    /** Listens to nothing. */
    ConvertListener NONE = new ConvertListener() {
    };

    /** The conversion is planned and every option checked; nothing is written yet. */
    default void planned(ConvertSummary summary) {
    }

    /** The destination, a Zarr store, is about to be emptied ({@link ConvertOptions#overwrite()}). */
    default void overwriting(String destination) {
    }

    /**
     * Writing starts; {@code done} of the {@code total} shards (chunks when unsharded) were written by
     * an earlier run that this one resumes.
     */
    default void started(long done, long total) {
    }

    /** {@code units} more shards (or chunks) of array {@code path} are written, {@code decodedBytes} of elements. */
    default void written(String path, long units, long decodedBytes) {
    }

    /** Writing ended: finished, stopped by {@link ConvertOptions#maxShards()}, or failed. */
    default void writingEnded() {
    }

    /** Every shard is written and the metadata is final; packing and verifying come next, when asked. */
    default void converted(ConvertResult result) {
    }

    /** The .zip destination {@code archive} is written, {@code bytes} long, and the staging directory removed. */
    default void packed(Path archive, long bytes) {
    }

    /** The SHA-256 of array {@code path}'s elements in source and destination (as {@code ArrayChecksum}). */
    default void verified(String path, String sourceSha256, String destinationSha256) {
    }
}
