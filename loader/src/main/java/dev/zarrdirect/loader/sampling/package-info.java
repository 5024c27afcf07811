// SPDX-License-Identifier: Apache-2.0
/**
 * Which samples make up each batch of an epoch on each rank.
 *
 * <h2>Order and sharding</h2>
 * {@link dev.zarrdirect.loader.sampling.EpochSampler} gives each epoch a permutation that is a
 * documented function of (seed, epoch), from a SplitMix64 generator and Fisher–Yates written out
 * here rather than taken from the JDK, so that a Python test recomputes it and it does not change
 * with the JVM. The order is sharded over ranks as torch's {@code DistributedSampler} shards it
 * (truncated with {@code drop_last}, padded by wrapping around without), and every rank has the same
 * number of batches.
 *
 * <h2>Resuming</h2>
 * A batch is a pure function of the sampler's arguments, the epoch and the batch index; nothing is
 * carried from one batch to the next, so resuming from a position is iterating from that index.
 */
package dev.zarrdirect.loader.sampling;
