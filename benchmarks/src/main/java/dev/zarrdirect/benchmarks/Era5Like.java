package dev.zarrdirect.benchmarks;

import java.util.SplittableRandom;

/**
 * Float32 fields that compress like ERA5 reanalysis: a smooth temperature-like field over a
 * latitude/longitude grid (cooler towards the poles and with height, planetary waves drifting in
 * time) plus Gaussian noise, then quantised to 16 bits over the field's range the way ERA5's GRIB
 * packing leaves its values. Deterministic for a given seed, time step and level.
 */
public final class Era5Like {

    /** Elements in a 1 MiB float32 chunk. */
    public static final int CHUNK_ELEMENTS = 1 << 18;

    private Era5Like() {
    }

    /**
     * One {@code [nlat, nlon]} field, row-major, latitudes from 90 to -90 and longitudes from 0 to
     * 360 (exclusive).
     *
     * @param t     time step (waves drift by 0.1 rad per step)
     * @param level vertical level (0 at the surface; 6.5 K cooler per level)
     */
    public static float[] field(long t, long level, int nlat, int nlon, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed ^ (t * 0x9E3779B97F4A7C15L) ^ (level * 0xC2B2AE3D27D4EB4FL));
        double[] v = new double[nlat * nlon];
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < nlat; i++) {
            double lat = Math.toRadians(90.0 - 180.0 * i / Math.max(1, nlat - 1));
            double sinLat = Math.sin(lat);
            double cos2Lat = Math.cos(2 * lat);
            for (int j = 0; j < nlon; j++) {
                double lon = 2 * Math.PI * j / nlon;
                double x = 300.0 - 45.0 * sinLat * sinLat - 6.5 * level
                        + 6.0 * Math.sin(3 * lon + 0.1 * t) * cos2Lat
                        + 2.5 * Math.cos(7 * lon - 0.05 * t + level) * Math.cos(lat)
                        + 0.3 * gaussian(rnd);
                v[i * nlon + j] = x;
                min = Math.min(min, x);
                max = Math.max(max, x);
            }
        }
        // 16-bit packing: every value is min + k * step for an integer k in [0, 65535].
        double step = max > min ? (max - min) / 65535.0 : 1.0;
        float[] out = new float[v.length];
        for (int k = 0; k < v.length; k++) {
            out[k] = (float) (min + Math.rint((v[k] - min) / step) * step);
        }
        return out;
    }

    /** A 1 MiB chunk: the {@code [512, 512]} field of time step 0, level 0. */
    public static float[] chunk(long seed) {
        return field(0, 0, 512, 512, seed);
    }

    private static double gaussian(SplittableRandom rnd) {
        // Box-Muller; SplittableRandom has no nextGaussian that is stable across JDKs.
        double u = 1.0 - rnd.nextDouble();
        double w = rnd.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2 * Math.PI * w);
    }
}
