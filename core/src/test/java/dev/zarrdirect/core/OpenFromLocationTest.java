// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.InvalidMetadataException;
import dev.zarrdirect.api.NoSuchNodeException;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpenFromLocationTest {

    private static ArrayMetadata float32(long... shape) {
        return ArrayMetadata.create(shape, DataType.FLOAT32, shape, FillValue.zero(DataType.FLOAT32),
                List.of(ArrayFixtures.bytes("little")));
    }

    private static void writeCounting(ZarrArray a) {
        try (Tensor t = Tensor.allocateHost(DataType.FLOAT32, a.shape())) {
            for (long i = 0; i < t.elementCount(); i++) {
                t.segment().setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, i, i);
            }
            a.write(t);
        }
    }

    /** A group at the root with the array "t" [2, 3] holding 0..5, in a directory store. */
    private static void hierarchy(Path dir) {
        try (Store store = FileSystemStore.create(dir)) {
            Zarr.createGroup(store, "", Map.of("title", "demo"));
            writeCounting(Zarr.createArray(store, "t", float32(2, 3)));
        }
    }

    @Test
    void anArrayOpenedFromALocationReadsAndClosesTheStoreItOpened(@TempDir Path dir) {
        hierarchy(dir);
        ZarrArray a = Zarr.openArray(dir.toString(), "t");
        try (a; Tensor t = a.read()) {
            assertTrue(a.ownsStore());
            assertArrayEquals(new float[]{0, 1, 2, 3, 4, 5}, t.toFloatArray());
        }
        assertFalse(a.ownsStore());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> a.store().exists("zarr.json"));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        a.close(); // twice: harmless
        // the default context is shared, and an array never closes it
        assertTrue(ZarrContext.defaultContext().engine() != null);
    }

    @Test
    void aStoreWhoseRootIsAnArrayOpensWithTheOneArgumentForm(@TempDir Path dir) {
        try (Store store = FileSystemStore.create(dir)) {
            writeCounting(Zarr.createArray(store, "", float32(3)));
        }
        try (ZarrArray a = Zarr.openArray(dir.toUri().toString()); Tensor t = a.read()) {
            assertEquals("", a.path());
            assertArrayEquals(new float[]{0, 1, 2}, t.toFloatArray());
        }
    }

    @Test
    void aGroupOpenedFromALocationOwnsItsStoreAndItsMembersOwnNothing(@TempDir Path dir) {
        hierarchy(dir);
        ZarrGroup g = Zarr.openGroup(dir.toString());
        try (g) {
            assertTrue(g.ownsStore());
            assertEquals("demo", g.attributes().get("title"));
            assertEquals(List.of("t"), g.members());
            ZarrArray t = g.openArray("t");
            assertFalse(t.ownsStore());
            t.close(); // does nothing: the group's store stays open
            assertEquals(List.of("t"), g.members());
        }
        assertThrows(IllegalStateException.class, () -> g.store().exists("zarr.json"));
        g.close();
    }

    @Test
    void anArrayOnTheCallersStoreDoesNotCloseIt(@TempDir Path dir) {
        hierarchy(dir);
        try (Store store = FileSystemStore.open(dir)) {
            try (ZarrArray a = Zarr.openArray(store, "t")) {
                assertFalse(a.ownsStore());
            }
            assertTrue(store.exists("t/zarr.json"), "the caller's store is still open");
        }
    }

    @Test
    void openingTheWrongKindOrAMissingNodeFromALocationFailsWithTheSpecificException(@TempDir Path dir) {
        hierarchy(dir);
        InvalidMetadataException e = assertThrows(InvalidMetadataException.class, () -> Zarr.openArray(dir.toString()));
        assertTrue(e.getMessage().contains("describes a group, not an array"), e.getMessage());
        assertThrows(InvalidMetadataException.class, () -> Zarr.openGroup(dir.toString(), "t"));
        NoSuchNodeException n = assertThrows(NoSuchNodeException.class, () -> Zarr.openArray(dir.toString(), "nope"));
        assertEquals("nope", n.path());
    }

    @Test
    @SuppressWarnings("deprecation")
    void theDeprecatedUntypedOpenStillWorks(@TempDir Path dir) {
        hierarchy(dir);
        assertTrue(Zarr.open(dir.toString()) instanceof ZarrGroup);
    }
}
