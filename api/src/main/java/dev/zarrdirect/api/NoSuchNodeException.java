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

    private final String path;
    private final List<String> keysTried;
    private final String message;

    public NoSuchNodeException(String store, String path, List<String> keysTried, String message) {
        super(store, keysTried.getFirst());
        this.path = path;
        this.keysTried = List.copyOf(keysTried);
        this.message = message;
    }

    /** The node's path in the store ({@code ""} for the root). */
    public String path() {
        return path;
    }

    /** Every metadata key that was looked for, v3 first. */
    public List<String> keysTried() {
        return keysTried;
    }

    @Override
    public String getMessage() {
        return message;
    }
}
