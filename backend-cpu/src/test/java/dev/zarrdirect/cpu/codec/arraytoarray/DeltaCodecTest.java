// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.arraytoarray;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.codec.ChunkSpec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.Random;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;

class DeltaCodecTest {

    private final CpuBackend backend = trackingBackend();
    private final Random random = new Random(1);

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    private byte[] run(DeltaCodec codec, ChunkSpec spec, byte[] in, boolean encode) {
        try (HostBuffer i = buffer(backend, in); HostBuffer o = empty(backend, in.length)) {
            CodecBatch b = CodecBatch.of(i, o, "chunk [0]");
            if (encode) {
                codec.encode(spec, b);
            } else {
                codec.decode(spec, b);
            }
            b.throwIfFailed();
            return bytes(o);
        }
    }

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void int32DeltasAreDifferencesFromThePreviousElementWrappingAndDecodeBack() {
        DeltaCodec codec = DeltaCodec.create(Map.of("dtype", "<i4"));
        ChunkSpec spec = new ChunkSpec(DataType.INT32, new long[] {3, 5});
        byte[] data = new byte[60];
        int[] values = new int[15];
        for (int k = 0; k < 15; k++) {
            values[k] = k == 7 ? Integer.MIN_VALUE : k == 8 ? Integer.MAX_VALUE : random.nextInt();
            le(data).putInt(4 * k, values[k]);
        }
        byte[] enc = run(codec, spec, data, true);
        assertEquals(values[0], le(enc).getInt(0));
        for (int k = 1; k < 15; k++) {
            assertEquals(values[k] - values[k - 1], le(enc).getInt(4 * k), "element " + k);
        }
        assertArrayEquals(data, run(codec, spec, enc, false));
        assertEquals(spec, codec.encodedSpec(spec));
    }

    @Test
    void everyIntegerAndFloatTypeRoundTripsAndFloat32MatchesNumpyArithmetic() {
        String[][] types = {{"|i1", "int8"}, {"<i2", "int16"}, {">i8", "int64"}, {"|u1", "uint8"}, {"<u2", "uint16"},
                {"<u4", "uint32"}, {"<u8", "uint64"}, {"<f2", "float16"}, {"<f4", "float32"}, {"<f8", "float64"}};
        for (String[] t : types) {
            DataType type = DataType.parse(t[1]);
            DeltaCodec codec = DeltaCodec.create(Map.of("dtype", t[0], "astype", t[0]));
            ChunkSpec spec = new ChunkSpec(type, new long[] {1000});
            byte[] data = new byte[1000 * type.byteSize()];
            for (int k = 0; k < 1000; k++) { // smooth values, exact in every float type
                long v = 100 + k / 3;
                switch (t[1]) {
                    case "float16" -> le(data).putShort(2 * k, Float.floatToFloat16(v));
                    case "float32" -> le(data).putFloat(4 * k, v);
                    case "float64" -> le(data).putDouble(8 * k, v);
                    default -> {
                        for (int b = 0; b < type.byteSize(); b++) {
                            data[k * type.byteSize() + b] = (byte) ((v * 977) >>> (8 * b));
                        }
                    }
                }
            }
            byte[] enc = run(codec, spec, data, true);
            assertArrayEquals(data, run(codec, spec, enc, false), t[0]);
        }
        DeltaCodec f4 = DeltaCodec.create(Map.of("dtype", "<f4"));
        byte[] data = new byte[12];
        le(data).putFloat(0, 0.1f).putFloat(4, 0.3f).putFloat(8, 1e8f);
        byte[] enc = run(f4, new ChunkSpec(DataType.FLOAT32, new long[] {3}), data, true);
        assertEquals(0.3f - 0.1f, le(enc).getFloat(4));
        assertEquals(1e8f - 0.3f, le(enc).getFloat(8));
        byte[] dec = run(f4, new ChunkSpec(DataType.FLOAT32, new long[] {3}), enc, false);
        assertEquals(0.1f + (0.3f - 0.1f), le(dec).getFloat(4), "running sum in float32, as numpy's cumsum");
    }

