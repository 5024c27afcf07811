// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A key that is absolute, contains {@code ..}, or would leave the store's root. */
public class InvalidKeyException extends StoreException {
    private static final long serialVersionUID = 1L;

    public InvalidKeyException(String store, String key, String why) {
        super(store, key, "invalid key \"" + key + "\" for " + store + ": " + why);
    }
}
