// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store.fs;

import dev.zarrdirect.api.InvalidKeyException;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.ReadBound;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreKeys;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A {@link Store} over a directory: key {@code t2m/c/0/3/1} is the file
 * {@code <root>/t2m/c/0/3/1}.
 *
 * <h2>Reads</h2>
 * {@link #get} reads with positional {@link FileChannel} reads straight into the segment that the
 * caller's allocator returns; there is no intermediate heap copy. Values larger than 2 GiB are read
 * in pieces of at most 1 GiB. A key naming a directory, or a path under a regular file, reads as
 * missing.
 *
 * <h2>Writes</h2>
 * {@link #set} writes the value to a temporary file in the target's directory (named
 * {@code .<name>.zd<pid>-<n>.tmp}, unique per call, never listed) and renames it over the target
 * with {@link StandardCopyOption#ATOMIC_MOVE}, so readers see the old value or the new one. On any
 * failure the temporary file is deleted and the old value stays. Parent directories are created as
 * needed; {@link #delete} removes directories it leaves empty, up to the root.
 * <p>
 * Writes are not flushed to the device by default: the rename makes them atomic, not durable. A
 * store from {@link #withFsync(boolean) withFsync(true)} forces each temporary file before the
 * rename and its directory after it, at the cost of two device flushes per write.
 *
 * <h2>Symbolic links</h2>
 * Keys are checked with {@link StoreKeys}, and then against the real path of the deepest part of
 * the key's path that exists: a key that would leave the root through a symbolic link (or pass
 * through a dangling one) is refused with {@link InvalidKeyException}. This guards against links
 * in the store, not against another process swapping directories for links while a call runs.
 * Listings do not descend into linked directories (they could form cycles) and list linked files
 * only when they resolve inside the root.
 *
 * <h2>Threads and lifetime</h2>
 * Safe for concurrent use; the store holds no open files between calls. Closing it twice is
 * harmless; any other call after {@link #close()} throws {@link IllegalStateException}.
 *
 * {@snippet :
 * try (FileSystemStore store = FileSystemStore.create(Path.of("/data/new.zarr"))) {
 *     store.set("zarr.json", MemorySegment.ofArray(json.getBytes(StandardCharsets.UTF_8)));
 * }
 * }
 */
public final class FileSystemStore implements Store {

    /** Largest piece handed to one channel call: ByteBuffer views are limited to 2 GiB. */
    private static final long PIECE = 1L << 30;

    private static final Pattern TEMP_NAME = Pattern.compile("^\\..*\\.zd[0-9a-f]+-[0-9a-f]+\\.tmp$");
    /** Keeps temporary names within the 255-byte file name limit of common file systems. */
    private static final int TEMP_NAME_KEEP = 64;
    private static final String PID = Long.toHexString(ProcessHandle.current().pid());
    private static final AtomicLong TEMP_COUNTER = new AtomicLong();
    /** A write retries when a concurrent delete prunes the directory it is writing into. */
    private static final int WRITE_ATTEMPTS = 16;

    private final Path root;
    private final Path realRoot;
    private final boolean readOnly;
    private final boolean fsync;
    private final String description;
    private volatile boolean closed;

    private FileSystemStore(Path root, Path realRoot, boolean readOnly, boolean fsync) {
        this.root = root;
        this.realRoot = realRoot;
        this.readOnly = readOnly;
        this.fsync = fsync;
        this.description = "FileSystemStore(root=" + root + (readOnly ? ", read-only" : "") + ")";
    }

    /**
     * Opens an existing directory for reading and writing. The caller closes the store.
     *
     * @param root the store's directory; made absolute and normalised
     * @return the store
     * @throws StoreException when {@code root} does not exist or is not a directory
     */
    public static FileSystemStore open(Path root) {
        return openExisting(root, false);
    }

    /**
     * Opens an existing directory; {@link #set} and {@link #delete} throw {@link StoreException}.
     * The caller closes the store.
     *
     * @param root the store's directory; made absolute and normalised
     * @return the read-only store
     * @throws StoreException when {@code root} does not exist or is not a directory
     */
    public static FileSystemStore openReadOnly(Path root) {
        return openExisting(root, true);
    }

    /**
     * Opens {@code root}, creating it and its parents when missing; an existing directory is opened
     * as it is, its contents kept. The caller closes the store.
     *
     * @param root the store's directory; made absolute and normalised
     * @return the store, for reading and writing
     * @throws StoreException when {@code root} exists but is not a directory, or cannot be created
     */
    public static FileSystemStore create(Path root) {
        Path abs = root.toAbsolutePath().normalize();
        try {
            Files.createDirectories(abs);
        } catch (FileAlreadyExistsException e) {
            throw new StoreException(describe(abs), null,
                    "cannot create FileSystemStore at " + abs + ": it exists and is not a directory", e);
        } catch (IOException e) {
            throw new StoreException(describe(abs), null,
                    "cannot create FileSystemStore at " + abs + ": " + e, e);
        }
        return openExisting(abs, false);
    }

    private static FileSystemStore openExisting(Path root, boolean readOnly) {
        Path abs = root.toAbsolutePath().normalize();
        if (!Files.exists(abs)) {
            throw new StoreException(describe(abs), null, "cannot open FileSystemStore: directory " + abs
                    + " does not exist; use FileSystemStore.create to make a new store");
        }
        if (!Files.isDirectory(abs)) {
            throw new StoreException(describe(abs), null,
                    "cannot open FileSystemStore: " + abs + " is not a directory");
        }
        try {
            return new FileSystemStore(abs, abs.toRealPath(), readOnly, false);
        } catch (IOException e) {
            throw new StoreException(describe(abs), null,
                    "cannot open FileSystemStore at " + abs + ": " + e, e);
        }
    }

    private static String describe(Path abs) {
        return "FileSystemStore(root=" + abs + ")";
    }

    /**
     * A store over the same directory whose writes are (or are not) flushed to the device before
     * {@link #set} returns. The default is off. The two stores are independent: closing one leaves
     * the other open (neither holds open files).
     *
     * @param enabled whether each write forces its file and directory to the device
     * @return a new store over the same root, equally read-only or not
     */
    public FileSystemStore withFsync(boolean enabled) {
        return new FileSystemStore(root, realRoot, readOnly, enabled);
    }

    /**
     * The store's directory.
     *
     * @return the absolute, normalised root directory (not resolved through links)
     */
    public Path root() {
        return root;
    }

    /**
     * The file that holds {@code key} (which need not exist), for readers that open files
     * themselves, such as a backend's direct-to-device reader.
     *
     * @param key a store key
     * @return the file's path below the root
     * @throws InvalidKeyException when the key is invalid or leaves the root through a link
     * @throws IllegalStateException when the store is closed
     */
    public Path pathOf(String key) {
        ensureOpen();
        return resolve(key);
    }

    @Override
    public Optional<Path> localPath(String key) {
        return Optional.of(pathOf(key));
    }

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(allocator, "allocator");
        ensureOpen();
        Path file = resolve(key);
        try {
            // A directory or a FIFO is not a value, and opening a FIFO would block.
            if (!Files.readAttributes(file, BasicFileAttributes.class).isRegularFile()) {
                return Optional.empty();
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = ch.size();
                if (!range.fits(size)) {
                    throw new StoreException(description, key, "range " + range + " does not fit in key \""
                            + key + "\" (length " + size + ") in " + description);
                }
                long start = range.start(size);
                long length = range.lengthIn(size);
                // Before allocating: a sparse file can claim 20 GiB while holding nothing.
                ReadBound.check(allocator, length, "the read of " + range + " (the file holds " + size + " bytes)");
                MemorySegment dst = allocator.allocate(length);
                readFully(ch, dst, start, key, range, size);
                return Optional.of(dst);
            }
        } catch (IOException e) {
            if (isAbsent(file, e)) {
                return Optional.empty();
            }
            throw new StoreException(description, key,
                    "cannot read " + range + " of key \"" + key + "\" from " + description + ": " + e, e);
        }
    }

    private void readFully(FileChannel ch, MemorySegment dst, long start, String key, ByteRange range, long size)
            throws IOException {
        long length = dst.byteSize();
        for (long off = 0; off < length; off += PIECE) {
            MemorySegment piece = dst.asSlice(off, Math.min(PIECE, length - off));
            ByteBuffer bb = byteBufferOf(piece);
            boolean bounced = bb == null;
            if (bounced) {
                bb = ByteBuffer.allocateDirect((int) piece.byteSize());
            }
            while (bb.hasRemaining()) {
                int n = ch.read(bb, start + off + bb.position());
                if (n < 0) {
                    throw new StoreException(description, key, "key \"" + key + "\" in " + description
                            + " ended at byte " + (start + off + bb.position()) + " while reading " + range
                            + " (length " + size + " when opened); was it truncated by another process?");
                }
            }
            if (bounced) {
                piece.copyFrom(MemorySegment.ofBuffer(bb.flip()));
            }
        }
    }

    /** A view of {@code segment}, or null for heap segments over arrays other than byte[]. */
    private static ByteBuffer byteBufferOf(MemorySegment segment) {
        try {
            return segment.asByteBuffer();
        } catch (UnsupportedOperationException e) {
            return null;
        }
    }

    @Override
    public long size(String key) {
        ensureOpen();
        Path file = resolve(key);
        try {
            BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
            return attrs.isRegularFile() ? attrs.size() : -1;
        } catch (IOException e) {
            if (isAbsent(file, e)) {
                return -1;
            }
            throw new StoreException(description, key,
                    "cannot read the size of key \"" + key + "\" in " + description + ": " + e, e);
        }
    }

    @Override
    public void set(String key, MemorySegment value) {
        Objects.requireNonNull(value, "value");
        ensureOpen();
        Path target = resolve(key);
        ensureWritable(key, "set");
        Path dir = target.getParent();
        Path temp = null;
        boolean moved = false;
        try {
            temp = createTemp(dir, target.getFileName().toString());
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                writeFully(ch, value);
                if (fsync) {
                    ch.force(true);
                }
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            moved = true;
            if (fsync) {
                try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                    d.force(true);
                }
            }
        } catch (IOException e) {
            deleteTemp(temp, moved, e);
            String what = moved ? "wrote key \"" + key + "\" but could not flush directory " + dir
                    : "cannot write key \"" + key + "\" (" + value.byteSize() + " bytes) to " + target;
            throw new StoreException(description, key, what + " in " + description + ": " + e
                    + (moved ? "" : "; the old value, if any, is unchanged"), e);
        } catch (RuntimeException | Error e) {
            deleteTemp(temp, moved, e);
            throw e;
        }
    }

    /** Creates an empty temporary file next to the target, creating parent directories first. */
    private static Path createTemp(Path dir, String name) throws IOException {
        for (int attempt = 1; ; attempt++) {
            Path temp = dir.resolve(tempName(name));
            try {
                Files.createDirectories(dir);
                return Files.createFile(temp);
            } catch (NoSuchFileException | FileAlreadyExistsException e) {
                // NoSuchFile: a concurrent delete pruned the directory between the two calls.
                // FileAlreadyExists on the temp name: another process with our pid and counter.
                // FileAlreadyExists on the directory: a parent is a file, which no retry fixes.
                if (attempt >= WRITE_ATTEMPTS || (e instanceof FileAlreadyExistsException && !Files.isDirectory(dir))) {
                    throw e;
                }
            }
        }
    }

    private static void deleteTemp(Path temp, boolean moved, Throwable failure) {
        if (temp == null || moved) {
            return;
        }
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }

    private static String tempName(String name) {
        String kept = name.length() > TEMP_NAME_KEEP ? name.substring(0, TEMP_NAME_KEEP) : name;
        return "." + kept + ".zd" + PID + "-" + Long.toHexString(TEMP_COUNTER.incrementAndGet()) + ".tmp";
    }

    private static void writeFully(FileChannel ch, MemorySegment value) throws IOException {
        long length = value.byteSize();
        for (long off = 0; off < length; off += PIECE) {
            MemorySegment piece = value.asSlice(off, Math.min(PIECE, length - off));
            ByteBuffer bb = byteBufferOf(piece);
            if (bb == null) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment copy = arena.allocate(piece.byteSize());
                    copy.copyFrom(piece);
                    writeBuffer(ch, copy.asByteBuffer(), off);
                }
            } else {
                writeBuffer(ch, bb, off);
            }
        }
    }

    private static void writeBuffer(FileChannel ch, ByteBuffer bb, long position) throws IOException {
        while (bb.hasRemaining()) {
            ch.write(bb, position + bb.position());
        }
    }

    @Override
    public void delete(String key) {
        ensureOpen();
        Path file = resolve(key);
        ensureWritable(key, "delete");
        try {
            if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            Files.delete(file);
        } catch (IOException e) {
            if (isAbsent(file, e)) {
                return;
            }
            throw new StoreException(description, key,
                    "cannot delete key \"" + key + "\" from " + description + ": " + e, e);
        }
        pruneEmptyParents(file.getParent());
    }

    /**
     * Best effort: a directory that a concurrent write fills again, or that we may not remove,
     * stays; the key itself is already gone.
     */
    private void pruneEmptyParents(Path dir) {
        for (Path d = dir; d != null && d.startsWith(root) && !d.equals(root); d = d.getParent()) {
            try {
                Files.delete(d);
            } catch (NoSuchFileException e) {
                // Another delete pruned it first; its parent may still be empty.
            } catch (IOException e) {
                return;
            }
        }
    }

    @Override
    public List<String> list(String prefix) {
        ensureOpen();
        StoreKeys.validatePrefix(description, prefix);
        int slash = prefix.lastIndexOf('/');
        String dirKey = slash < 0 ? "" : prefix.substring(0, slash);
        Path dir = dirKey.isEmpty() ? root : resolve(dirKey);
        List<String> keys = new ArrayList<>();
        try {
            walk(dir, dirKey.isEmpty() ? "" : dirKey + "/", prefix, keys);
        } catch (IOException e) {
            throw new StoreException(description, prefix,
                    "cannot list keys under \"" + prefix + "\" in " + description + ": " + e, e);
        }
        Collections.sort(keys);
        return keys;
    }

    private void walk(Path dir, String keyPrefix, String filter, List<String> keys) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!isListable(name)) {
                    continue;
                }
                String key = keyPrefix + name;
                BasicFileAttributes attrs = attributesOrNull(entry);
                if (attrs == null) {
                    continue;
                }
                if (attrs.isDirectory()) {
                    String sub = key + "/";
                    if (sub.startsWith(filter) || filter.startsWith(sub)) {
                        walk(entry, sub, filter, keys);
                    }
                } else if (key.startsWith(filter) && isValueFile(entry, attrs)) {
                    keys.add(key);
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            // The directory is gone (a concurrent delete) or never was one: nothing under it.
        } catch (DirectoryIteratorException e) {
            if (!(e.getCause() instanceof NoSuchFileException)) {
                throw e.getCause();
            }
        }
    }

    @Override
    public List<String> listDir(String prefix) {
        ensureOpen();
        String dirPrefix = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
        StoreKeys.validatePrefix(description, dirPrefix);
        Path dir = dirPrefix.isEmpty() ? root : resolve(dirPrefix.substring(0, dirPrefix.length() - 1));
        List<String> children = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!isListable(name)) {
                    continue;
                }
                BasicFileAttributes attrs = attributesOrNull(entry);
                if (attrs == null) {
                    continue;
                }
                if (attrs.isDirectory()) {
                    children.add(dirPrefix + name + "/");
                } else if (isValueFile(entry, attrs)) {
                    children.add(dirPrefix + name);
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        } catch (IOException | DirectoryIteratorException e) {
            throw new StoreException(description, prefix,
                    "cannot list directory \"" + dirPrefix + "\" in " + description + ": " + e, e);
        }
        Collections.sort(children);
        return children;
    }

    private static boolean isListable(String name) {
        return !TEMP_NAME.matcher(name).matches() && name.indexOf('\\') < 0;
    }

    private static BasicFileAttributes attributesOrNull(Path entry) throws IOException {
        try {
            return Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private boolean isValueFile(Path entry, BasicFileAttributes attrs) {
        if (attrs.isRegularFile()) {
            return true;
        }
        if (!attrs.isSymbolicLink()) {
            return false;
        }
        try {
            Path real = entry.toRealPath();
            return real.startsWith(realRoot) && Files.isRegularFile(real);
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public boolean isReadOnly() {
        return readOnly;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return description;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(description + " is closed");
        }
    }

    private void ensureWritable(String key, String operation) {
        if (readOnly) {
            throw new StoreException(description, key, "cannot " + operation + " key \"" + key + "\": "
                    + description + " is read-only; open it with FileSystemStore.open to write");
        }
    }

    /** Validates {@code key} and maps it to a path that does not leave the root through a link. */
    private Path resolve(String key) {
        StoreKeys.validate(description, key);
        Path file = root.resolve(key);
        String last = file.getFileName().toString();
        if (TEMP_NAME.matcher(last).matches()) {
            throw new InvalidKeyException(description, key,
                    "names like \"" + last + "\" are reserved for the store's temporary files");
        }
        checkInsideRoot(key, file);
        return file;
    }

    private void checkInsideRoot(String key, Path file) {
        for (Path p = file; p != null && !p.equals(root); p = p.getParent()) {
            Path real;
            try {
                real = p.toRealPath();
            } catch (NoSuchFileException e) {
                if (Files.isSymbolicLink(p)) {
                    throw new InvalidKeyException(description, key, "it passes through the dangling symbolic link "
                            + p + "; a link's target must exist inside the store root " + realRoot);
                }
                continue;
            } catch (FileSystemException e) {
                // ENOTDIR: a parent is a regular file; the deeper parts cannot exist.
                continue;
            } catch (IOException e) {
                throw new StoreException(description, key,
                        "cannot resolve " + p + " for key \"" + key + "\" in " + description + ": " + e, e);
            }
            if (!real.startsWith(realRoot)) {
                throw new InvalidKeyException(description, key, p + " resolves to " + real
                        + " through a symbolic link, outside the store root " + realRoot);
            }
            return;
        }
    }

    /** True when {@code e} means the key has no value: no such file, or a parent is a file. */
    private boolean isAbsent(Path file, IOException e) {
        if (e instanceof NoSuchFileException) {
            return true;
        }
        if (!(e instanceof FileSystemException)) {
            return false;
        }
        for (Path p = file.getParent(); p != null && p.startsWith(root) && !p.equals(root); p = p.getParent()) {
            if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                return true;
            }
        }
        return false;
    }
}
