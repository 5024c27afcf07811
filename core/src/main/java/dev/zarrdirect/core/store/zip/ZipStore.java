// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store.zip;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.ReadBound;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreKeys;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Store} in a single zip file, as Zarr's "ZipStore" convention describes: each key is an
 * entry of the same name, Zarr's recommendation is STORED (uncompressed) entries, and the central
 * directory at the end lists them all.
 *
 * <h2>Reading: {@link #open}</h2>
 * The archive is memory-mapped once and its central directory parsed into a sorted map, which
 * serves {@link #size}, {@link #list} and {@link #listDir} without touching the data. A STORED
 * entry is copied from the mapping straight into the caller's segment, and a range read touches
 * only the pages of that range. A DEFLATED entry is inflated from its start, and the bytes before
 * the range are inflated and discarded: range reads of deflated entries cost as much as reading up
 * to the end of the range. Inflating stops at the entry's declared size, and a bounded read
 * ({@link Store#get(String, ByteRange, long, SegmentAllocator)}) checks that size against its limit
 * before inflating (a zip bomb declares gigabytes). Whole-value reads check the entry's CRC-32. An
 * archive truncated or replaced while open fails reads with a {@link StoreException}. Other
 * compression methods, encrypted entries and multi-volume archives are refused with a message
 * saying so.
 * <p>
 * The hierarchy may sit at the root of the archive, or under one top-level folder (as
 * {@code zip -r era5.zip era5.zarr} makes it): when nothing but that folder (and any
 * {@code __MACOSX/} folder) lies at the top level, its name ends in {@code .zarr}, and it holds a
 * Zarr metadata document ({@code zarr.json}, {@code .zgroup}, {@code .zarray}, {@code .zattrs} or
 * {@code .zmetadata}), keys are relative to it; {@link #root()} tells which. Other folders are kept
 * in the keys, since a root holding a single array {@code t2m/} and no metadata looks the same;
 * {@link #open(Path, String)} names the folder explicitly. Folder entries are not keys, and entries whose
 * names are not valid keys ({@code ../x}, {@code /abs}) are ignored. The archive must not change
 * while it is open. Opened stores are read-only.
 *
 * <h2>Writing: {@link #create}</h2>
 * A new archive is written to a temporary file next to the target ({@code .<name>.zd<pid>-<n>.tmp}):
 * each {@link #set} appends a STORED entry (Zip64 where sizes, offsets or the entry count need it),
 * and {@link #close()} writes the central directory, flushes the file to the device and renames it
 * over the target atomically; until then an existing file at the target is untouched, and on failure
 * the temporary file is deleted. A key set twice keeps the last value, and a deleted key is dropped:
 * the bytes of replaced and deleted entries are left out by copying the live entries once more at
 * close. While the archive is being written, reads, sizes and listings see every key set so far.
 * A key cannot be both a value and a folder of other keys ({@code a} and {@code a/b}), since such an
 * archive could not be unpacked.
 * <p>
 * As with any {@code FileChannel}, interrupting a thread while it writes closes the temporary file;
 * the store then refuses further writes, and {@link #close()} deletes the temporary file and throws.
 *
 * <h2>Threads and lifetime</h2>
 * Safe for concurrent use; writes are appended one at a time. Closing twice is harmless; any other
 * call after {@link #close()} throws {@link IllegalStateException}. Values read are copies in the
 * caller's memory, and stay valid after the store is closed.
 *
 * {@snippet :
 * try (ZipStore zip = ZipStore.create(Path.of("/data/era5.zarr.zip"))) {
 *     Zarr.createGroup(zip, "", Map.of());
 * } // the archive appears here, whole
 * try (ZipStore zip = ZipStore.open(Path.of("/data/era5.zarr.zip"))) {
 *     ZarrGroup root = Zarr.openGroup(zip, "");
 * }
 * }
 */
public final class ZipStore implements Store {

    private final Path file;
    private final ZipReader reader;
    private final ZipWriter writer;
    private final String description;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ZipStore(Path file, ZipReader reader, ZipWriter writer, String description) {
        this.file = file;
        this.reader = reader;
        this.writer = writer;
        this.description = description;
    }

    /**
     * Opens an existing archive for reading, finding the folder that holds the hierarchy as the
     * class notes describe. The store maps the archive until it is closed: the caller closes it.
     *
     * @param file the archive
     * @return a read-only store
     * @throws StoreException when the file does not exist or is not a readable zip archive
     */
    public static ZipStore open(Path file) {
        return open(file, null);
    }

    /**
     * Opens an existing archive for reading with keys relative to the folder {@code root}
     * ({@code "era5/"}; empty for the archive's top level; null to detect it). The caller closes the store.
     *
     * @param file the archive
     * @param root the folder holding the hierarchy, with or without a trailing {@code /}; {@code ""}
     *             for the top level; null to detect it
     * @return a read-only store
     * @throws StoreException when the file does not exist or is not a readable zip archive
     * @throws dev.zarrdirect.api.InvalidKeyException when {@code root} is not a valid folder name
     */
    public static ZipStore open(Path file, String root) {
        Path abs = file.toAbsolutePath().normalize();
        String plain = "ZipStore(file=" + abs + ")";
        if (root != null && !root.isEmpty()) {
            StoreKeys.validatePrefix(plain, root.endsWith("/") ? root : root + "/");
            root = root.endsWith("/") ? root : root + "/";
        }
        if (!Files.exists(abs)) {
            throw new StoreException(plain, null, "cannot open " + plain + ": " + abs
                    + " does not exist; use ZipStore.create to write a new archive");
        }
        if (!Files.isRegularFile(abs)) {
            throw new StoreException(plain, null, "cannot open " + plain + ": " + abs + " is not a regular file");
        }
        ZipReader reader = ZipReader.open(abs, plain, root);
        String description = reader.root().isEmpty() ? plain
                : "ZipStore(file=" + abs + ", root=" + reader.root() + ")";
        reader.describeAs(description);
        return new ZipStore(abs, reader, null, description);
    }

    /**
     * Starts a new archive at {@code file}, creating its parent directories; the archive appears
     * there, whole, when the store is closed. The caller must close the store: until then there is
     * only a temporary file, which a store never closed leaves behind.
     *
     * @param file where the archive is to appear; an existing file there is replaced at close
     * @return a writable store, which also reads what it has written
     * @throws StoreException when {@code file} is a directory or its directory cannot be written
     */
    public static ZipStore create(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        String description = "ZipStore(file=" + abs + ", writing)";
        return new ZipStore(abs, null, ZipWriter.create(abs, description), description);
    }

    /**
     * The archive's file.
     *
     * @return the absolute, normalised path (for a created store, where the archive appears at close)
     */
    public Path file() {
        return file;
    }

    /**
     * The folder inside the archive that holds the hierarchy ({@code "era5.zarr/"}), or empty
     * when keys are entry names as they are.
     *
     * @return the folder, ending in {@code /}, or {@code ""}; always {@code ""} for a created store
     */
    public String root() {
        return reader == null ? "" : reader.root();
    }

    @Override
    public Optional<MemorySegment> get(String key, ByteRange range, SegmentAllocator allocator) {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(allocator, "allocator");
        StoreKeys.validate(description, key);
        ensureOpen();
        if (reader != null) {
            ZipReader.Entry e = reader.entries().get(key);
            if (e == null) {
                return Optional.empty();
            }
            checkFits(key, range, e.size);
            // Before inflating anything: an entry may claim 2^40 bytes, or a few MB may inflate to GBs.
            ReadBound.check(allocator, range.lengthIn(e.size), "the size that zip entry \"" + e.name + "\" declares");
            reader.checkDeclaredSize(key, e);
            MemorySegment dst = allocator.allocate(range.lengthIn(e.size));
            reader.read(key, e, range, range.start(e.size), dst, range.start(e.size) == 0 && dst.byteSize() == e.size);
            return Optional.of(dst);
        }
        ZipWriter.Written w = writer.entries().get(key);
        if (w == null) {
            return Optional.empty();
        }
        checkFits(key, range, w.size());
        MemorySegment dst = allocator.allocate(range.lengthIn(w.size()));
        writer.read(key, w, range, range.start(w.size()), dst);
        return Optional.of(dst);
    }

    private void checkFits(String key, ByteRange range, long size) {
        if (!range.fits(size)) {
            throw new StoreException(description, key, "range " + range + " does not fit in key \"" + key
                    + "\" (length " + size + ") in " + description);
        }
    }

    @Override
    public long size(String key) {
        StoreKeys.validate(description, key);
        ensureOpen();
        return reader != null ? reader.size(key) : writer.size(key);
    }

    @Override
    public void set(String key, MemorySegment value) {
        Objects.requireNonNull(value, "value");
        StoreKeys.validate(description, key);
        ensureOpen();
        ensureWritable(key, "set");
        writer.set(key, value);
    }

    @Override
    public void delete(String key) {
        StoreKeys.validate(description, key);
        ensureOpen();
        ensureWritable(key, "delete");
        writer.delete(key);
    }

    @Override
    public List<String> list(String prefix) {
        StoreKeys.validatePrefix(description, prefix);
        ensureOpen();
        NavigableMap<String, ?> keys = reader != null ? reader.entries() : writer.entries();
        List<String> result = new ArrayList<>();
        for (String key : keys.tailMap(prefix, true).keySet()) {
            if (!key.startsWith(prefix)) {
                break;
            }
            result.add(key);
        }
        return result;
    }

    @Override
    public List<String> listDir(String prefix) {
        String dirPrefix = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
        StoreKeys.validatePrefix(description, dirPrefix);
        ensureOpen();
        NavigableMap<String, ?> keys = reader != null ? reader.entries() : writer.entries();
        List<String> children = new ArrayList<>();
        Map.Entry<String, ?> entry = keys.ceilingEntry(dirPrefix);
        while (entry != null && entry.getKey().startsWith(dirPrefix)) {
            String key = entry.getKey();
            int slash = key.indexOf('/', dirPrefix.length());
            if (slash < 0) {
                children.add(key);
                entry = keys.higherEntry(key);
            } else {
                children.add(key.substring(0, slash + 1));
                // '0' follows '/': this skips every key under the sub-folder at once.
                entry = keys.ceilingEntry(key.substring(0, slash) + '0');
            }
        }
        return children;
    }

    @Override
    public boolean isReadOnly() {
        return writer == null;
    }

    /**
     * Releases the mapping of an opened archive, or finishes a created one: writes the central
     * directory and renames the archive into place.
     *
     * @throws StoreException when a created archive cannot be finished; the target is then unchanged
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (reader != null) {
            reader.close();
        } else {
            writer.finish();
        }
    }

    @Override
    public String toString() {
        return description;
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException(description + " is closed");
        }
    }

    private void ensureWritable(String key, String operation) {
        if (writer == null) {
            throw new StoreException(description, key, "cannot " + operation + " key \"" + key + "\": "
                    + description + " is read-only; an archive is written whole with ZipStore.create");
        }
    }
}
