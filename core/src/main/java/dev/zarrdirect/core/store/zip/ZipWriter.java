// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store.zip;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.ByteRange;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

import static dev.zarrdirect.core.store.zip.ZipFormat.*;

/**
 * The write side of {@link ZipStore}: values are appended as STORED entries to a temporary file
 * next to the target, and {@link #finish} writes the central directory and renames the temporary
 * file over the target.
 * <p>
 * Entries are never rewritten in place: a key set again gets a new entry, and the old one becomes
 * dead space that {@link #finish} drops by copying the live entries to a second temporary file.
 */
final class ZipWriter {

    private static final String PID = Long.toHexString(ProcessHandle.current().pid());
    private static final AtomicLong TEMP_COUNTER = new AtomicLong();
    private static final int CENTRAL_BUFFER = 1 << 16;

    /** One entry in the temporary file. */
    record Written(long headerOffset, long dataOffset, long size, int crc) {
        long span() {
            return dataOffset - headerOffset + size;
        }

        Written movedTo(long headerOffset) {
            return new Written(headerOffset, headerOffset + dataOffset - this.headerOffset, size, crc);
        }
    }

    private final Path target;
    private final Path temp;
    private final FileChannel channel;
    private final int dosDateTime;
    private final ConcurrentSkipListMap<String, Written> entries = new ConcurrentSkipListMap<>();
    private final Object lock = new Object();
    private final String description;
    /** Guarded by lock. */
    private long end;
    /** Bytes of entries replaced or deleted; guarded by lock. */
    private long garbage;
    /** Guarded by lock. */
    private boolean finished;

    private ZipWriter(Path target, Path temp, FileChannel channel, String description) {
        this.target = target;
        this.temp = temp;
        this.channel = channel;
        this.description = description;
        this.dosDateTime = ZipFormat.dosDateTime(LocalDateTime.now());
    }

    static ZipWriter create(Path target, String description) {
        Path dir = target.getParent();
        try {
            if (Files.isDirectory(target)) {
                throw new StoreException(description, null, "cannot create zip archive " + target
                        + ": it is a directory; name a file such as " + target + ".zip");
            }
            Files.createDirectories(dir);
            Path temp = dir.resolve(tempName(target));
            FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            return new ZipWriter(target, temp, channel, description);
        } catch (IOException e) {
            throw new StoreException(description, null, "cannot create zip archive " + target + ": cannot write a"
                    + " temporary file in " + dir + ": " + e, e);
        }
    }

    private static String tempName(Path target) {
        String name = target.getFileName().toString();
        String kept = name.length() > 64 ? name.substring(0, 64) : name;
        return "." + kept + ".zd" + PID + "-" + Long.toHexString(TEMP_COUNTER.incrementAndGet()) + ".tmp";
    }

    Path temp() {
        return temp;
    }

    NavigableMap<String, Written> entries() {
        return entries;
    }

    /** Appends {@code value} as a new entry for {@code key}; the caller has validated the key. */
    void set(String key, MemorySegment value) {
        // Reads the whole value once before anything is written: a value from a closed arena fails here.
        int crc = crc32(value);
        long size = value.byteSize();
        byte[] name = key.getBytes(StandardCharsets.UTF_8);
        ByteBuffer header = localHeader(name, size, crc);
        synchronized (lock) {
            ensureWritable(key);
            checkNoConflict(key);
            long start = end;
            try {
                writeFully(header.flip(), start);
                writeSegment(value, start + header.limit());
            } catch (IOException e) {
                throw failedWrite(key, size, start, e);
            } catch (RuntimeException | Error e) {
                try {
                    channel.truncate(start);
                } catch (IOException t) {
                    e.addSuppressed(t);
                }
                throw e;
            }
            end = start + header.limit() + size;
            Written old = entries.put(key, new Written(start, start + header.limit(), size, crc));
            if (old != null) {
                garbage += old.span();
            }
        }
    }

