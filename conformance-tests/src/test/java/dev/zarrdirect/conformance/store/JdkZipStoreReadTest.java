// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.store;

import dev.zarrdirect.testing.ReadOnlyStoreContract;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.store.zip.ZipStore;

import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Archives written by {@link java.util.zip.ZipOutputStream}, read by {@link ZipStore}: the read
 * contract with DEFLATED entries (ranges inflate and skip), and STORED ones alike.
 */
class JdkZipStoreReadTest extends ReadOnlyStoreContract {

    @Override
    protected Store openReadOnly(Path dir, Map<String, byte[]> contents) throws Exception {
        return ZipStore.open(ZipStoreReadTest.writeWithJdk(dir.resolve("deflated.zip"), contents, false));
    }

    @Test
    void storedAndDeflatedArchivesOfTheSameValuesReadIdentically() throws Exception {
        Random random = new Random(seed());
        Map<String, byte[]> values = new LinkedHashMap<>();
        values.put("zarr.json", "{\"zarr_format\":3}".getBytes());
        values.put("a/c/0", compressibleBytes(random, 300_000));
        values.put("a/c/1", randomBytes(random, 20_000));
        values.put("a/c/2", new byte[0]);
        try (ZipStore deflated = ZipStore.open(ZipStoreReadTest.writeWithJdk(dir.resolve("d.zip"), values, false));
             ZipStore stored = ZipStore.open(ZipStoreReadTest.writeWithJdk(dir.resolve("s.zip"), values, true))) {
            for (Map.Entry<String, byte[]> e : values.entrySet()) {
                assertArrayEquals(e.getValue(), deflated.get(e.getKey(), arena).orElseThrow()
                        .toArray(ValueLayout.JAVA_BYTE), "deflated " + e.getKey());
                assertArrayEquals(e.getValue(), stored.get(e.getKey(), arena).orElseThrow()
                        .toArray(ValueLayout.JAVA_BYTE), "stored " + e.getKey());
            }
        }
    }
}