    /** Element k's difference from element k - 1 (element 0 kept), read and written a value at a time. */
    private static byte[] referenceEncode(byte[] data, String type) {
        ByteBuffer in = le(data), out = le(new byte[data.length]);
        switch (type) {
            case "int8" -> { for (int k = 0; k < data.length; k++) out.put(k, (byte) (in.get(k) - (k == 0 ? 0 : in.get(k - 1)))); }
            case "int16" -> { for (int k = 0; k < data.length / 2; k++) out.putShort(2 * k, (short) (in.getShort(2 * k) - (k == 0 ? 0 : in.getShort(2 * k - 2)))); }
            case "int32" -> { for (int k = 0; k < data.length / 4; k++) out.putInt(4 * k, in.getInt(4 * k) - (k == 0 ? 0 : in.getInt(4 * k - 4))); }
            case "int64" -> { for (int k = 0; k < data.length / 8; k++) out.putLong(8 * k, in.getLong(8 * k) - (k == 0 ? 0 : in.getLong(8 * k - 8))); }
            case "float32" -> { for (int k = 0; k < data.length / 4; k++) out.putFloat(4 * k, k == 0 ? in.getFloat(0) : in.getFloat(4 * k) - in.getFloat(4 * k - 4)); }
            default -> { for (int k = 0; k < data.length / 8; k++) out.putDouble(8 * k, k == 0 ? in.getDouble(0) : in.getDouble(8 * k) - in.getDouble(8 * k - 8)); }
        }
        return out.array();
    }

    /** The running sum, left to right, element 0 kept. */
    private static byte[] referenceDecode(byte[] data, String type) {
        ByteBuffer in = le(data), out = le(new byte[data.length]);
        switch (type) {
            case "int8" -> { byte a = 0; for (int k = 0; k < data.length; k++) { a += in.get(k); out.put(k, a); } }
            case "int16" -> { short a = 0; for (int k = 0; k < data.length / 2; k++) { a += in.getShort(2 * k); out.putShort(2 * k, a); } }
            case "int32" -> { int a = 0; for (int k = 0; k < data.length / 4; k++) { a += in.getInt(4 * k); out.putInt(4 * k, a); } }
            case "int64" -> { long a = 0; for (int k = 0; k < data.length / 8; k++) { a += in.getLong(8 * k); out.putLong(8 * k, a); } }
            case "float32" -> { float a = 0; for (int k = 0; k < data.length / 4; k++) { a = k == 0 ? in.getFloat(0) : a + in.getFloat(4 * k); out.putFloat(4 * k, a); } }
            default -> { double a = 0; for (int k = 0; k < data.length / 8; k++) { a = k == 0 ? in.getDouble(0) : a + in.getDouble(8 * k); out.putDouble(8 * k, a); } }
        }
        return out.array();
    }

    @Test
    void everyLoopMatchesAValueAtATimeReferenceInPlaceToo() {
        String[][] types = {{"|i1", "int8"}, {"<i2", "int16"}, {"<i4", "int32"}, {"<i8", "int64"}, {"<f4", "float32"},
                {"<f8", "float64"}};
        for (String[] t : types) {
            DataType type = DataType.parse(t[1]);
            DeltaCodec codec = DeltaCodec.create(Map.of("dtype", t[0]));
            for (int n : new int[] {1, 2, 1000, 20_005}) {
                ChunkSpec spec = new ChunkSpec(type, new long[] {n});
                byte[] data = new byte[n * type.byteSize()];
                random.nextBytes(data);
                if (type.byteSize() >= 4 && t[1].startsWith("float")) {
                    // finite values with -0.0 first (kept, not made 0.0) and a NaN
                    for (int k = 0; k < n; k++) {
                        double v = k == 0 ? -0.0 : k == 777 ? Double.NaN : random.nextGaussian() * 100;
                        if (type.byteSize() == 4) {
                            le(data).putFloat(4 * k, (float) v);
                        } else {
                            le(data).putDouble(8 * k, v);
                        }
                    }
                }
                String what = t[1] + ", " + n + " elements";
                byte[] enc = run(codec, spec, data, true);
                assertArrayEquals(referenceEncode(data, t[1]), enc, "encode " + what);
                assertArrayEquals(referenceDecode(enc, t[1]), run(codec, spec, enc, false), "decode " + what);
                // in place: the output at the input's start
                try (HostBuffer b = buffer(backend, enc)) {
                    CodecBatch batch = CodecBatch.of(b, b, "chunk [0]");
                    codec.decode(spec, batch);
                    batch.throwIfFailed();
                    assertArrayEquals(referenceDecode(enc, t[1]), bytes(b), "in place, " + what);
                }
            }
        }
    }

