// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.plugin;

import dev.zarrdirect.api.MissingCodecException;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.store.memory.MemoryStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.*;

class ThirdPartyCodecTest {

    static ZarrContext ctx;

    @BeforeAll
    static void start() {
        ctx = ZarrContext.open("cpu", 2);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    static String zarrJson(String codecName) {
        return """
                {"zarr_format": 3, "node_type": "array", "shape": [6], "data_type": "uint8",
                 "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
                 "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                 "fill_value": 0,
                 "codecs": [{"name": "bytes"}, {"name": "%s", "configuration": {"key": 255}}]}
                """.formatted(codecName);
    }

    static void put(Store s, String key, byte[] bytes) {
        s.set(key, MemorySegment.ofArray(bytes));
    }

    @Test
    void aCodecFromAServiceLoaderPluginIsPickedUpFromZarrJson() {
        Store store = new MemoryStore();
        put(store, "zarr.json", zarrJson(XorCodecProvider.NAME).getBytes(StandardCharsets.UTF_8));
        // Chunk 0 holds 1,2,3,4 and chunk 1 holds 5,6 (padded): each byte XOR 0xFF.
        put(store, "c/0", new byte[]{(byte) ~1, (byte) ~2, (byte) ~3, (byte) ~4});
        put(store, "c/1", new byte[]{(byte) ~5, (byte) ~6, (byte) ~0, (byte) ~0});
        ZarrArray a = Zarr.openArray(ctx, store, "");
        assertTrue(a.codecImplementations().contains("example.xor@example-plugin"), a.codecImplementations().toString());
        try (Tensor t = a.read()) {
            assertArrayEquals(new byte[]{1, 2, 3, 4, 5, 6}, t.segment().toArray(ValueLayout.JAVA_BYTE));
        }
        try (Tensor t = Tensor.allocateHost(dev.zarrdirect.api.DataType.UINT8, 6)) {
            t.segment().fill((byte) 9);
            a.write(t);
        }
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            byte[] stored = store.get("c/1", arena).orElseThrow().toArray(ValueLayout.JAVA_BYTE);
            assertArrayEquals(new byte[]{(byte) ~9, (byte) ~9, (byte) ~0, (byte) ~0}, stored);
        }
    }

    @Test
    void anUnknownCodecFailsNamingItAndTheProvidersFound() {
        Store store = new MemoryStore();
        put(store, "zarr.json", zarrJson("blosc9000").getBytes(StandardCharsets.UTF_8));
        MissingCodecException e = assertThrows(MissingCodecException.class, () -> Zarr.openArray(ctx, store, ""));
        assertTrue(e.getMessage().contains("\"blosc9000\""), e.getMessage());
        assertTrue(e.getMessage().contains("example-plugin") && e.getMessage().contains("cpu"), e.getMessage());
        assertTrue(e.getMessage().contains("zarrdirect.codec.blosc9000"), e.getMessage());
    }

    @Test
    void aPluginRejectsItsOwnBadConfigurationWithAMessageNamingTheArray() {
        Store store = new MemoryStore();
        put(store, "zarr.json", zarrJson(XorCodecProvider.NAME).replace("255", "999").getBytes(StandardCharsets.UTF_8));
        var e = assertThrows(dev.zarrdirect.api.InvalidMetadataException.class, () -> Zarr.openArray(ctx, store, ""));
        assertTrue(e.getMessage().contains("example.xor") && e.getMessage().contains("999"), e.getMessage());
    }
}
