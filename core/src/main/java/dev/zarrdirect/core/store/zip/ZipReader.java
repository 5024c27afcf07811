// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store.zip;

import dev.zarrdirect.api.InvalidKeyException;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.StoreKeys;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

import static dev.zarrdirect.core.store.zip.ZipFormat.*;

/**
 * The read side of {@link ZipStore}: the archive mapped into memory once, its central directory
 * parsed into a sorted map of entries, and values served from the mapping.
 * <p>
 * Only the central directory is read at open; an entry's local header is read the first time the
 * entry is, so that opening an archive of a million chunks touches no page of chunk data.
 */
final class ZipReader implements AutoCloseable {

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int SKIP_BUFFER = 1 << 16;
    /** The heap buffer a STORED value goes through on its way out of the mapping ({@link #copyOut}). */
    private static final int BOUNCE_BYTES = 1 << 20;
    /** Deflate's largest expansion: a 258-byte match coded in 2 bits. */
    private static final long MAX_DEFLATE_RATIO = 1032;

    /** The documents that mark the root of a Zarr hierarchy (v3, then v2). */
    private static final Set<String> ROOT_DOCUMENTS = Set.of("zarr.json", ".zgroup", ".zarray", ".zattrs", ".zmetadata");
    /** Resource forks that the macOS archiver adds next to the folder it was asked to zip. */
    private static final String MACOS_FOLDER = "__MACOSX/";

    /** One file in the archive, as the central directory describes it. */
    static final class Entry {
        final String name;
        final int flags;
        final int method;
        final int crc;
        final long compressedSize;
        final long size;
        final long localHeaderOffset;
        /** Where the data starts, read from the local header on first use; -1 until then. */
        volatile long dataOffset = -1;

        Entry(String name, int flags, int method, int crc, long compressedSize, long size, long localHeaderOffset) {
            this.name = name;
            this.flags = flags;
            this.method = method;
            this.crc = crc;
            this.compressedSize = compressedSize;
            this.size = size;
            this.localHeaderOffset = localHeaderOffset;
        }
    }

    private final Path file;
    private final Arena arena;
    private final MemorySegment archive;
    /** Bytes before the archive proper (a self-extractor's stub); added to every stored offset. */
    private final long base;
    private final String root;
    private final NavigableMap<String, Entry> entries;
    private String description;

    private ZipReader(Path file, Arena arena, MemorySegment archive, long base, String root,
            NavigableMap<String, Entry> entries, String description) {
        this.file = file;
        this.arena = arena;
        this.archive = archive;
        this.base = base;
        this.root = root;
        this.entries = entries;
        this.description = description;
    }

