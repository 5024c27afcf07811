// SPDX-License-Identifier: Apache-2.0
/**
 * The parts of the Blosc1 container that {@link dev.zarrdirect.cpu.codec.bytestobytes.BloscCodec}
 * puts together, written from the format's description: the header
 * ({@link dev.zarrdirect.cpu.codec.bytestobytes.blosc.BloscHeader}), the byte and bit shuffles, the
 * BloscLZ compressor, zlib streams on native memory, and the per-thread workspace that holds scratch
 * and compressor contexts.
 *
 * <h2>Shared with numcodecs codecs</h2>
 * {@link dev.zarrdirect.cpu.codec.bytestobytes.blosc.ByteShuffle} also serves {@code numcodecs.shuffle}
 * and {@link dev.zarrdirect.cpu.codec.bytestobytes.blosc.ZlibStreams} {@code numcodecs.zlib}.
 *
 * <h2>Untrusted input</h2>
 * Decoders check every offset and length against their input and output and report a malformed
 * stream with an {@link java.lang.IllegalArgumentException} that says where; the codec turns it into a
 * {@link dev.zarrdirect.api.CorruptChunkException} naming the chunk.
 */
package dev.zarrdirect.cpu.codec.bytestobytes.blosc;
