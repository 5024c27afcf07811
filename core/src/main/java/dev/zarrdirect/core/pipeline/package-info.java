/**
 * The codec pipeline: resolved codec chains, {@code sharding_indexed}, and the placement of chunks
 * into tensors.
 *
 * <h2>Decoding</h2>
 * A {@link dev.zarrdirect.core.pipeline.CodecChain} runs its codecs backwards; the last stage
 * writes into the destination tensor when the chunk's box there is one contiguous run, so a
 * whole-chunk read costs no extra copy. Intermediates come from per-thread scratch slots, so a
 * steady read allocates nothing per chunk.
 *
 * <h2>Sharding</h2>
 * Shards are read by index first, then only the inner chunks a selection touches, with nearby
 * byte ranges coalesced; whole shards are read in one request. Nested sharding works through the
 * same code, an inner chain being itself a chain.
 */
package dev.zarrdirect.core.pipeline;
