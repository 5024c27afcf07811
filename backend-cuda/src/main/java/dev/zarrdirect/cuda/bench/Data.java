package dev.zarrdirect.cuda.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

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
}
