// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.codec;

import dev.zarrdirect.api.Device;

/**
 * One codec of a chain, configured from metadata and bound to a device. Implementations are
 * stateless after construction and safe to call from many threads at once.
 *
 * <p>The methods are batch-first: a GPU codec runs one launch per batch. Batches carry their own
 * output memory; codecs allocate nothing they keep.
 *
 * <h2>Kinds</h2>
 * The interface is sealed to the three kinds of the Zarr v3 specification; an implementation
 * implements exactly one of {@link ArrayToArrayCodec}, {@link ArrayToBytesCodec} and
 * {@link BytesToBytesCodec}, whose {@link #kind()} is fixed. A chain decodes in reverse order:
 * bytes-to-bytes codecs last to first, then the array-to-bytes codec, then array-to-array codecs.
 *
 * <h2>Failures</h2>
 * A chunk that cannot be coded fails its item of the batch ({@link CodecBatch#fail}) with a
 * {@link dev.zarrdirect.api.CodecException}, {@link dev.zarrdirect.api.CorruptChunkException} or
 * {@link dev.zarrdirect.api.ChecksumMismatchException} that names the codec and the item's label;
 * the other items still complete. A codec throws from a batch method only when the whole call
 * fails. Buffers of a batch must be on (or reachable from) {@link #device()}.
 */
public sealed interface Codec permits ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec {

    /**
     * The codec's name as the metadata spells it ({@code zstd}).
     *
     * @return the name, never null
     */
    String name();

    /**
     * Which of the three kinds this codec is; fixed by the sub-interface it implements.
     *
     * @return the kind, never null
     */
    CodecKind kind();

    /**
     * Where this implementation reads and writes its buffers: the device it was created for by
     * {@link CodecProvider#create}.
     *
     * @return the device, never null
     */
    Device device();

    /**
     * The name of the provider that made this implementation ({@link CodecProvider#name()}), for
     * {@code doctor} and logs.
     *
     * @return the provider's name ({@code cpu}, {@code cuda})
     */
    String provider();
}
