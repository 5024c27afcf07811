// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.write;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/** File operations of the commit protocol on the group's directory. */
final class Staging {

    private Staging() {
    }

    /** Deletes {@code dir} and everything below it; nothing when it does not exist. */
    static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the staging directory " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Moves the file {@code key} from below {@code from} to below {@code to}, making its directories. */
    static void move(Path from, Path to, String key) {
        Path source = from.resolve(key);
        Path target = to.resolve(key);
        try {
            Files.createDirectories(target.getParent());
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move chunk " + key + " from " + from + " to " + to + ": " + e, e);
        }
    }

    /** Copies the file {@code key} from below {@code from} to below {@code to}, by way of a temporary file. */
    static void publish(Path from, Path to, String key) {
        Path target = to.resolve(key);
        try {
            Files.createDirectories(target.getParent());
            Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
            Files.copy(from.resolve(key), tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + key + " to " + to + ": " + e.getMessage(), e);
        }
    }
}
