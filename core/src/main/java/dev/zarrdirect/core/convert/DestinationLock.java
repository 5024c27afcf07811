// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.convert;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a conversion's destination directory, held from before the destination is
 * inspected until the conversion ends, so that two conversions into one destination cannot both run
 * (they would mix their chunks, or one would delete the other's). The lock is an operating-system
 * file lock on {@value #NAME} inside the directory: another process (or another conversion in this
 * one) finds it held, and a process that dies releases it with its file descriptors, so a killed
 * conversion never leaves a stale lock behind; the file itself is removed when the lock is released.
 */
final class DestinationLock implements AutoCloseable {

    /** The lock file's name in the destination; never a key of the converted store. */
    static final String NAME = ".zarr-direct-convert.lock";

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;

    private DestinationLock(Path file, FileChannel channel, FileLock lock) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Creates {@code dir} when missing and takes its lock.
     *
     * @throws ConvertException when {@code dir} is not a directory, cannot be created, or another
     *                          conversion holds its lock
     */
    static DestinationLock acquire(Path dir) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new ConvertException(dir + " exists and is not a directory; give a new directory as DST");
        }
        Path file = dir.resolve(NAME);
        FileChannel ch = null;
        try {
            Files.createDirectories(dir);
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null; // held by another conversion in this JVM
            }
            if (l == null) {
                ch.close();
                throw new ConvertException(dir + " is the destination of another conversion that is still running"
                        + " (it holds " + file + "); wait for it to finish, or give another destination");
            }
            return new DestinationLock(file, ch, l);
        } catch (IOException e) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // the open failure is what the user needs to see
                }
            }
            throw new ConvertException("cannot lock the destination " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            Files.deleteIfExists(file); // while still locked: a waiting conversion then starts on a clean directory
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw new ConvertException("cannot release the lock " + file + ": " + e.getMessage(), e);
        }
    }
}
