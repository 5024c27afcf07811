// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testkit;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.ZarrArray;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;
import java.util.stream.LongStream;

/**
 * Synthetic ERA5-like fields on a regular grid, {@code [time, channel, lat, lon]} float32: smooth
 * large-scale patterns that move with time plus small seeded noise, rounded to 12 significant bits
 * as 16-bit GRIB packing leaves them, so that zstd ratios are those of reanalysis data.
 * Deterministic: for a given grid and seed, an element has the same value on every run and however
 * the array is filled (whole steps, partial slabs or one element at a time).
 *
 * <p>Latitudes run from 90 to -90 (inclusive), longitudes from 0 to 360 (exclusive). Channels
 * {@code 0..7} are the fields named in {@link #CHANNELS}; channel {@code c} of more is field
 * {@code c % 8} shifted in time by {@code 5 * (c / 8)} steps, so that every channel differs.
 *
 * <p>The noise of time step {@code t} is one stream seeded with {@code seed ^ (t * 0x9E3779B97F4A7C15)},
 * drawn in C order over the step's channels, latitudes and longitudes. With {@link #DEFAULT_SEED}
 * the output is byte for byte what {@code zarr-direct demo} and {@code bench --generate} wrote
 * before this class existed ({@code SyntheticEra5Test} pins it).
 *
 * <p>Instances are immutable and may be shared between threads.
 */
public final class SyntheticEra5 {

    /** The eight fields, in channel order. */
    public static final List<String> CHANNELS = List.of("t2m", "u10", "v10", "msl", "z500", "t850", "tcwv", "sp");

    /** Units of {@link #CHANNELS}, in the same order. */
    public static final List<String> UNITS = List.of("K", "m s-1", "m s-1", "Pa", "m2 s-2", "K", "kg m-2", "Pa");

    /** The seed of {@code zarr-direct demo} and {@code bench --generate}. */
    public static final long DEFAULT_SEED = 0x5EED_E5A5L;

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final int KEEP_MANTISSA_BITS = 11;

    private final int lat;
    private final int lon;
    private final long seed;
    private final double[] phi;
    private final double[] lambda;

    /** A generator for a {@code lat} x {@code lon} grid with {@link #DEFAULT_SEED}. */
    public SyntheticEra5(int lat, int lon) {
        this(lat, lon, DEFAULT_SEED);
    }

    /**
     * A generator for a {@code lat} x {@code lon} grid whose noise comes from {@code seed}.
     *
     * @throws IllegalArgumentException if {@code lat} or {@code lon} is less than 1
     */
    public SyntheticEra5(int lat, int lon, long seed) {
        if (lat < 1 || lon < 1) {
            throw new IllegalArgumentException("grid " + lat + " x " + lon + ": both extents must be at least 1");
        }
        this.lat = lat;
        this.lon = lon;
        this.seed = seed;
        phi = new double[lat];
        lambda = new double[lon];
        for (int y = 0; y < lat; y++) {
            phi[y] = Math.toRadians(90.0 - 180.0 * y / Math.max(1, lat - 1));
        }
        for (int x = 0; x < lon; x++) {
            lambda[x] = 2 * Math.PI * x / lon;
        }
    }

    /** Latitudes of the grid. */
    public int lat() {
        return lat;
    }

    /** Longitudes of the grid. */
    public int lon() {
        return lon;
    }

    /** The seed of the noise. */
    public long seed() {
        return seed;
    }

    /**
     * Writes time steps {@code [t0, t0 + steps)} of {@code channels} channels into {@code out}
     * (C order, little-endian float32, from offset 0).
     *
     * @throws IllegalArgumentException if {@code out} holds fewer than {@code steps * channels * lat * lon * 4} bytes,
     *                                  or {@code steps} or {@code channels} is negative
     */
    public void fill(MemorySegment out, long t0, int steps, int channels) {
        if (steps < 0 || channels < 0) {
            throw new IllegalArgumentException("negative steps " + steps + " or channels " + channels);
        }
        long bytes = (long) steps * channels * lat * lon * 4;
        if (out.byteSize() < bytes) {
            throw new IllegalArgumentException(steps + " steps of " + channels + " channels on " + lat + " x " + lon
                    + " need " + bytes + " bytes; the segment holds " + out.byteSize());
        }
        fillFlat(out.asSlice(0, bytes), t0, channels);
    }

