// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.codec.spec.ShuffleSpec;
import dev.zarrdirect.cpu.codec.CodecItems;
import dev.zarrdirect.cpu.codec.bytestobytes.blosc.ByteShuffle;

import java.util.Map;

/**
 * numcodecs' {@code shuffle} codec on the CPU ({@code "numcodecs.shuffle"}): the byte shuffle of
 * {@link ByteShuffle} over the whole chunk with {@code elementsize}-byte elements; bytes after the
 * last whole element stay in place. The size does not change. Input and output must not overlap.
 */
public final class ShuffleCodec implements BytesToBytesCodec {

    public static final String NAME = "numcodecs.shuffle";

    private final int elementsize;

    private ShuffleCodec(int elementsize) {
        this.elementsize = elementsize;
    }

    /** Reads {@code {"elementsize": int >= 1}} (numcodecs' default 4); an {@code "id"}, if present, must be "shuffle". */
    public static ShuffleCodec create(Map<String, Object> configuration) {
        return new ShuffleCodec(ShuffleSpec.parse(configuration).elementsize());
    }

    public int elementsize() {
        return elementsize;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Device device() {
        return Device.CPU;
    }

    @Override
    public String provider() {
        return "cpu";
    }

    @Override
    public long encodedSize(long decodedSize) {
        return decodedSize;
    }

    @Override
    public long maxEncodedSize(long decodedSize) {
        return decodedSize;
    }

    @Override
    public long decodedSize(long encodedSize) {
        return encodedSize;
    }

    @Override
    public void encode(CodecBatch batch) {
        run(batch, "encode", true);
    }

    @Override
    public void decode(CodecBatch batch) {
        run(batch, "decode", false);
    }

    private void run(CodecBatch batch, String direction, boolean encode) {
        CodecItems.forEach(NAME, direction, batch, (i, in, out) -> {
            long n = in.byteSize();
            if (!encode && out.byteSize() != n) {
                throw new CorruptChunkException(NAME, NAME + " data of " + batch.label(i) + " holds " + n
                        + " bytes, expected " + out.byteSize());
            }
            if (out.byteSize() < n) {
                throw new IllegalArgumentException("output of " + out.byteSize() + " bytes cannot hold the " + n
                        + " shuffled bytes of " + batch.label(i));
            }
            if (CodecItems.overlap(in, out)) {
                throw new IllegalArgumentException(NAME + " " + direction + " of " + batch.label(i)
                        + " needs distinct input and output, but they overlap");
            }
            if (encode) {
                ByteShuffle.shuffle(in, 0, out, 0, n, elementsize);
            } else {
                ByteShuffle.unshuffle(in, 0, out, 0, n, elementsize);
            }
            batch.complete(i, n);
        });
    }
}
