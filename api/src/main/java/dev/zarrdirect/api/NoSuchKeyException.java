// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A key that had to exist does not. */
public class NoSuchKeyException extends StoreException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; the message is {@code key "<key>" not found in <store>}.
     *
     * @param store the store's description ({@link dev.zarrdirect.api.store.Store#toString()})
     * @param key   the key that was looked for
     */
    public NoSuchKeyException(String store, String key) {
        super(store, key, "key \"" + key + "\" not found in " + store);
    }
}
