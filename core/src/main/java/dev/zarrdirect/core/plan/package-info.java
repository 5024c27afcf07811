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
 * <h2>Batching windows</h2>
 * Users plan through {@link dev.zarrdirect.core.ZarrArray#plan} and run the plan with the same
 * array ({@link dev.zarrdirect.core.ZarrArray#read(dev.zarrdirect.core.plan.ReadPlan, dev.zarrdirect.api.Tensor)},
 * {@code readToDeviceAsync}, {@code readIntoAsync}). Requests keep the array's rank, so the windows
 * of a batch go side by side along one dimension of the destination:
 *
 * {@snippet :
 * List<ReadPlanner.Request> windows = new ArrayList<>();
 * for (int w = 0; w < 4; w++) {
 *     long t = starts[w];   // first time step of window w
 *     windows.add(new ReadPlanner.Request(new long[] {t, 0, 0}, new long[] {t + 24, 721, 1440},
 *             new long[] {24L * w, 0, 0}));
 * }
 * ReadPlan plan = t2m.plan(windows, new long[] {96, 721, 1440});
 * try (Tensor batch = Tensor.allocateHost(t2m.dataType(), 96, 721, 1440)) {
 *     t2m.read(plan, batch);
 * }
 * }
 *
 * <h2>Units, lifetime and threads</h2>
 * Coordinates, extents and shapes count elements; offsets and lengths of store requests count
 * bytes. A plan holds no native memory and no open resource: it needs no closing, can be run many
 * times and is safe to share between threads. Plans are run by the read engine
 * ({@code dev.zarrdirect.core.exec}).
 */
package dev.zarrdirect.core.plan;
