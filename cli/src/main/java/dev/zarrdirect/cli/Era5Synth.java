package dev.zarrdirect.cli;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Synthetic ERA5-like fields on a one-degree grid, {@code [time, channel, lat, lon]}: smooth
 * large-scale patterns that move with time plus small seeded noise, rounded to 12 significant bits
 * as 16-bit GRIB packing leaves them. Deterministic: the same element has the same value on every run.
 */
final class Era5Synth {

    static final List<String> CHANNELS = List.of("t2m", "u10", "v10", "msl", "z500", "t850", "tcwv", "sp");
    static final long SEED = 0x5EED_E5A5L;

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int KEEP_MANTISSA_BITS = 11;

    private final int lat;
    private final int lon;
    private final double[] phi;
    private final double[] lambda;

    Era5Synth(int lat, int lon) {
        this.lat = lat;
        this.lon = lon;
        phi = new double[lat];
        lambda = new double[lon];
        for (int y = 0; y < lat; y++) {
            phi[y] = Math.toRadians(90.0 - 180.0 * y / Math.max(1, lat - 1));
        }
        for (int x = 0; x < lon; x++) {
            lambda[x] = 2 * Math.PI * x / lon;
        }
    }

    /** Fills {@code out} (C order, little-endian float32) with time steps {@code [t0, t0+steps)} of all channels. */
    void fill(MemorySegment out, long t0, int steps) {
        fill(out, t0, steps, CHANNELS.size());
    }

    /**
     * As {@link #fill(MemorySegment, long, int)} for any number of channels: channel {@code c} is field
     * {@code c % 8} shifted in phase by {@code c / 8}, so more channels than the named eight stay distinct.
     */
    void fill(MemorySegment out, long t0, int steps, int channels) {
        long i = 0;
        for (int s = 0; s < steps; s++) {
            long t = t0 + s;
            SplittableRandom noise = new SplittableRandom(SEED ^ (t * 0x9E3779B97F4A7C15L));
            for (int c = 0; c < channels; c++) {
                for (int y = 0; y < lat; y++) {
                    for (int x = 0; x < lon; x++) {
                        double v = field(c % 8, t + 5L * (c / 8), y, x) + noise.nextDouble(-1, 1) * noiseScale(c % 8);
                        out.setAtIndex(F32, i++, round((float) v));
                    }
                }
            }
        }
    }

    /** The value at one element, computed alone; equals what {@link #fill} writes there. */
    float value(long t, int c, int y, int x) {
        SplittableRandom noise = new SplittableRandom(SEED ^ (t * 0x9E3779B97F4A7C15L));
        long skip = ((long) c * lat + y) * lon + x;
        for (long k = 0; k < skip; k++) {
            noise.nextDouble(-1, 1);
        }
        return round((float) (field(c, t, y, x) + noise.nextDouble(-1, 1) * noiseScale(c)));
    }

    private double field(int c, long t, int y, int x) {
        double p = phi[y];
        double l = lambda[x];
        double day = 2 * Math.PI * t / 24.0;
        double sinP = Math.sin(p);
        double cosP = Math.cos(p);
        return switch (c) {
            case 0 -> 288 - 40 * sinP * sinP + 6 * cosP * Math.sin(l - day) + 3 * Math.cos(3 * l + 2 * p - 0.3 * day);
            case 1 -> 12 * Math.cos(2 * p) * cosP + 5 * Math.sin(4 * l - 0.5 * day) * cosP;
            case 2 -> 6 * Math.sin(3 * l - 0.4 * day) * Math.sin(2 * p) + 2 * Math.cos(l + p);
            case 3 -> 101325 + 1500 * Math.cos(3 * p) + 900 * Math.sin(2 * l - 0.2 * day) * cosP * cosP;
            case 4 -> 55000 - 3500 * sinP * sinP + 600 * Math.sin(5 * l - 0.3 * day) * cosP;
            case 5 -> 280 - 35 * sinP * sinP + 4 * Math.sin(2 * l - 0.25 * day + p);
            case 6 -> 50 * cosP * cosP * cosP * (1 + 0.3 * Math.sin(3 * l - 0.6 * day));
            default -> 100000 - 800 * sinP * sinP + 700 * Math.cos(2 * l + 3 * p - 0.1 * day);
        };
    }

    private static double noiseScale(int c) {
        return switch (c) {
            case 3, 4, 7 -> 20;
            default -> 0.2;
        };
    }

    /** Keeps {@value #KEEP_MANTISSA_BITS} mantissa bits, rounding to nearest (the lower ones become zero). */
    private static float round(float v) {
        int bits = Float.floatToRawIntBits(v);
        int drop = 23 - KEEP_MANTISSA_BITS;
        int half = 1 << (drop - 1);
        bits = (bits + half) & ~((1 << drop) - 1);
        return Float.intBitsToFloat(bits);
    }
}
