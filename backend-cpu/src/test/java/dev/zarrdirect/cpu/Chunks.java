// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Test helpers: byte arrays into pooled host buffers and back, and batches built from them. */
public final class Chunks {

    private Chunks() {
    }

    /** A tracking backend, for tests that end with {@link CpuBackend#assertNoLiveBuffers()}. */
    public static CpuBackend trackingBackend() {
        CpuBackend b = new CpuBackend();
        b.trackBuffers(true);
        return b;
    }

    public static HostBuffer buffer(CpuBackend backend, byte[] bytes) {
        HostBuffer b = backend.allocateUninitialized(dev.zarrdirect.api.Device.CPU, MemoryKind.HOST, bytes.length);
        MemorySegment.copy(bytes, 0, b.segment(), ValueLayout.JAVA_BYTE, 0, bytes.length);
        return b;
    }

    public static HostBuffer empty(CpuBackend backend, long bytes) {
        return backend.allocate(dev.zarrdirect.api.Device.CPU, MemoryKind.HOST, bytes);
    }

    public static byte[] bytes(Buffer b) {
        return b.segment().toArray(ValueLayout.JAVA_BYTE);
    }

    public static byte[] bytes(Buffer b, long length) {
        return b.segment().asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
    }

    public static byte[] random(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    /** Smooth, compressible data: a slow ramp with a little noise. */
    public static byte[] compressible(Random r, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ((i / 64) + (r.nextInt(8) == 0 ? r.nextInt(4) : 0));
        }
        return b;
    }

    /** Encodes {@code data} as one chunk labelled "chunk [0]"; throws the item's failure. */
    public static byte[] encode(CpuBackend backend, BytesToBytesCodec codec, byte[] data) {
        try (HostBuffer in = buffer(backend, data);
             HostBuffer out = empty(backend, codec.maxEncodedSize(data.length))) {
            CodecBatch b = CodecBatch.of(in, out, "chunk [0]");
            codec.encode(b);
            b.throwIfFailed();
            return bytes(out, b.written(0));
        }
    }

    /** Decodes {@code encoded} into {@code decodedSize} bytes as one chunk labelled {@code label}. */
    public static byte[] decode(CpuBackend backend, BytesToBytesCodec codec, byte[] encoded, long decodedSize,
                                String label) {
        try (HostBuffer in = buffer(backend, encoded); HostBuffer out = empty(backend, decodedSize)) {
            CodecBatch b = CodecBatch.of(in, out, label);
            codec.decode(b);
            b.throwIfFailed();
            if (b.written(0) != decodedSize) {
                throw new AssertionError("decode of " + label + " reported " + b.written(0) + " bytes, expected "
                        + decodedSize);
            }
            return bytes(out);
        }
    }

    /** A batch over the given buffers, pairwise, labelled "chunk [i]". */
    public static CodecBatch batch(List<? extends Buffer> inputs, List<? extends Buffer> outputs) {
        List<CodecBatch.Item> items = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            items.add(new CodecBatch.Item(inputs.get(i), outputs.get(i), "chunk [" + i + "]"));
        }
        return new CodecBatch(items);
    }
}
