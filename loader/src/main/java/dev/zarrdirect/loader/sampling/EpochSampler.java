// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.sampling;

/**
 * The batches of each epoch on one rank: which samples, in which order. It delivers what torch's
 * {@code DistributedSampler} followed by a {@code DataLoader(batch_size, drop_last)} delivers, with
 * an epoch order of its own that any language can recompute.
 *
 * <h2>The order of an epoch</h2>
 * Without {@code shuffle} the order is {@code 0, 1, …, n−1} in every epoch. With it, the order of
 * epoch {@code e} is this permutation of {@code [0, n)}, all arithmetic on unsigned 64-bit words,
 * wrapping:
 * <ol>
 *   <li>{@code mix64(z)} is the SplitMix64 finalizer: {@code z ^= z >>> 30; z *= 0xBF58476D1CE4E5B9;
 *       z ^= z >>> 27; z *= 0x94D049BB133111EB; z ^= z >>> 31};</li>
 *   <li>the generator starts at {@code state = mix64(mix64(seed) ^ e)} (the seed as its two's
 *       complement 64-bit word); each draw does {@code state += 0x9E3779B97F4A7C15} and returns
 *       {@code mix64(state)};</li>
 *   <li>Fisher–Yates from the top: {@code order = [0, 1, …, n−1]}; for {@code i} from {@code n−1}
 *       down to 1, {@code j} is the high word of the 128-bit product of a draw and {@code i + 1}
 *       ({@code (draw * (i + 1)) >> 64}), then {@code order[i]} and {@code order[j]} swap.</li>
 * </ol>
 * The same in Python (the golden values of {@code EpochSamplerTest} come from it):
 * <pre>{@code
 * M = (1 << 64) - 1
 * def mix64(z):
 *     z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
 *     z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
 *     return z ^ (z >> 31)
 * def permutation(n, seed, epoch):
 *     state = mix64(mix64(seed & M) ^ epoch)
 *     order = list(range(n))
 *     for i in range(n - 1, 0, -1):
 *         state = (state + 0x9E3779B97F4A7C15) & M
 *         j = (mix64(state) * (i + 1)) >> 64
 *         order[i], order[j] = order[j], order[i]
 *     return order
 * }</pre>
 *
 * <h2>Sharding over ranks</h2>
 * With {@code n} samples, {@code W} ranks and batches of {@code B}, each rank takes {@code m}
 * samples an epoch:
 * <ul>
 *   <li>with {@code dropLast}, {@code m = floor(n / W)}: the last {@code n mod W} samples of the
 *       epoch's order are left out (a different set each epoch when shuffling);</li>
 *   <li>without, {@code m = ceil(n / W)}: the order is continued by wrapping around to its start
 *       (position {@code p} holds {@code order[p mod n]}), so {@code W·m − n < W} samples are seen
 *       twice in the epoch, as torch's {@code DistributedSampler} pads.</li>
 * </ul>
 * The {@code k}-th sample of rank {@code r} is the one at position {@code r + k·W}. A rank has
 * {@link #batches()} {@code = floor(m / B)} batches with {@code dropLast}, {@code ceil(m / B)}
 * without; batch {@code b} holds its samples {@code k} in {@code [b·B, min((b+1)·B, m))}. Every rank
 * has the same number of batches of the same sizes (only the last, without {@code dropLast}, may be
 * short), so collective operations in a training step never wait on a rank that ran out. With
 * {@code dropLast} the ranks' samples are disjoint; without, they are disjoint but for the padding.
 *
 * <h2>Resuming</h2>
 * {@link #batch(int, int)} is a pure function of the constructor's arguments, the epoch and the
 * batch index: a run resumed at batch {@code k} of an epoch by iterating {@code k, k+1, …} yields
 * exactly the batches the uninterrupted run would have.
 *
 * <p>Thread-safe: the order of the epoch asked last is cached and shared.
 */
public final class EpochSampler {

    private final int samples;
    private final int batchSize;
    private final boolean shuffle;
    private final long seed;
    private final boolean dropLast;
    private final int rank;
    private final int worldSize;
    private final int perRank;
    private final int batches;
    /** The order of the epoch asked last; recomputing it is O(n) per batch otherwise. */
    private volatile EpochOrder cached;

    private record EpochOrder(int epoch, int[] order) {
    }

