// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

/** A stored checksum disagrees with the one computed from the bytes; both values are in the message. */
public class ChecksumMismatchException extends CorruptChunkException {
    private static final long serialVersionUID = 1L;
    private final long stored;
    private final long computed;

    public ChecksumMismatchException(String codec, String where, long stored, long computed) {
        super(codec, String.format("%s of %s: stored 0x%08X, computed 0x%08X", codec, where, stored, computed));
        this.stored = stored;
        this.computed = computed;
    }

    public long stored() {
        return stored;
    }

    public long computed() {
        return computed;
    }
}
