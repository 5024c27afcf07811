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

    /**
     * The conversion is planned and every option checked; nothing is written yet.
     *
     * @param summary what the conversion is about to do
     */
    default void planned(ConvertSummary summary) {
    }

    /**
     * The destination, a Zarr store, is about to be emptied ({@link ConvertOptions#overwrite()}).
     *
     * @param destination the destination as error messages name it
     */
    default void overwriting(String destination) {
    }

    /**
     * Writing starts; {@code done} of the {@code total} shards (chunks when unsharded) were written by
     * an earlier run that this one resumes.
     *
     * @param done  units already written, 0 for a fresh conversion
     * @param total units of every destination array
     */
    default void started(long done, long total) {
    }

    /**
     * More shards (or chunks) of an array are written. Called from the conversion's threads,
     * concurrently: the listener synchronizes what it keeps.
     *
     * @param path         the array's path ({@code ""} for a root array)
     * @param units        the shards (or chunks) of one block, just written
     * @param decodedBytes the bytes of their elements, decoded (not as stored)
     */
    default void written(String path, long units, long decodedBytes) {
    }

    /** Writing ended: finished, stopped by {@link ConvertOptions#maxShards()}, or failed. */
    default void writingEnded() {
    }

    /**
     * Every shard is written and the metadata is final; packing and verifying come next, when asked.
     *
     * @param result how the conversion ended; {@link ConvertResult#complete()} is true
     */
    default void converted(ConvertResult result) {
    }

    /**
     * The .zip destination is written and the staging directory removed.
     *
     * @param archive the archive's path
     * @param bytes   its size in bytes
     */
    default void packed(Path archive, long bytes) {
    }

    /**
     * The SHA-256 of an array's elements in source and destination (as
     * {@link dev.zarrdirect.core.ArrayChecksum}). Called before the conversion throws
     * {@link ConvertException} for digests that differ.
     *
     * @param path              the array's path ({@code ""} for a root array)
     * @param sourceSha256      the source's digest, 64 lowercase hex digits
     * @param destinationSha256 the destination's digest, 64 lowercase hex digits
     */
    default void verified(String path, String sourceSha256, String destinationSha256) {
    }
}