    /**
     * Fills all of {@code out} with the array's elements in C order from the start of time step
     * {@code t0}, as many steps of {@code channels} channels as fit; the last step may be cut short,
     * and the last {@code out.byteSize() % 4} bytes are zero. For inputs of any size (a kernel
     * benchmark's frames): the bytes are a prefix of what {@link #fill} writes for enough steps.
     *
     * @throws IllegalArgumentException if {@code channels} is less than 1
     */
    public void fillFlat(MemorySegment out, long t0, int channels) {
        if (channels < 1) {
            throw new IllegalArgumentException("channels " + channels + ": must be at least 1");
        }
        long n = out.byteSize() / 4;
        long i = 0;
        for (long t = t0; i < n; t++) {
            SplittableRandom noise = new SplittableRandom(seed ^ (t * GOLDEN));
            for (int c = 0; c < channels && i < n; c++) {
                for (int y = 0; y < lat && i < n; y++) {
                    for (int x = 0; x < lon && i < n; x++) {
                        double v = field(c % 8, t + 5L * (c / 8), y, x) + noise.nextDouble(-1, 1) * noiseScale(c % 8);
                        out.setAtIndex(F32, i++, round((float) v));
                    }
                }
            }
        }
        out.asSlice(n * 4).fill((byte) 0);
    }

    /**
     * {@code bytes} bytes of the array with {@code channels} channels from the start of time step
     * {@code t0}, as {@link #fillFlat} writes them.
     */
    public byte[] bytes(int bytes, long t0, int channels) {
        byte[] b = new byte[bytes];
        fillFlat(MemorySegment.ofArray(b), t0, channels);
        return b;
    }

    /**
     * The value at one element, computed alone; equals what {@link #fill} writes there for any
     * number of channels above {@code c}. Costs one noise draw per element before it in its step.
     */
    public float value(long t, int c, int y, int x) {
        SplittableRandom noise = new SplittableRandom(seed ^ (t * GOLDEN));
        long skip = ((long) c * lat + y) * lon + x;
        for (long k = 0; k < skip; k++) {
            noise.nextDouble(-1, 1);
        }
        return round((float) (field(c % 8, t + 5L * (c / 8), y, x) + noise.nextDouble(-1, 1) * noiseScale(c % 8)));
    }

    /**
     * Writes every time step of {@code array} (float32 {@code [time, channel, lat, lon]} with this
     * generator's grid), steps in parallel, one step per {@link ZarrArray#write(long[], Tensor)}, and
     * calls {@code stepWritten} with each step's index once it is written (from any thread).
     *
     * @throws IllegalArgumentException if the array is not float32 of four dimensions on this grid
     */
    public void writeAll(ZarrArray array, LongConsumer stepWritten) {
        long[] shape = array.shape();
        if (shape.length != 4 || shape[2] != lat || shape[3] != lon || array.dataType() != DataType.FLOAT32
                || shape[1] > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("array " + java.util.Arrays.toString(shape) + " " + array.dataType()
                    + ": expected float32 [time, channel, " + lat + ", " + lon + "]");
        }
        int channels = (int) shape[1];
        // Steps in parallel: generating costs about as much as compressing.
        LongStream.range(0, shape[0]).parallel().forEach(step -> {
            try (Tensor slab = Tensor.allocateHost(DataType.FLOAT32, 1, channels, lat, lon)) {
                fill(slab.segment(), step, 1, channels);
                array.write(new long[]{step, 0, 0, 0}, slab);
            }
            stepWritten.accept(step);
        });
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
