// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.bench;

import dev.zarrdirect.testkit.SyntheticEra5;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Bench inputs: generated ERA5-like frames, or the zstd files of a store. */
final class Data {

    private Data() {
    }

    /**
     * Frame {@code i} of a generated set: {@code bytes} bytes of the ERA5-like array
     * ({@link SyntheticEra5}, a quarter-degree grid as ERA5's, sixteen channels, noise from
     * {@code seed}) from the start of time step {@code i}.
     */
    static byte[] era5Like(long seed, int i, int bytes) {
        return new SyntheticEra5(721, 1440, seed).bytes(bytes, i, 16);
    }

    /** Regular files under {@code dir} that start with the zstd frame magic, in path order. */
    static List<Path> zstdFiles(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).sorted().filter(Data::isZstd).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    static byte[] read(Path f) {
        try {
            return Files.readAllBytes(f);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f, e);
        }
    }

    private static boolean isZstd(Path f) {
        try (var in = Files.newInputStream(f)) {
            byte[] m = in.readNBytes(4);
            return m.length == 4 && (m[0] & 0xFF) == 0x28 && (m[1] & 0xFF) == 0xB5 && (m[2] & 0xFF) == 0x2F && (m[3] & 0xFF) == 0xFD;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f, e);
        }
    }
}