    /**
     * Maps {@code file} and reads its central directory.
     *
     * @param description names the store in error messages while the archive is parsed
     * @param root          the folder holding the hierarchy ("" or ending in /), or null to detect it
     */
    static ZipReader open(Path file, String description, String root) {
        Arena arena = Arena.ofShared();
        boolean success = false;
        try {
            MemorySegment archive;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                archive = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            }
            ZipReader reader = parse(file, arena, archive, description, root);
            success = true;
            return reader;
        } catch (IOException e) {
            throw new StoreException(description, null, "cannot open zip archive " + file + " for " + description
                    + ": " + e, e);
        } finally {
            if (!success) {
                arena.close();
            }
        }
    }

    private static ZipReader parse(Path file, Arena arena, MemorySegment archive, String description, String root) {
        try {
            return parseOrThrow(file, arena, archive, description, root);
        } catch (IndexOutOfBoundsException e) {
            throw corrupt(description, file, "a record points past the end of the file (" + archive.byteSize()
                    + " bytes): " + e.getMessage(), e);
        } catch (InternalError e) {
            // A fault on a mapped page: the file shrank between mapping and parsing.
            throw corrupt(description, file, "it changed or was truncated while being opened (" + e.getMessage()
                    + ")", e);
        }
    }

    private static ZipReader parseOrThrow(Path file, Arena arena, MemorySegment archive, String description,
            String explicitRoot) {
        long fileSize = archive.byteSize();
        long end = findEndRecord(archive);
        if (end < 0) {
            throw new StoreException(description, null, file + " is not a zip archive: no end of central directory"
                    + " record in its last " + Math.min(fileSize, END_SIZE + MAX_COMMENT) + " bytes (file size "
                    + fileSize + ")");
        }
        long count = u16(archive, end + 10);
        long cdSize = u32(archive, end + 12);
        long cdOffset = u32(archive, end + 16);
        int disk = u16(archive, end + 4);
        long recordStart = end;
        long locator = end - ZIP64_LOCATOR_SIZE;
        if (locator >= 0 && u32(archive, locator) == (ZIP64_LOCATOR & MAX32)) {
            long zip64End = u64(archive, locator + 8);
            long at = zip64End;
            if (at < 0 || at > fileSize - ZIP64_END_SIZE || u32(archive, at) != (ZIP64_END & MAX32)) {
                // Bytes prepended to the archive shift every stored offset; the record usually sits
                // right before its locator.
                at = locator - ZIP64_END_SIZE;
            }
            if (at < 0 || u32(archive, at) != (ZIP64_END & MAX32)) {
                throw corrupt(description, file, "the Zip64 locator points at offset " + zip64End
                        + ", where there is no Zip64 end of central directory record", null);
            }
            disk = (int) u32(archive, at + 16);
            count = u64(archive, at + 32);
            cdSize = u64(archive, at + 40);
            cdOffset = u64(archive, at + 48);
            recordStart = at;
        }
        if (disk != 0) {
            throw new StoreException(description, null, file + " is one part of a multi-volume (spanned) zip"
                    + " archive; join the parts into one archive first (zip -s 0 in.zip --out out.zip)");
        }
        long cdStart = recordStart - cdSize;
        long base = cdStart - cdOffset;
        if (cdStart < 0 || base < 0) {
            throw corrupt(description, file, "the central directory (" + cdSize + " bytes at offset " + cdOffset
                    + ") does not fit before the end record at offset " + recordStart, null);
        }
        List<Entry> all = new ArrayList<>();
        long p = cdStart;
        while (p < recordStart) {
            if (u32(archive, p) != (CENTRAL_HEADER & MAX32)) {
                throw corrupt(description, file, "no central directory header at offset " + p + " (entry "
                        + all.size() + " of " + count + ")", null);
            }
            int flags = u16(archive, p + 8);
            int method = u16(archive, p + 10);
            int crc = (int) u32(archive, p + 16);
            long compressed = u32(archive, p + 20);
            long size = u32(archive, p + 24);
            int nameLength = u16(archive, p + 28);
            int extraLength = u16(archive, p + 30);
            int commentLength = u16(archive, p + 32);
            long local = u32(archive, p + 42);
            String name = new String(archive.asSlice(p + CENTRAL_HEADER_SIZE, nameLength)
                    .toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            // Zip64: the fields that overflowed hold 0xFFFFFFFF and follow in this order in extra 0x0001.
            long extra = p + CENTRAL_HEADER_SIZE + nameLength;
            long extraEnd = extra + extraLength;
            while (extra + 4 <= extraEnd) {
                int id = u16(archive, extra);
                int length = u16(archive, extra + 2);
                if (id == ZIP64_EXTRA) {
                    long field = extra + 4;
                    if (size == MAX32) {
                        size = u64(archive, field);
                        field += 8;
                    }
                    if (compressed == MAX32) {
                        compressed = u64(archive, field);
                        field += 8;
                    }
                    if (local == MAX32) {
                        local = u64(archive, field);
                    }
                }
                extra += 4 + length;
            }
            if (size < 0 || compressed < 0 || local < 0) {
                throw corrupt(description, file, "entry \"" + name + "\" declares a size or offset beyond 2^63", null);
            }
            all.add(new Entry(name, flags, method, crc, compressed, size, local));
            p = extraEnd + commentLength;
        }
        String root = explicitRoot != null ? explicitRoot : detectRoot(all);
        NavigableMap<String, Entry> entries = new TreeMap<>();
        for (Entry e : all) {
            if (!e.name.startsWith(root) || e.name.endsWith("/")) {
                continue;
            }
            String key = e.name.substring(root.length());
            if (isValidKey(key)) {
                // A name written twice: the later entry wins, as it does for unzip.
                entries.put(key, e);
            }
        }
        return new ZipReader(file, arena, archive, base, root, Collections.unmodifiableNavigableMap(entries),
                description);
    }

    /**
     * The folder holding the hierarchy: the one top-level folder (ignoring {@code __MACOSX/}) when
     * nothing else lies at the top level, its name ends in {@code .zarr} and it holds a Zarr metadata
     * document; empty otherwise. The name matters: an archive whose root holds one array
     * {@code t2m/} and no metadata of its own looks the same, and must keep {@code t2m/} in its keys.
     */
    private static String detectRoot(List<Entry> all) {
        String folder = null;
        for (Entry e : all) {
            if (e.name.startsWith(MACOS_FOLDER)) {
                continue;
            }
            int slash = e.name.indexOf('/');
            if (slash <= 0) {
                return "";
            }
            String top = e.name.substring(0, slash + 1);
            if (folder == null) {
                folder = top;
            } else if (!folder.equals(top)) {
                return "";
            }
        }
        if (folder == null || !folder.toLowerCase(java.util.Locale.ROOT).endsWith(".zarr/")) {
            return "";
        }
        for (Entry e : all) {
            if (e.name.startsWith(folder) && ROOT_DOCUMENTS.contains(e.name.substring(folder.length()))) {
                return folder;
            }
        }
        return "";
    }

    private static boolean isValidKey(String key) {
        try {
            StoreKeys.validate("", key);
            return true;
        } catch (InvalidKeyException e) {
            return false;
        }
    }

    /** The offset of the end of central directory record, or -1. */
    private static long findEndRecord(MemorySegment archive) {
        long size = archive.byteSize();
        long last = size - END_SIZE;
        long first = Math.max(0, last - MAX_COMMENT);
        long lenient = -1;
        for (long p = last; p >= first; p--) {
            if (u32(archive, p) == (END & MAX32)) {
                long commentEnd = p + END_SIZE + u16(archive, p + 20);
                if (commentEnd == size) {
                    return p;
                }
                if (commentEnd < size && lenient < 0) {
                    lenient = p;
                }
            }
        }
        return lenient;
    }

    String root() {
        return root;
    }

    Path file() {
        return file;
    }

    NavigableMap<String, Entry> entries() {
        return entries;
    }

    /** The description used in messages once the store is built around this reader. */
    void describeAs(String description) {
        this.description = description;
    }

    long size(String key) {
        Entry e = entries.get(key);
        return e == null ? -1 : e.size;
    }

    /**
     * Reads {@code length} bytes from {@code start} of {@code e} into {@code dst}; {@code whole}
     * when the range is the entire value, so that its CRC-32 can be checked.
     */
    void read(String key, Entry e, ByteRange range, long start, MemorySegment dst, boolean whole) {
        if ((e.flags & FLAG_ENCRYPTED) != 0) {
            throw new StoreException(description, key, "cannot read key \"" + key + "\" from " + description
                    + ": its zip entry \"" + e.name + "\" is encrypted, which ZipStore does not support");
        }
        try {
            readMapped(key, e, range, start, dst, whole);
        } catch (InternalError ex) {
            // The JDK reports a fault on a mapped page (the archive was truncated or replaced while
            // open: SIGBUS) as an InternalError; it is an I/O failure of this key, not a VM bug.
            throw new StoreException(description, key, "cannot read " + range + " of key \"" + key + "\" (zip entry \""
                    + e.name + "\") from " + description + ": the archive " + file + " changed or was truncated"
                    + " while open (" + ex.getMessage() + "); reopen the store once the file is complete", ex);
        }
    }

    /**
     * Copies the archive's bytes from {@code at} into {@code dst} through a heap buffer of the
     * reader's own: a page fault on the mapping (SIGBUS, the file truncated while open) then strikes
     * a copy that involves no segment of the caller. Straight into {@code dst}, the JDK could leave
     * the caller's arena acquired after the fault, and closing it failed ("Session is acquired by 1
     * clients"; seen under load in HostileFileStoresTest).
     */
    private void copyOut(long at, MemorySegment dst) {
        long n = dst.byteSize();
        MemorySegment bounce = MemorySegment.ofArray(new byte[(int) Math.min(n, BOUNCE_BYTES)]);
        for (long p = 0; p < n; p += bounce.byteSize()) {
            long k = Math.min(bounce.byteSize(), n - p);
            MemorySegment.copy(archive, at + p, bounce, 0, k);
            MemorySegment.copy(bounce, 0, dst, p, k);
        }
    }

    private void readMapped(String key, Entry e, ByteRange range, long start, MemorySegment dst, boolean whole) {
        long data = dataOffset(key, e);
        try {
            switch (e.method) {
                case STORED -> {
                    if (e.compressedSize != e.size) {
                        throw corruptEntry(key, e, "it is STORED but its compressed size " + e.compressedSize
                                + " differs from its size " + e.size, null);
                    }
                    copyOut(data + start, dst);
                }
                case DEFLATED -> inflate(key, e, data, start, dst, whole);
                default -> throw unsupportedMethod(key, e);
            }
        } catch (DataFormatException ex) {
            throw corruptEntry(key, e, "bad deflate data while reading " + range + ": " + ex.getMessage(), ex);
        }
        if (whole) {
            int actual = crc32(dst);
            if (actual != e.crc) {
                throw corruptEntry(key, e, String.format("CRC-32 mismatch: the central directory says 0x%08X,"
                        + " the data gives 0x%08X", e.crc, actual), null);
            }
        }
    }

    /**
     * Refuses, before anything is allocated for it, an entry whose declared size its data cannot
     * produce: the central directory may claim any size, and a caller reading a key whole (no
     * bound) would otherwise allocate and clear gigabytes for a few bytes of archive. A STORED
     * entry holds exactly its size; deflate expands at most 1032:1 (a 258-byte match in 2 bits).
     */
    void checkDeclaredSize(String key, Entry e) {
        dataOffset(key, e); // its compressed bytes lie within the file
        if (e.method != STORED && e.method != DEFLATED) {
            // before its declared size is allocated (a fuzzed archive declared 3.6 GB for 39 bytes)
            throw unsupportedMethod(key, e);
        }
        if (e.method == STORED && e.compressedSize != e.size) {
            throw corruptEntry(key, e, "it is STORED but its compressed size " + e.compressedSize
                    + " differs from its size " + e.size, null);
        }
        if (e.method == DEFLATED && e.size / MAX_DEFLATE_RATIO > e.compressedSize) {
            throw corruptEntry(key, e, "it declares " + e.size + " bytes, more than its " + e.compressedSize
                    + " deflated bytes can hold (deflate expands at most " + MAX_DEFLATE_RATIO + ":1)", null);
        }
    }

    private StoreException unsupportedMethod(String key, Entry e) {
        return new StoreException(description, key, "cannot read key \"" + key + "\" from " + description
                + ": its zip entry \"" + e.name + "\" is compressed with " + methodName(e.method)
                + "; ZipStore reads STORED and DEFLATED entries (Zarr recommends STORED: zip -0)");
    }

    private long dataOffset(String key, Entry e) {
        long known = e.dataOffset;
        if (known >= 0) {
            return known;
        }
        long local = base + e.localHeaderOffset;
        long fileSize = archive.byteSize();
        if (local > fileSize - LOCAL_HEADER_SIZE || u32(archive, local) != (LOCAL_HEADER & MAX32)) {
            throw corruptEntry(key, e, "no local header at offset " + local, null);
        }
        long data = local + LOCAL_HEADER_SIZE + u16(archive, local + 26) + u16(archive, local + 28);
        if (data > fileSize || e.compressedSize > fileSize - data) {
            throw corruptEntry(key, e, e.compressedSize + " bytes of data at offset " + data
                    + " run past the end of the file (" + fileSize + " bytes)", null);
        }
        e.dataOffset = data;
        return data;
    }

    /** Inflates from the start of the entry, discarding the first {@code start} bytes. */
    private void inflate(String key, Entry e, long data, long start, MemorySegment dst, boolean whole)
            throws DataFormatException {
        Inflater inflater = new Inflater(true);
        try {
            Input input = new Input(data, data + e.compressedSize);
            ByteBuffer scratch = null;
            long skipped = 0;
            while (skipped < start) {
                if (scratch == null) {
                    scratch = ByteBuffer.allocate((int) Math.min(SKIP_BUFFER, start));
                }
                scratch.clear().limit((int) Math.min(scratch.capacity(), start - skipped));
                skipped += inflateSome(key, e, inflater, input, scratch, false);
            }
            long length = dst.byteSize();
            for (long off = 0; off < length; off += PIECE) {
                MemorySegment piece = dst.asSlice(off, Math.min(PIECE, length - off));
                ByteBuffer out = byteBufferOf(piece);
                if (out != null) {
                    while (out.hasRemaining()) {
                        inflateSome(key, e, inflater, input, out, false);
                    }
                    continue;
                }
                ByteBuffer bounce = ByteBuffer.allocate((int) Math.min(SKIP_BUFFER, piece.byteSize()));
                for (long p = 0; p < piece.byteSize(); ) {
                    bounce.clear().limit((int) Math.min(bounce.capacity(), piece.byteSize() - p));
                    int n = inflateSome(key, e, inflater, input, bounce, false);
                    MemorySegment.copy(MemorySegment.ofArray(bounce.array()), 0, piece, p, n);
                    p += n;
                }
            }
            if (whole && !inflater.finished()) {
                ByteBuffer one = ByteBuffer.allocate(1);
                while (!inflater.finished()) {
                    if (inflateSome(key, e, inflater, input, one, true) > 0) {
                        throw corruptEntry(key, e, "it inflates to more than its declared size " + e.size, null);
                    }
                }
            }
        } finally {
            inflater.end();
        }
    }

    /** Compressed bytes not yet handed to the inflater. */
    private static final class Input {
        long next;
        final long end;
        boolean padded;

        final byte[] buffer;

        Input(long next, long end) {
            this.next = next;
            this.end = end;
            this.buffer = new byte[(int) Math.clamp(end - next, 1, SKIP_BUFFER)];
        }
    }

    /**
     * Inflates at least one byte into {@code out}, or returns 0 when the stream has ended and
     * {@code endAllowed}; an early end of the stream is corruption otherwise.
     */
    private int inflateSome(String key, Entry e, Inflater inflater, Input input, ByteBuffer out, boolean endAllowed)
            throws DataFormatException {
        while (true) {
            int n = inflater.inflate(out);
            if (n > 0) {
                return n;
            }
            if (inflater.finished()) {
                if (endAllowed) {
                    return 0;
                }
                throw corruptEntry(key, e, "its deflate stream ends after " + inflater.getBytesWritten()
                        + " bytes, short of its declared size " + e.size, null);
            }
            if (inflater.needsDictionary()) {
                throw corruptEntry(key, e, "its deflate stream asks for a preset dictionary", null);
            }
            if (!inflater.needsInput()) {
                continue;
            }
            if (input.next < input.end) {
                // Copied out of the mapping rather than handed to zlib as a direct buffer: a fault on
                // a truncated mapping is an InternalError in a Java copy, but would kill the VM in C.
                int n2 = (int) Math.min(input.buffer.length, input.end - input.next);
                MemorySegment.copy(archive, ValueLayout.JAVA_BYTE, input.next, input.buffer, 0, n2);
                inflater.setInput(input.buffer, 0, n2);
                input.next += n2;
            } else if (!input.padded) {
                // Old zlib versions need one byte past the raw deflate data to flush the last block.
                inflater.setInput(new byte[1]);
                input.padded = true;
            } else {
                throw corruptEntry(key, e, "its " + e.compressedSize + " compressed bytes end after "
                        + inflater.getBytesWritten() + " of " + e.size + " inflated bytes", null);
            }
        }
    }

    private StoreException corruptEntry(String key, Entry e, String why, Throwable cause) {
        return new StoreException(description, key, "zip entry \"" + e.name + "\" (key \"" + key + "\", "
                + methodName(e.method) + ", " + e.compressedSize + " bytes for " + e.size + ") in " + description
                + " is corrupt: " + why, cause);
    }

    private static StoreException corrupt(String description, Path file, String why, Throwable cause) {
        return new StoreException(description, null, "zip archive " + file + " is corrupt: " + why, cause);
    }

    private static int u16(MemorySegment s, long offset) {
        return Short.toUnsignedInt(s.get(U16, offset));
    }

    private static long u32(MemorySegment s, long offset) {
        return Integer.toUnsignedLong(s.get(U32, offset));
    }

    private static long u64(MemorySegment s, long offset) {
        return s.get(U64, offset);
    }

    @Override
    public void close() {
        arena.close();
    }
}
