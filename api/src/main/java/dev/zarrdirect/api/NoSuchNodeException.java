// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

import java.io.Serial;
import java.util.List;

/**
 * No Zarr array or group at a path of a store: none of the metadata keys of either format exists
 * there. {@link #key()} is the v3 {@code zarr.json} key; {@link #keysTried()} every key looked for.
 */
public class NoSuchNodeException extends NoSuchKeyException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The node's path in the store. */
    private final String path;
    /** Every metadata key looked for, v3 first. */
    private final List<String> keysTried;
    /** The whole message. */
    private final String message;

    /**
     * Creates the exception.
     *
     * @param store     the store's description ({@link dev.zarrdirect.api.store.Store#toString()})
     * @param path      the node's path in the store ({@code ""} for the root)
     * @param keysTried every metadata key looked for, v3 first; must not be empty (its first element
     *                  becomes {@link #key()}); copied
     * @param message   the whole message, returned by {@link #getMessage()} in place of the
     *                  {@link NoSuchKeyException} one
     * @throws java.util.NoSuchElementException when {@code keysTried} is empty
     */
    public NoSuchNodeException(String store, String path, List<String> keysTried, String message) {
        super(store, keysTried.getFirst());
        this.path = path;
        this.keysTried = List.copyOf(keysTried);
        this.message = message;
    }

    /**
     * The node's path in the store ({@code ""} for the root).
     *
     * @return the path as given to the constructor
     */
    public String path() {
        return path;
    }

    /**
     * Every metadata key that was looked for, v3 first ({@code zarr.json}, then the v2 documents).
     *
     * @return an unmodifiable list, never empty
     */
    public List<String> keysTried() {
        return keysTried;
    }

    /**
     * The message given to the constructor, which names the path, the store and the keys tried.
     *
     * @return the message
     */
    @Override
    public String getMessage() {
        return message;
    }
}
