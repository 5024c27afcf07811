package dev.zarrdirect.cuda.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/** Bench inputs that compress like reanalysis fields: smooth float32 fields with noise in the low bits. */
final class Data {

    private Data() {
    }

    static byte[] era5Like(Random rnd, int bytes) {
        ByteBuffer b = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
        double phase = rnd.nextDouble() * 6.28;
        float base = 250f + rnd.nextFloat() * 40f;
        int i = 0;
        while (b.remaining() >= 4) {
            float v = base + 10f * (float) Math.sin(phase + i * 0.001) + 2f * (float) Math.cos(i * 0.037);
            int bits = Float.floatToRawIntBits(v) & ~0xFF | rnd.nextInt(256); // noisy mantissa tail
            b.putInt(bits);
            i++;
        }
        while (b.hasRemaining()) {
            b.put((byte) rnd.nextInt());
        }
        return b.array();
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
