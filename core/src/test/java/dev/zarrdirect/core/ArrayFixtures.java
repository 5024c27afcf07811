// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.buffer.StridedCopy;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.metadata.CodecMetadata;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Codec chains and data shared by the core tests. */
final class ArrayFixtures {
    private ArrayFixtures() {
    }

    static CodecMetadata bytes(String endian) {
        return CodecMetadata.of("bytes", Map.of("endian", endian));
    }

    static CodecMetadata zstd(long level, boolean checksum) {
        return CodecMetadata.of("zstd", Map.of("level", level, "checksum", checksum));
    }

    static CodecMetadata gzip(long level) {
        return CodecMetadata.of("gzip", Map.of("level", level));
    }

    static CodecMetadata crc32c() {
        return CodecMetadata.of("crc32c", Map.of());
    }

    static CodecMetadata transpose(long... order) {
        return CodecMetadata.of("transpose", Map.of("order", java.util.Arrays.stream(order).boxed().toList()));
    }

    static CodecMetadata sharding(long[] inner, List<CodecMetadata> codecs, List<CodecMetadata> indexCodecs,
                                  String location) {
        return CodecMetadata.of("sharding_indexed", Map.of(
                "chunk_shape", java.util.Arrays.stream(inner).boxed().toList(),
                "codecs", codecs.stream().map(CodecMetadata::toJson).toList(),
                "index_codecs", indexCodecs.stream().map(CodecMetadata::toJson).toList(),
                "index_location", location));
    }

    /** A host tensor of random elements; bools are 0 or 1, floats never NaN so equality is bytewise. */
    static Tensor random(DataType dt, long[] shape, Random rnd) {
        Tensor t = Tensor.allocateHost(dt, shape);
        MemorySegment s = t.segment();
        long n = t.elementCount();
        for (long i = 0; i < n; i++) {
            long off = i * dt.byteSize();
            switch (dt.kind()) {
                case BOOL -> s.set(ValueLayout.JAVA_BYTE, off, (byte) rnd.nextInt(2));
                case FLOAT -> {
                    switch (dt.byteSize()) {
                        case 2 -> s.set(ValueLayout.JAVA_SHORT_UNALIGNED, off, Float.floatToFloat16((float) rnd.nextGaussian()));
                        case 4 -> s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, off, (float) rnd.nextGaussian() * 100);
                        default -> s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, off, rnd.nextGaussian() * 1e5);
                    }
                }
                case COMPLEX -> {
                    if (dt.byteSize() == 8) {
                        s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, off, (float) rnd.nextGaussian());
                        s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, off + 4, (float) rnd.nextGaussian());
                    } else {
                        s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, off, rnd.nextGaussian());
                        s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, off + 8, rnd.nextGaussian());
                    }
                }
                default -> {
                    for (int b = 0; b < dt.byteSize(); b++) {
                        // Small values repeat often, so compressors have something to find.
                        s.set(ValueLayout.JAVA_BYTE, off + b, (byte) (b == 0 ? rnd.nextInt(7) : rnd.nextInt(256)));
                    }
                }
            }
        }
        return t;
    }

    /** The C-order box {@code sel} of a C-order host tensor, as a new tensor. */
    static Tensor slice(Tensor full, Selection sel) {
        Tensor out = Tensor.allocateHost(full.dataType(), sel.shape());
        new dev.zarrdirect.core.pipeline.HostRegion(full.buffer().segment(), full.byteOffset(), full.shape(),
                dev.zarrdirect.api.buffer.StridedCopy.cByteStrides(full.shape(), full.dataType().byteSize()),
                full.dataType().byteSize())
                .gatherInto(out.segment(), sel.shape(), new long[sel.rank()], sel.shape(), sel.start());
        return out;
    }

    static void assertSameBytes(Tensor expected, Tensor actual, String what) {
        MemorySegment e = expected.segment();
        MemorySegment a = actual.segment();
        long m = e.mismatch(a);
        if (m != -1) {
            throw new AssertionError(what + ": tensors differ at byte " + m + " (element " + m / expected.dataType().byteSize()
                    + ") of " + e.byteSize() + "/" + a.byteSize());
        }
    }
}
