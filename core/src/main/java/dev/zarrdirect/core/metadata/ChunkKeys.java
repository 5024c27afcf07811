// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.metadata;

import java.util.Arrays;

/** Shared by the chunk key encodings; kept out of the public interface. */
final class ChunkKeys {
    private ChunkKeys() {
    }

    static void checkSeparator(char separator, String name) {
        if (separator != '/' && separator != '.') {
            throw new IllegalArgumentException("the " + name + " chunk key encoding's separator must be '/' or '.', got '"
                    + separator + "'");
        }
    }

    static String join(String head, long[] index, char separator) {
        StringBuilder sb = new StringBuilder(head);
        for (long i : index) {
            if (i < 0) {
                throw new IllegalArgumentException("chunk index " + Arrays.toString(index) + " is negative");
            }
            if (!sb.isEmpty()) {
                sb.append(separator);
            }
            sb.append(i);
        }
        return sb.toString();
    }

    static long[] split(String s, char separator, int rank) {
        String[] parts = s.split(separator == '.' ? "\\." : "/", -1);
        if (parts.length != rank) {
            return null;
        }
        long[] index = new long[rank];
        for (int i = 0; i < rank; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 19 || !p.chars().allMatch(c -> c >= '0' && c <= '9')
                    || (p.length() > 1 && p.charAt(0) == '0')) {
                return null;
            }
            try {
                index[i] = Long.parseLong(p);
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return index;
    }
}
