// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.sampling;

/**
 * Steele, Lea and Flood's SplitMix64 generator, written out so that the epoch order does not depend
 * on the JDK's generators (whose algorithms may change between releases) and can be recomputed in a
 * few lines of Python. All arithmetic is on unsigned 64-bit words, wrapping.
 *
 * <p>Not thread-safe: one instance per permutation.
 */
final class SplitMix64 {

    /** The golden-ratio increment of the state, {@code 0x9E3779B97F4A7C15}. */
    static final long GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    /** A generator whose first output is {@code mix64(state + GAMMA)}. */
    SplitMix64(long state) {
        this.state = state;
    }

    /**
     * The SplitMix64 finalizer: {@code z ^= z >>> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >>> 27;
     * z *= 0x94D049BB133111EB; z ^= z >>> 31}.
     */
    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Advances the state by {@link #GAMMA} and returns {@code mix64(state)}. */
    long nextLong() {
        state += GAMMA;
        return mix64(state);
    }

    /**
     * A value in {@code [0, bound)}: the high 64 bits of the 128-bit product of {@link #nextLong()}
     * (unsigned) and {@code bound}, i.e. {@code (u * bound) >> 64}. One draw per call and no rejection;
     * the bias is below {@code bound / 2^64}, under 2^-33 for any {@code int} bound.
     */
    int nextInt(int bound) {
        return (int) Math.unsignedMultiplyHigh(nextLong(), bound);
    }
}
