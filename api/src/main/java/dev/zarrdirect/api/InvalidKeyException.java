// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A key that is absolute, contains {@code ..}, or would leave the store's root. */
public class InvalidKeyException extends StoreException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception; the message is {@code invalid key "<key>" for <store>: <why>}.
     *
     * @param store the store's description ({@link dev.zarrdirect.api.store.Store#toString()})
     * @param key   the key as given ({@code "null"} when it was null)
     * @param why   the rule the key breaks, as a clause ({@code keys are non-empty})
     */
    public InvalidKeyException(String store, String key, String why) {
        super(store, key, "invalid key \"" + key + "\" for " + store + ": " + why);
    }
}
