// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

import dev.zarrdirect.api.Device;

/**
 * One codec of a chain, configured from metadata and bound to a device. Implementations are
 * stateless after construction and safe to call from many threads at once.
 *
 * <p>The methods are batch-first: a GPU codec runs one launch per batch. Batches carry their own
 * output memory; codecs allocate nothing they keep.
 */
public sealed interface Codec permits ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec {

    /** The codec's name as the metadata spells it ({@code zstd}). */
    String name();

    CodecKind kind();

    /** Where this implementation reads and writes its buffers. */
    Device device();

    /** The name of the provider that made this implementation, for {@code doctor} and logs. */
    String provider();
}