    private StoreException failedWrite(String key, long size, long start, IOException e) {
        String why = e instanceof ClosedChannelException
                ? "the temporary file " + temp + " was closed (a thread interrupted during its I/O closes it);"
                + " the archive cannot be finished"
                : "cannot append key \"" + key + "\" (" + size + " bytes) to " + temp + ": " + e
                + "; earlier keys are kept";
        try {
            channel.truncate(start);
        } catch (IOException t) {
            e.addSuppressed(t);
        }
        return new StoreException(description, key, why + " (" + description + ")", e);
    }

    /**
     * A key may not also be a folder of other keys, since the archive could not be unpacked: the
     * file {@code a} and the folder {@code a/} cannot both exist.
     */
    private void checkNoConflict(String key) {
        String below = entries.ceilingKey(key + "/");
        if (below != null && below.startsWith(key + "/")) {
            throw new StoreException(description, key, "cannot set key \"" + key + "\" in " + description
                    + ": keys such as \"" + below + "\" lie below it, and a zip entry cannot be both a file and"
                    + " a folder");
        }
        for (int slash = key.indexOf('/'); slash >= 0; slash = key.indexOf('/', slash + 1)) {
            String parent = key.substring(0, slash);
            if (entries.containsKey(parent)) {
                throw new StoreException(description, key, "cannot set key \"" + key + "\" in " + description
                        + ": \"" + parent + "\" holds a value, and a zip entry cannot be both a file and a folder");
            }
        }
    }

    private ByteBuffer localHeader(byte[] name, long size, int crc) {
        boolean zip64 = size >= MAX32;
        ByteBuffer b = littleEndian(LOCAL_HEADER_SIZE + name.length + (zip64 ? 20 : 0));
        b.putInt(LOCAL_HEADER).putShort((short) (zip64 ? VERSION_ZIP64 : VERSION_DEFAULT))
                .putShort((short) FLAG_UTF8).putShort((short) STORED).putInt(dosDateTime).putInt(crc)
                .putInt((int) (zip64 ? MAX32 : size)).putInt((int) (zip64 ? MAX32 : size))
                .putShort((short) name.length).putShort((short) (zip64 ? 20 : 0)).put(name);
        if (zip64) {
            b.putShort((short) ZIP64_EXTRA).putShort((short) 16).putLong(size).putLong(size);
        }
        return b;
    }

    void delete(String key) {
        synchronized (lock) {
            ensureWritable(key);
            Written old = entries.remove(key);
            if (old != null) {
                garbage += old.span();
            }
        }
    }

    long size(String key) {
        Written w = entries.get(key);
        return w == null ? -1 : w.size;
    }

    /** Reads {@code dst.byteSize()} bytes from {@code start} of the entry into {@code dst}. */
    void read(String key, Written w, ByteRange range, long start, MemorySegment dst) {
        long length = dst.byteSize();
        try {
            for (long off = 0; off < length; off += PIECE) {
                MemorySegment piece = dst.asSlice(off, Math.min(PIECE, length - off));
                ByteBuffer bb = byteBufferOf(piece);
                boolean bounced = bb == null;
                if (bounced) {
                    bb = ByteBuffer.allocateDirect((int) piece.byteSize());
                }
                long position = w.dataOffset + start + off;
                while (bb.hasRemaining()) {
                    if (channel.read(bb, position + bb.position()) < 0) {
                        throw new IOException("unexpected end of " + temp + " at " + (position + bb.position()));
                    }
                }
                if (bounced) {
                    piece.copyFrom(MemorySegment.ofBuffer(bb.flip()));
                }
            }
        } catch (ClosedChannelException e) {
            throw new IllegalStateException(description + " is closed", e);
        } catch (IOException e) {
            throw new StoreException(description, key, "cannot read " + range + " of key \"" + key + "\" from "
                    + description + " (temporary file " + temp + "): " + e, e);
        }
    }