    /**
     * @param samples   samples in the dataset ({@code n}, 0 or more)
     * @param batchSize samples per batch (at least 1)
     * @param shuffle   whether each epoch has its own permutation
     * @param seed      the permutation's seed
     * @param dropLast  whether the tail that does not fill a batch on every rank is left out
     * @param rank      this rank, in {@code [0, worldSize)}
     * @param worldSize the number of ranks (at least 1)
     * @throws IllegalArgumentException naming the value, for any value outside those ranges
     */
    public EpochSampler(int samples, int batchSize, boolean shuffle, long seed, boolean dropLast, int rank,
                        int worldSize) {
        if (samples < 0) {
            throw new IllegalArgumentException("samples must be 0 or more, not " + samples);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch_size must be at least 1, not " + batchSize);
        }
        if (worldSize < 1) {
            throw new IllegalArgumentException("world_size must be at least 1, not " + worldSize);
        }
        if (rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " is not in [0, " + worldSize + ")");
        }
        this.samples = samples;
        this.batchSize = batchSize;
        this.shuffle = shuffle;
        this.seed = seed;
        this.dropLast = dropLast;
        this.rank = rank;
        this.worldSize = worldSize;
        this.perRank = dropLast ? samples / worldSize : ceilDiv(samples, worldSize);
        this.batches = dropLast ? perRank / batchSize : ceilDiv(perRank, batchSize);
    }

    private static int ceilDiv(int a, int b) {
        return (int) (((long) a + b - 1) / b);
    }

    /** Batches per epoch on this rank; the same on every rank. */
    public int batches() {
        return batches;
    }

    /** Samples this rank takes per epoch, {@code m}, before the batches drop a partial one. */
    public int samplesPerRank() {
        return perRank;
    }

    /** Samples in the dataset. */
    public int samples() {
        return samples;
    }

    public int batchSize() {
        return batchSize;
    }

    public int rank() {
        return rank;
    }

    public int worldSize() {
        return worldSize;
    }

    /**
     * The sample indices of batch {@code index} of {@code epoch} on this rank, in order:
     * {@code batchSize} of them, fewer only for the last batch without {@code dropLast}.
     *
     * @throws IllegalArgumentException  if {@code epoch} is negative
     * @throws IndexOutOfBoundsException if {@code index} is not in {@code [0, batches())}
     */
    public int[] batch(int epoch, int index) {
        if (index < 0 || index >= batches) {
            throw new IndexOutOfBoundsException("batch " + index + " of epoch " + epoch + " on rank " + rank + " of "
                    + worldSize + ": there are " + batches + " batches per epoch (" + samples + " samples, batch_size "
                    + batchSize + (dropLast ? ", drop_last" : "") + ")");
        }
        int[] order = order(epoch);
        int first = index * batchSize;
        int size = Math.min(batchSize, perRank - first);
        int[] out = new int[size];
        for (int i = 0; i < size; i++) {
            long position = rank + (long) (first + i) * worldSize;
            out[i] = order[(int) (position % samples)];
        }
        return out;
    }

    /** The global order of {@code epoch} (before sharding): a permutation of {@code [0, samples)}. */
    public int[] epochOrder(int epoch) {
        return order(epoch).clone();
    }

    private int[] order(int epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be 0 or more, not " + epoch);
        }
        EpochOrder c = cached;
        if (c != null && c.epoch() == epoch) {
            return c.order();
        }
        int[] order = shuffle ? permutation(samples, seed, epoch) : identity(samples);
        cached = new EpochOrder(epoch, order);
        return order;
    }

    private static int[] identity(int n) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        return order;
    }

    /**
     * The permutation of {@code [0, n)} of {@code epoch} under {@code seed}, by the algorithm in the
     * class documentation.
     *
     * @throws IllegalArgumentException if {@code n} or {@code epoch} is negative
     */
    public static int[] permutation(int n, long seed, int epoch) {
        if (n < 0 || epoch < 0) {
            throw new IllegalArgumentException("a permutation needs n and epoch of 0 or more, not n = " + n
                    + ", epoch = " + epoch);
        }
        int[] order = identity(n);
        SplitMix64 random = new SplitMix64(SplitMix64.mix64(SplitMix64.mix64(seed) ^ epoch));
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }

    @Override
    public String toString() {
        return "EpochSampler[" + samples + " samples, batch_size " + batchSize + (shuffle ? ", shuffle seed " + seed : "")
                + (dropLast ? ", drop_last" : "") + ", rank " + rank + " of " + worldSize + ": " + batches
                + " batches of " + perRank + " samples per epoch]";
    }
}
