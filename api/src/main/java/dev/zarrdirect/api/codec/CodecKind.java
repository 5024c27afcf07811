// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

/** The three kinds of codec of the Zarr v3 specification, in the order a chain holds them. */
public enum CodecKind {
    ARRAY_TO_ARRAY, ARRAY_TO_BYTES, BYTES_TO_BYTES
}