    /**
     * Writes the central directory and renames the archive into place; the first call does the
     * work, later calls return at once.
     *
     * @return false when the writer was already finished
     */
    boolean finish() {
        synchronized (lock) {
            if (finished) {
                return false;
            }
            finished = true;
        }
        Path written = temp;
        FileChannel out = channel;
        Path compacted = null;
        try {
            List<Map.Entry<String, Written>> live = new ArrayList<>(entries.entrySet());
            long length = end;
            if (garbage > 0) {
                compacted = temp.resolveSibling(tempName(target));
                out = FileChannel.open(compacted, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                live = compact(live, out);
                length = live.stream().mapToLong(e -> e.getValue().span()).sum();
                channel.close();
                Files.delete(temp);
                written = compacted;
            }
            writeCentralDirectory(out, live, length);
            out.force(true);
            out.close();
            Files.move(written, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            forceDirectory(target.getParent());
            return true;
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel, e);
            closeQuietly(out, e);
            deleteQuietly(temp, e);
            deleteQuietly(compacted, e);
            String why = e instanceof ClosedChannelException
                    ? "its temporary file was closed earlier (a thread interrupted during its I/O closes it)"
                    : e.toString();
            throw new StoreException(description, null, "cannot finish zip archive " + target + " ("
                    + entries.size() + " keys): " + why + "; " + target + " is unchanged", e);
        }
    }

    /** Copies the live entries, in the order they were written, to the start of {@code out}. */
    private List<Map.Entry<String, Written>> compact(List<Map.Entry<String, Written>> live, FileChannel out)
            throws IOException {
        List<Map.Entry<String, Written>> byOffset = new ArrayList<>(live);
        byOffset.sort(Comparator.comparingLong(e -> e.getValue().headerOffset()));
        Map<String, Written> moved = new java.util.HashMap<>();
        long position = 0;
        for (Map.Entry<String, Written> e : byOffset) {
            Written w = e.getValue();
            long done = 0;
            while (done < w.span()) {
                long n = channel.transferTo(w.headerOffset() + done, w.span() - done, out);
                if (n <= 0) {
                    throw new IOException("copying entry \"" + e.getKey() + "\" stalled at " + done + " of "
                            + w.span() + " bytes");
                }
                done += n;
            }
            moved.put(e.getKey(), w.movedTo(position));
            position += w.span();
        }
        List<Map.Entry<String, Written>> result = new ArrayList<>(live.size());
        for (Map.Entry<String, Written> e : live) {
            result.add(Map.entry(e.getKey(), moved.get(e.getKey())));
        }
        return result;
    }

    private void writeCentralDirectory(FileChannel out, List<Map.Entry<String, Written>> live, long start)
            throws IOException {
        long position = start;
        ByteBuffer buffer = littleEndian(CENTRAL_BUFFER);
        for (Map.Entry<String, Written> e : live) {
            ByteBuffer header = centralHeader(e.getKey().getBytes(StandardCharsets.UTF_8), e.getValue());
            if (header.remaining() > buffer.remaining()) {
                position += flush(out, buffer, position);
            }
            if (header.remaining() > buffer.remaining()) {
                int n = header.remaining();
                writeAt(out, header, position);
                position += n;
            } else {
                buffer.put(header);
            }
        }
        position += flush(out, buffer, position);
        long cdSize = position - start;
        long count = live.size();
        ByteBuffer tail = littleEndian(ZIP64_END_SIZE + ZIP64_LOCATOR_SIZE + END_SIZE);
        boolean zip64 = count >= MAX16 || cdSize >= MAX32 || start >= MAX32;
        if (zip64) {
            tail.putInt(ZIP64_END).putLong(ZIP64_END_SIZE - 12).putShort((short) (MADE_BY_UNIX | VERSION_ZIP64))
                    .putShort((short) VERSION_ZIP64).putInt(0).putInt(0).putLong(count).putLong(count)
                    .putLong(cdSize).putLong(start);
            tail.putInt(ZIP64_LOCATOR).putInt(0).putLong(position).putInt(1);
        }
        tail.putInt(END).putShort((short) 0).putShort((short) 0)
                .putShort((short) Math.min(count, MAX16)).putShort((short) Math.min(count, MAX16))
                .putInt((int) Math.min(cdSize, MAX32)).putInt((int) Math.min(start, MAX32)).putShort((short) 0);
        flush(out, tail, position);
    }

    private ByteBuffer centralHeader(byte[] name, Written w) {
        boolean bigSize = w.size >= MAX32;
        boolean bigOffset = w.headerOffset >= MAX32;
        int extra = (bigSize ? 16 : 0) + (bigOffset ? 8 : 0);
        int extraLength = extra == 0 ? 0 : 4 + extra;
        boolean zip64 = bigSize || bigOffset;
        ByteBuffer b = littleEndian(CENTRAL_HEADER_SIZE + name.length + extraLength);
        b.putInt(CENTRAL_HEADER).putShort((short) (MADE_BY_UNIX | VERSION_ZIP64))
                .putShort((short) (zip64 ? VERSION_ZIP64 : VERSION_DEFAULT)).putShort((short) FLAG_UTF8)
                .putShort((short) STORED).putInt(dosDateTime).putInt(w.crc)
                .putInt((int) (bigSize ? MAX32 : w.size)).putInt((int) (bigSize ? MAX32 : w.size))
                .putShort((short) name.length).putShort((short) extraLength).putShort((short) 0)
                .putShort((short) 0).putShort((short) 0).putInt(REGULAR_FILE_ATTRIBUTES)
                .putInt((int) (bigOffset ? MAX32 : w.headerOffset)).put(name);
        if (extra > 0) {
            b.putShort((short) ZIP64_EXTRA).putShort((short) extra);
            if (bigSize) {
                b.putLong(w.size).putLong(w.size);
            }
            if (bigOffset) {
                b.putLong(w.headerOffset);
            }
        }
        return b.flip();
    }

    /** Writes the bytes put into {@code buffer} at {@code position} and clears it; returns their count. */
    private static int flush(FileChannel out, ByteBuffer buffer, long position) throws IOException {
        int n = buffer.flip().remaining();
        writeAt(out, buffer, position);
        buffer.clear();
        return n;
    }

    /** Writes the remaining bytes of {@code bb} at {@code position}. */
    private static void writeAt(FileChannel out, ByteBuffer bb, long position) throws IOException {
        int n = bb.remaining();
        while (bb.hasRemaining()) {
            out.write(bb, position + n - bb.remaining());
        }
    }

    private void writeFully(ByteBuffer bb, long position) throws IOException {
        writeAt(channel, bb, position);
    }

    private void writeSegment(MemorySegment value, long position) throws IOException {
        long length = value.byteSize();
        for (long off = 0; off < length; off += PIECE) {
            MemorySegment piece = value.asSlice(off, Math.min(PIECE, length - off));
            ByteBuffer bb = byteBufferOf(piece);
            if (bb == null) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment copy = arena.allocate(piece.byteSize());
                    copy.copyFrom(piece);
                    writeFully(copy.asByteBuffer(), position + off);
                }
            } else {
                writeFully(bb, position + off);
            }
        }
    }

    private void ensureWritable(String key) {
        if (finished) {
            throw new IllegalStateException(description + " is closed");
        }
        if (!channel.isOpen()) {
            throw new StoreException(description, key, "cannot write key \"" + key + "\": the temporary file "
                    + temp + " of " + description + " was closed (a thread interrupted during its I/O closes it);"
                    + " the archive cannot be finished");
        }
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Best effort: some file systems cannot open or flush directories; the rename is done.
        }
    }

    private static void closeQuietly(FileChannel ch, Throwable failure) {
        try {
            ch.close();
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }

    private static void deleteQuietly(Path path, Throwable failure) {
        if (path == null) {
            return;
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }
}
