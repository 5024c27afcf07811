// SPDX-License-Identifier: Apache-2.0
/**
 * The codec pipeline: codec chains resolved once, their host and device executors,
 * {@code sharding_indexed}, and the placement of chunks into tensors.
 *
 * <h2>Stages</h2>
 * {@link dev.zarrdirect.core.pipeline.CodecStages} is a chain resolved for one chunk representation
 * and one device: the stage list and the size arithmetic between stages. Both executors run from
 * it: {@link dev.zarrdirect.core.pipeline.CodecChain} decodes and encodes one chunk at a time on
 * the host; {@link dev.zarrdirect.core.pipeline.DeviceDecoder} fetches and decodes batches of chunks
 * on a device, one launch per stage per batch.
 *
 * <h2>Decoding on the host</h2>
 * The stages run backwards; the last stage writes into the destination tensor when the chunk's box
 * there is one contiguous run, so a whole-chunk read costs no extra copy. Intermediates come from
 * the {@link dev.zarrdirect.core.pipeline.HostScratch} the caller hands down (the read engine lends
 * one to each task), so a steady read allocates nothing per chunk.
 *
 * <h2>Sharding</h2>
 * A shard's index is read and checked by {@link dev.zarrdirect.core.pipeline.CodecChain#readShardIndex}
 * ({@link dev.zarrdirect.core.pipeline.ShardIndex}); the read planner then lists only the inner
 * chunks a selection needs. Nested sharding decodes through the same code, an inner chain being
 * itself a chain.
 *
 * <p>This package knows no plan and no scheduler ({@code core.plan}, {@code core.exec}): it decodes
 * what it is handed.
 */
package dev.zarrdirect.core.pipeline;
