// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testkit;

import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The generator writes what {@code zarr-direct demo} and {@code bench --generate} wrote before it
 * moved here (the hashes below were computed with {@code cli/.../Era5Synth.java} and the CLI at
 * commit 732b923), so benchmark figures from before and after the move compare.
 */
class SyntheticEra5Test {

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @ParameterizedTest(name = "{0} x {1} grid, steps [{2}, {2}+{3}) of {4} channels hash as before the move")
    @CsvSource({
            "5,   7,   0, 3, 9,  770ec40202ccbb79be6dc1d4f0fc2c75cca5a76674088867bc401f8bafb7d14e",
            "181, 360, 0, 3, 8,  ade96aa981841d36b2cd45f46e313001428a4064da9a7c8eca6c641138fcee95",
            "4,   6,   5, 2, 17, de0032df255156d6f4339eed3e8c1271166061ed1ca661f0e809e927e9c88569"})
    void fillWritesTheBytesThatTheCliGeneratorWrote(int lat, int lon, long t0, int steps, int channels, String sha256) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate((long) steps * channels * lat * lon * 4);
            new SyntheticEra5(lat, lon).fill(s, t0, steps, channels);
            assertEquals(sha256, sha256(s.toArray(ValueLayout.JAVA_BYTE)));
        }
    }

    @Test
    void valueEqualsTheElementThatFillWritesAndThatTheCliGeneratorComputed() {
        SyntheticEra5 g = new SyntheticEra5(181, 360);
        assertEquals(1204334592, Float.floatToRawIntBits(g.value(2, 3, 90, 180)));
        assertEquals(1203879936, Float.floatToRawIntBits(g.value(0, 7, 180, 359)));
        SyntheticEra5 small = new SyntheticEra5(4, 6, 99);
        int channels = 17;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(2L * channels * 4 * 6 * 4);
            small.fill(s, 3, 2, channels);
            int[][] at = {{3, 0, 0, 0}, {3, 9, 2, 5}, {4, 16, 3, 5}, {4, 8, 0, 1}};
            for (int[] i : at) {
                long idx = (((long) (i[0] - 3) * channels + i[1]) * 4 + i[2]) * 6 + i[3];
                assertEquals(s.getAtIndex(F32, idx), small.value(i[0], i[1], i[2], i[3]), java.util.Arrays.toString(i));
            }
        }
    }

    @Test
    void fillFlatIsAPrefixOfFillWithAZeroTail() {
        SyntheticEra5 g = new SyntheticEra5(5, 7, 11);
        byte[] whole = new byte[4 * 9 * 5 * 7 * 4];
        g.fill(MemorySegment.ofArray(whole), 1, 4, 9);
        byte[] part = g.bytes(1000 * 4 + 3, 1, 9);
        assertArrayEquals(java.util.Arrays.copyOf(whole, 4000), java.util.Arrays.copyOf(part, 4000));
        assertArrayEquals(new byte[3], java.util.Arrays.copyOfRange(part, 4000, 4003));
    }

    @Test
    void anotherSeedGivesOtherNoiseOnTheSameFields() {
        byte[] a = new SyntheticEra5(16, 32, 1).bytes(16 * 32 * 4, 0, 1);
        byte[] b = new SyntheticEra5(16, 32, 2).bytes(16 * 32 * 4, 0, 1);
        assertFalse(java.util.Arrays.equals(a, b));
        float fa = MemorySegment.ofArray(a).getAtIndex(F32, 100);
        float fb = MemorySegment.ofArray(b).getAtIndex(F32, 100);
        assertEquals(fa, fb, 1.0f, "t2m differs by the noise only");
    }

    @Test
    void fillRejectsASegmentTooSmallForTheSteps() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SyntheticEra5(5, 7).fill(MemorySegment.ofArray(new byte[100]), 0, 1, 1));
        assertEquals("1 steps of 1 channels on 5 x 7 need 140 bytes; the segment holds 100", e.getMessage());
    }

    @ParameterizedTest(name = "{0} with {1} stores the chunk bytes that bench --generate stored before the move")
    @CsvSource({
            "era5,         none, 770ec40202ccbb79be6dc1d4f0fc2c75cca5a76674088867bc401f8bafb7d14e",
            "era5-sharded, none, 53900bfbae6b91d64521e3f8398814d33c90cb56c47736e2b403c324a3abf153",
            "era5,         zstd, 9a7c7bff1bba94f2fc39176802b2f87e19d0f06047c8795799fad33b99d29f95",
            "era5-sharded, zstd, c6b32148224efb0e5f2fc08514e76b32cfa6339e15a5ee19446262be8b5c0d82"})
    void writeAllInALayoutStoresTheChunksThatBenchGenerateStored(String layout, String compressor, String sha256) {
        long[] shape = {3, 9, 5, 7};
        List<CodecMetadata> leaf = new ArrayList<>(List.of(CodecMetadata.of("bytes", Map.of("endian", "little"))));
        if (compressor.equals("zstd")) {
            leaf.add(CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false)));
        }
        try (ZarrContext ctx = ZarrContext.open("cpu", 2); MemoryStore store = new MemoryStore()) {
            ZarrArray a = Zarr.createArray(ctx, store, "", Era5Layout.ofCliName(layout).metadata(shape, leaf));
            ConcurrentLinkedQueue<Long> done = new ConcurrentLinkedQueue<>();
            new SyntheticEra5(5, 7).writeAll(a, done::add);
            assertEquals(3, done.size());
            List<String> keys = store.list("").stream().filter(k -> k.startsWith("c/")).sorted().toList();
            assertEquals(List.of("c/0/0/0/0", "c/1/0/0/0", "c/2/0/0/0"), keys);
            MessageDigest md = sha256();
            try (Arena arena = Arena.ofConfined()) {
                for (String k : keys) {
                    md.update(store.get(k, arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE));
                }
            }
            assertEquals(sha256, HexFormat.of().formatHex(md.digest()));
        }
    }

    @Test
    void ofCliNameListsTheLayoutsThereAre() {
        assertSame(Era5Layout.SHARDED, Era5Layout.ofCliName("era5-sharded"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Era5Layout.ofCliName("era6"));
        assertEquals("no ERA5 layout \"era6\"; expected one of [era5, era5-sharded]", e.getMessage());
    }

    private static String sha256(byte[] b) {
        return HexFormat.of().formatHex(sha256().digest(b));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
