// SPDX-License-Identifier: Apache-2.0
/**
 * Array-to-bytes codecs on the CPU: {@code bytes} (a copy, or a byte-swapping copy for big-endian).
 */
package dev.zarrdirect.cpu.codec.arraytobytes;
