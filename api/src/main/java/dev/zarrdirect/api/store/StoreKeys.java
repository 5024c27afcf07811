// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.store;

import dev.zarrdirect.api.InvalidKeyException;

/**
 * Key validation shared by every store, so that no store lets a key escape its root. A valid key is
 * non-empty and relative, and its {@code /}-separated segments are non-empty and neither {@code .}
 * nor {@code ..}; it contains no backslash or NUL and does not start with a drive letter
 * ({@code c:}). Validation is purely textual: a store whose keys are files must still check that
 * symbolic links do not lead out of its root. Stateless and thread-safe.
 *
 * {@snippet :
 * StoreKeys.validate(toString(), "t2m/c/0/3/1");     // returns the key
 * StoreKeys.validate(toString(), "../etc/passwd");   // InvalidKeyException
 * }
 */
public final class StoreKeys {
    private StoreKeys() {
    }

    /**
     * Checks a key and returns it unchanged (not normalised).
     *
     * @param store the store's description, for the exception message
     * @param key   the key to check; may be null (then rejected)
     * @return {@code key}
     * @throws InvalidKeyException for an empty, absolute or backslashed key, an empty segment, or a
     *                             {@code .} or {@code ..} segment
     */
    public static String validate(String store, String key) {
        if (key == null || key.isEmpty()) {
            throw new InvalidKeyException(store, String.valueOf(key), "keys are non-empty");
        }
        if (key.startsWith("/")) {
            throw new InvalidKeyException(store, key, "keys are relative to the store root; drop the leading /");
        }
        if (key.indexOf('\\') >= 0 || key.indexOf('\0') >= 0) {
            throw new InvalidKeyException(store, key, "keys may not contain backslashes or NUL");
        }
        if (key.length() > 1 && key.charAt(1) == ':') {
            throw new InvalidKeyException(store, key, "keys may not name a drive");
        }
        for (String seg : key.split("/", -1)) {
            if (seg.isEmpty()) {
                throw new InvalidKeyException(store, key, "empty path segment (// or a trailing /)");
            }
            if (seg.equals("..") || seg.equals(".")) {
                throw new InvalidKeyException(store, key, "\"" + seg + "\" segments could leave the store root");
            }
        }
        return key;
    }

    /**
     * Checks a listing prefix: empty, or a valid key followed by an optional {@code /}.
     *
     * @param store  the store's description, for the exception message
     * @param prefix the prefix to check; not null
     * @return {@code prefix}, unchanged
     * @throws dev.zarrdirect.api.InvalidKeyException when the prefix, without one trailing {@code /},
     *                                                is not a valid key
     * @throws NullPointerException                   when {@code prefix} is null
     */
    public static String validatePrefix(String store, String prefix) {
        if (prefix.isEmpty()) {
            return prefix;
        }
        validate(store, prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix);
        return prefix;
    }
}
