// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A store operation failed; the message names the store and the key. */
public class StoreException extends ZarrDirectException {
    private static final long serialVersionUID = 1L;
    /** The store's description. */
    private final String store;
    /** The key involved, or null. */
    private final String key;

    /**
     * Creates the exception.
     *
     * @param store   the store's description ({@link dev.zarrdirect.api.store.Store#toString()})
     * @param key     the key involved, or null when the operation had none
     * @param message the whole message, naming the store, the key and what went wrong
     * @param cause   the underlying failure (an {@link java.io.IOException}, an HTTP error), or null
     */
    public StoreException(String store, String key, String message, Throwable cause) {
        super(message, cause);
        this.store = store;
        this.key = key;
    }

    /**
     * Creates the exception without a cause.
     *
     * @param store   the store's description ({@link dev.zarrdirect.api.store.Store#toString()})
     * @param key     the key involved, or null when the operation had none
     * @param message the whole message, naming the store, the key and what went wrong
     */
    public StoreException(String store, String key, String message) {
        this(store, key, message, null);
    }

    /**
     * A short description of the store, e.g. {@code FileSystemStore(root=/data/era5.zarr)}.
     *
     * @return the store's {@link dev.zarrdirect.api.store.Store#toString()} as given to the constructor
     */
    public String store() {
        return store;
    }

    /**
     * The key involved, or null when the operation had none (closing, listing the root).
     *
     * @return the key as given to the constructor, or null
     */
    public String key() {
        return key;
    }
}
