// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The file system a file lives on, from {@code /proc/self/mountinfo}: cuFile's compatibility mode
 * and GDS proper both depend on it (tmpfs, overlayfs and most FUSE file systems cannot be
 * registered), so messages about a file name it. The mount of a path is the entry with the longest
 * mount point that contains the path's real path, the later one on a tie (a mount over a mount).
 * {@link #parse} and {@link #find} are pure; {@link #of} reads the table.
 */
public final class Mounts {

    /** One line of {@code mountinfo}: where, what type ({@code ext4}, {@code tmpfs} …) and from what. */
    public record Mount(String mountPoint, String type, String source) {

        /** {@code tmpfs at /dev/shm (shm)}. */
        @Override
        public String toString() {
            return type + " at " + mountPoint + " (" + source + ")";
        }
    }

    /** What {@link #of} answers when the table cannot be read or has no entry for the path. */
    public static final Mount UNKNOWN = new Mount("?", "unknown", "?");

    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");

    private Mounts() {
    }

    /**
     * The entries of a {@code mountinfo} text: fields 5 (mount point) and, after the {@code -}
     * separator, file system type and source, with the kernel's octal escapes ({@code \040}) undone.
     * Malformed lines are skipped.
     */
    public static List<Mount> parse(String mountinfo) {
        List<Mount> out = new ArrayList<>();
        for (String line : mountinfo.split("\n")) {
            String[] f = line.trim().split(" ");
            int sep = -1;
            for (int i = 6; i < f.length; i++) {
                if (f[i].equals("-")) {
                    sep = i;
                    break;
                }
            }
            if (f.length < 7 || sep < 0 || sep + 2 >= f.length) {
                continue;
            }
            out.add(new Mount(unescape(f[4]), unescape(f[sep + 1]), unescape(f[sep + 2])));
        }
        return out;
    }

    /** The mount holding {@code absolute} (a normalised absolute path), or {@link #UNKNOWN}. */
    public static Mount find(List<Mount> mounts, Path absolute) {
        Mount best = UNKNOWN;
        int bestLength = -1;
        for (Mount m : mounts) {
            Path mp;
            try {
                mp = Path.of(m.mountPoint());
            } catch (RuntimeException e) {
                continue;
            }
            if (absolute.startsWith(mp) && m.mountPoint().length() >= bestLength) {
                best = m;
                bestLength = m.mountPoint().length();
            }
        }
        return best;
    }

    /** The mount holding {@code file} (or, when it does not exist, its nearest existing parent). */
    public static Mount of(Path file) {
        try {
            Path p = file.toAbsolutePath().normalize();
            while (p != null && !Files.exists(p)) {
                p = p.getParent();
            }
            if (p == null) {
                return UNKNOWN;
            }
            return find(parse(Files.readString(MOUNTINFO)), p.toRealPath());
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && isOctal(s, i + 1)) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }
}
