// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store.zip;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.LocalDateTime;
import java.util.zip.CRC32;

/**
 * The parts of the zip format (PKWARE APPNOTE 6.3) that {@link ZipStore} reads and writes: local
 * headers, the central directory, the end records and the Zip64 extensions.
 */
final class ZipFormat {

    static final int LOCAL_HEADER = 0x04034b50;
    static final int CENTRAL_HEADER = 0x02014b50;
    static final int END = 0x06054b50;
    static final int ZIP64_END = 0x06064b50;
    static final int ZIP64_LOCATOR = 0x07064b50;

    static final int LOCAL_HEADER_SIZE = 30;
    static final int CENTRAL_HEADER_SIZE = 46;
    static final int END_SIZE = 22;
    static final int ZIP64_END_SIZE = 56;
    static final int ZIP64_LOCATOR_SIZE = 20;
    static final int MAX_COMMENT = 0xFFFF;

    static final int STORED = 0;
    static final int DEFLATED = 8;

    static final int FLAG_ENCRYPTED = 1;
    static final int FLAG_UTF8 = 1 << 11;

    static final int ZIP64_EXTRA = 0x0001;
    static final long MAX32 = 0xFFFFFFFFL;
    static final int MAX16 = 0xFFFF;

    /** Version 2.0: STORED and DEFLATED entries; 4.5: Zip64. */
    static final int VERSION_DEFAULT = 20;
    static final int VERSION_ZIP64 = 45;
    /** "Made by" Unix, so that tools honour the permission bits in the external attributes. */
    static final int MADE_BY_UNIX = 3 << 8;
    /** A regular file, rw-r--r--. */
    static final int REGULAR_FILE_ATTRIBUTES = 0100644 << 16;

    private ZipFormat() {
    }

    static ByteBuffer littleEndian(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    static String methodName(int method) {
        return switch (method) {
            case STORED -> "STORED";
            case DEFLATED -> "DEFLATED";
            case 9 -> "DEFLATE64";
            case 12 -> "BZIP2";
            case 14 -> "LZMA";
            case 93 -> "ZSTD";
            case 95 -> "XZ";
            default -> "method " + method;
        };
    }

    /** The MS-DOS date (high 16 bits) and time (low 16 bits) of {@code t}, clamped to 1980 and later. */
    static int dosDateTime(LocalDateTime t) {
        if (t.getYear() < 1980) {
            return (1 << 21) | (1 << 16);
        }
        int date = ((t.getYear() - 1980) << 9) | (t.getMonthValue() << 5) | t.getDayOfMonth();
        int time = (t.getHour() << 11) | (t.getMinute() << 5) | (t.getSecond() >> 1);
        return (date << 16) | time;
    }

    /** Largest piece handed to one buffer-based call: ByteBuffer views are limited to 2 GiB. */
    static final long PIECE = 1L << 30;
    private static final int BOUNCE = 1 << 16;

    /** The CRC-32 of {@code value}, whatever memory it lives in and however large it is. */
    static int crc32(MemorySegment value) {
        CRC32 crc = new CRC32();
        long length = value.byteSize();
        for (long off = 0; off < length; off += PIECE) {
            MemorySegment piece = value.asSlice(off, Math.min(PIECE, length - off));
            ByteBuffer bb = byteBufferOf(piece);
            if (bb != null) {
                crc.update(bb);
                continue;
            }
            byte[] scratch = new byte[(int) Math.min(BOUNCE, piece.byteSize())];
            for (long p = 0; p < piece.byteSize(); p += scratch.length) {
                int n = (int) Math.min(scratch.length, piece.byteSize() - p);
                MemorySegment.copy(piece, java.lang.foreign.ValueLayout.JAVA_BYTE, p, scratch, 0, n);
                crc.update(scratch, 0, n);
            }
        }
        return (int) crc.getValue();
    }

    /** A view of {@code segment}, or null for heap segments over arrays other than byte[]. */
    static ByteBuffer byteBufferOf(MemorySegment segment) {
        try {
            return segment.asByteBuffer();
        } catch (UnsupportedOperationException e) {
            return null;
        }
    }
}
