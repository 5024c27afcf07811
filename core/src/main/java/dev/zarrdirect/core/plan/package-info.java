// SPDX-License-Identifier: Apache-2.0
/**
 * Read planning: what a read fetches, decodes and places, computed once before anything is read.
 *
 * <h2>Plans</h2>
 * A {@link dev.zarrdirect.core.plan.ReadPlanner} turns one or many requests (a box of the array and
 * where it goes in the destination) into a {@link dev.zarrdirect.core.plan.ReadPlan}: the store
 * requests ({@link dev.zarrdirect.core.plan.FetchRange}), the chunks each holds
 * ({@link dev.zarrdirect.core.plan.ChunkRead}) with every place they feed
 * ({@link dev.zarrdirect.core.plan.Placement}), and the boxes that read as the fill value
 * ({@link dev.zarrdirect.core.plan.FillBox}). A chunk that several requests need (overlapping
 * windows of a loader's batch) is read and decoded once and placed several times.
 *
 * <h2>Shards</h2>
 * For a chain that is {@code sharding_indexed} alone, planning reads each shard's index (in parallel)
 * and lists only the inner chunks needed; ranges of one shard closer than
 * {@link dev.zarrdirect.core.plan.ReadPlanner#COALESCE_GAP} become one request. Other chains list
 * whole chunks; whether a chunk exists is found when it is fetched.
 *
 * <p>Plans are run by the read engine ({@code dev.zarrdirect.core.exec}).
 */
package dev.zarrdirect.core.plan;