    @Test
    void float16EncodingCopiesElementZeroBitForBitAsNumpyDoesOnceCompiledToo() {
        // A signaling NaN first: converting it to float and back quiets it where the JIT uses the F16C
        // instructions, so the codec must copy it; repeated calls get the encode loop compiled.
        DeltaCodec f2 = DeltaCodec.create(Map.of("dtype", "<f2"));
        int n = 10_000;
        ChunkSpec spec = new ChunkSpec(DataType.FLOAT16, new long[] {n});
        byte[] data = new byte[2 * n];
        le(data).putShort(0, (short) 0x7C01);
        for (int k = 1; k < n; k++) {
            le(data).putShort(2 * k, Float.floatToFloat16(k / 7f));
        }
        for (int round = 0; round < 300; round++) {
            assertEquals((short) 0x7C01, le(run(f2, spec, data, true)).getShort(0), "round " + round);
        }
    }

    @Test
    void astypeOfTheOtherSignednessAndSameSizeRoundTripsAndOtherCastsAreRejected() {
        DeltaCodec codec = DeltaCodec.create(Map.of("dtype", "<u2", "astype", "<i2"));
        ChunkSpec spec = new ChunkSpec(DataType.UINT16, new long[] {2, 50});
        assertEquals(new ChunkSpec(DataType.INT16, new long[] {2, 50}), codec.encodedSpec(spec));
        byte[] data = random(random, 200);
        assertArrayEquals(data, run(codec, spec, run(codec, spec, data, true), false));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DeltaCodec.create(Map.of("dtype", "<f8", "astype", "<f4")));
        assertTrue(e.getMessage().contains("astype") && e.getMessage().contains("float64")
                && e.getMessage().contains("float32"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DeltaCodec.create(Map.of("dtype", "<i4", "astype", "<i2")));
        assertThrows(IllegalArgumentException.class, () -> DeltaCodec.create(Map.of("dtype", "<c8")));
        assertThrows(IllegalArgumentException.class, () -> DeltaCodec.create(Map.of()));
        IllegalArgumentException wrongArray = assertThrows(IllegalArgumentException.class,
                () -> DeltaCodec.create(Map.of("dtype", "<i4")).encodedSpec(new ChunkSpec(DataType.FLOAT32, new long[] {4})));
        assertTrue(wrongArray.getMessage().contains("<i4") && wrongArray.getMessage().contains("float32"),
                wrongArray.getMessage());
    }

    @Test
    void inputOfTheWrongSizeFailsItsItemWithTheLabel() {
        DeltaCodec codec = DeltaCodec.create(Map.of("dtype", "<i4"));
        try (HostBuffer i = buffer(backend, new byte[12]); HostBuffer o = empty(backend, 16)) {
            CodecBatch b = CodecBatch.of(i, o, "chunk [5]");
            codec.decode(new ChunkSpec(DataType.INT32, new long[] {4}), b);
            CorruptChunkException e = assertInstanceOf(CorruptChunkException.class, b.failure(0));
            assertTrue(e.getMessage().contains("chunk [5]") && e.getMessage().contains("12")
                    && e.getMessage().contains("16"), e.getMessage());
        }
    }
}
