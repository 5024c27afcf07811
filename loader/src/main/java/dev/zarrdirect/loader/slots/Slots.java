// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.slots;

import dev.zarrdirect.api.buffer.Buffer;

import java.util.Map;

/**
 * The ring of batch slots a loader writes and its consumer reads: memory both sides reach, and
 * what orders their use. The producer calls, for each batch, {@link #beforeWrite} (wait until the
 * consumer's work on the slot has finished), gathers into {@link #gatherTarget}, then
 * {@link #publish}; the consumer gets the slot's number and gives it back when done.
 */
public interface Slots extends AutoCloseable {

    /** Number of slots. */
    int count();

    /** {@code cuda-ipc}, {@code shm} or {@code host}: how a consumer maps the slots. */
    String memory();

    /** Memory the loader's backend gathers slot {@code slot}'s batch into. */
    Buffer gatherTarget(int slot);

    /** Blocks until the consumer's queued work on {@code slot} has finished. */
    void beforeWrite(int slot);

    /** Makes the first {@code bytes} bytes just gathered visible to the consumer in slot {@code slot}. */
    void publish(int slot, long bytes);

    /** What a consumer needs to map slot {@code slot} (handles, paths), as protocol fields. */
    Map<String, Object> describe(int slot);

    /** Called once the consumer has mapped every slot: names in the file system can go. */
    default void consumerMapped() {
    }

    @Override
    void close();
}
