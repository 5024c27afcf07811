// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.plugin;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreOptions;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.Stores;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A store plugin found through {@code META-INF/services} alone, as store-cloud's is: Stores.open hands
 * it the location and the options, and Zarr reads and writes through the store it returns.
 */
class ThirdPartyStoreTest {

    @Test
    void storesOpenFindsAPluginByItsSchemeAndPassesItTheOptions() {
        StoreOptions options = StoreOptions.defaults().withMaxRequests(7).withRequestTimeout(Duration.ofSeconds(3));
        String written;
        try (Store store = Stores.open("zdmem://plugin-test", options)) {
            ZarrArray a = Zarr.createArray(store, "a", ArrayMetadata.create(new long[]{4, 3}, DataType.INT32,
                    new long[]{2, 3}, FillValue.zero(DataType.INT32), List.of(CodecMetadata.of("bytes",
                            Map.of("endian", "little")))));
            try (Tensor t = Tensor.allocateHost(DataType.INT32, 4, 3)) {
                for (int i = 0; i < 12; i++) {
                    t.segment().setAtIndex(ValueLayout.JAVA_INT, i, i * i);
                }
                a.write(t);
            }
            written = ArrayChecksum.sha256(a);
        }
        assertEquals(options, MemoryStoreProvider.lastOptions);
        assertEquals(written, ArrayChecksum.sha256(Zarr.openArray("zdmem://plugin-test", "a")));
        assertEquals("test plugin (zdmem://)", Stores.providers().get("zdmem").name());
    }
}
