// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.write;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.BitSet;
import java.util.stream.Collectors;

/**
 * The file of a part of a chunk: each variable's dense values, then the bitmap of the elements
 * given ({@link BitSet#toByteArray}, padded to one bit per element). Written by a task, merged by
 * the job's commit.
 */
final class Fragments {

    private Fragments() {
    }

    static Path file(Path attemptDir, long[] chunk) {
        return attemptDir.resolve("fragments").resolve(Arrays.stream(chunk).mapToObj(Long::toString)
                .collect(Collectors.joining(".")) + ".frag");
    }

    static void write(Path file, ChunkBuffer b) {
        try {
            Files.createDirectories(file.getParent());
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                for (MemorySegment v : b.values) {
                    ch.write(v.asByteBuffer());
                }
                byte[] bits = Arrays.copyOf(b.present.toByteArray(), (int) ((b.elements() + 7) / 8));
                ch.write(java.nio.ByteBuffer.wrap(bits));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the fragment of chunk " + Arrays.toString(b.chunk) + " to "
                    + file + ": " + e.getMessage(), e);
        }
    }

    /** Adds the fragment in {@code file} to {@code into}: the elements it gives replace the ones there. */
    static void mergeInto(Path file, ChunkBuffer into) {
        try (Arena arena = Arena.ofConfined();
             FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment all = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            long at = 0;
            long[] starts = new long[into.values.length];
            for (int i = 0; i < into.values.length; i++) {
                starts[i] = at;
                at += into.values[i].byteSize();
            }
            BitSet given = BitSet.valueOf(all.asSlice(at).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            for (int i = 0; i < into.values.length; i++) {
                long width = into.values[i].byteSize() / into.elements();
                for (int e = given.nextSetBit(0); e >= 0; e = given.nextSetBit(e + 1)) {
                    MemorySegment.copy(all, starts[i] + e * width, into.values[i], e * width, width);
                }
            }
            into.given(given);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the fragment " + file + ": " + e.getMessage(), e);
        }
    }
}
