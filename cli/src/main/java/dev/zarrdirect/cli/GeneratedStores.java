// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.store.Store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The rule for commands that write a store of their own and may replace it later ({@code bench
 * --generate}, {@code demo}): they never delete what they did not create. Before replacing a store
 * they check that every key in it is one they write (a metadata document or a chunk key of their
 * layout), and refuse otherwise, saying what is there and how to proceed.
 */
final class GeneratedStores {

    /** Entries named in a message before {@code and N more}. */
    private static final int SHOWN = 5;

    private GeneratedStores() {
    }

    /**
     * Keys of {@code rank}-dimensional chunks under the default chunk key encoding, {@code c/0/3/1/2},
     * below {@code prefix} ({@code ""} or {@code "name/"}).
     */
    static Predicate<String> chunkKeys(String prefix, int rank) {
        Pattern p = Pattern.compile(Pattern.quote(prefix) + "c(/[0-9]+){" + rank + "}");
        return k -> p.matcher(k).matches();
    }

    /**
     * Refuses to replace the store at {@code root} when it holds a key that {@code ours} does not
     * accept; the message names such keys and says to move them away or choose another directory.
     *
     * @param who what replaces it ({@code "bench --generate"})
     */
    static void checkOnlyOurs(Store store, Path root, String who, Predicate<String> ours) {
        List<String> foreign = new ArrayList<>();
        int count = 0;
        for (String k : store.list("")) {
            if (!ours.test(k)) {
                if (count++ < SHOWN) {
                    foreign.add(Text.escape(k));
                }
            }
        }
        if (count > 0) {
            throw new ZarrDirectCli.CliFailure(Text.escape(root.toString()) + " holds " + count + " file"
                    + (count == 1 ? "" : "s") + " that " + who + " did not write (" + String.join(", ", foreign)
                    + (count > SHOWN ? " and " + (count - SHOWN) + " more" : "") + "); it replaces only what it wrote"
                    + " and never deletes anything else. Move " + (count == 1 ? "it" : "them")
                    + " away, or give a new or empty directory");
        }
    }

    /** What a directory holds, for a message: {@code notes.txt, data/ and 3 more}, or {@code nothing}. */
    static String contents(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            List<String> names = new ArrayList<>();
            int[] count = {0};
            s.sorted().forEach(p -> {
                if (count[0]++ < SHOWN) {
                    names.add(Text.escape(p.getFileName().toString()) + (Files.isDirectory(p) ? "/" : ""));
                }
            });
            if (names.isEmpty()) {
                return "nothing";
            }
            return String.join(", ", names) + (count[0] > SHOWN ? " and " + (count[0] - SHOWN) + " more" : "");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }
}
