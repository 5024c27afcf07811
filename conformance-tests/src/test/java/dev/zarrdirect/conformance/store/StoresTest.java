// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.store;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.core.store.zip.ZipStore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoresTest {

    @TempDir
    Path dir;

    @Test
    void aLocalPathOpensAFileSystemStore() throws IOException {
        Files.write(dir.resolve("zarr.json"), new byte[] {1});
        try (Store store = Stores.open(dir.toString())) {
            assertInstanceOf(FileSystemStore.class, store);
            assertEquals(List.of("zarr.json"), store.list(""));
        }
    }

    @Test
    void aFileUriOpensAFileSystemStore() {
        try (Store store = Stores.open(dir.toUri().toString())) {
            assertEquals("FileSystemStore(root=" + dir.toAbsolutePath() + ")", store.toString());
        }
    }

    @Test
    void aMissingDirectoryFailsNamingIt() {
        StoreException e = assertThrows(StoreException.class, () -> Stores.open(dir.resolve("nope").toString()));
        assertTrue(e.getMessage().contains("nope") && e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void unknownSchemesAreRefusedNamingTheSupportedForms() {
        for (String location : List.of("ftp://host/a.zarr", "az://container/a.zarr")) {
            StoreException e = assertThrows(StoreException.class, () -> Stores.open(location), location);
            assertTrue(e.getMessage().contains(location), "names the location: " + e.getMessage());
            assertTrue(e.getMessage().contains("supported now: a local directory path")
                    && e.getMessage().contains("zip file") && e.getMessage().contains("http(s) URL")
                    && e.getMessage().contains("s3://bucket/prefix"),
                    "lists what works: " + e.getMessage());
        }
    }

    @Test
    void objectStoreSchemesAreServedByTheCloudProviderOnTheClassPath() {
        assertEquals("zarr-direct-store-cloud (s3://, gs://)", Stores.providers().get("s3").name());
        assertEquals(Stores.providers().get("s3").getClass(), Stores.providers().get("gs").getClass());
    }

    @Test
    void zipFilesOpenAsReadOnlyZipStoresByPathOrFileUri() throws IOException {
        Path zip = dir.resolve("era5.zarr.zip");
        try (ZipStore writer = ZipStore.create(zip)) {
            writer.set("zarr.json", MemorySegment.ofArray(new byte[] {1, 2}));
        }
        for (String location : List.of(zip.toString(), zip.toUri().toString())) {
            try (Store store = Stores.open(location)) {
                assertInstanceOf(ZipStore.class, store, location);
                assertTrue(store.isReadOnly());
                assertEquals(2, store.size("zarr.json"));
            }
        }
        Path unsuffixed = Files.copy(zip, dir.resolve("archive.bin"));
        try (Store store = Stores.open(unsuffixed.toString())) {
            assertInstanceOf(ZipStore.class, store, "a regular file is read as a zip archive");
        }
    }

    @Test
    void aMissingOrBrokenZipFileFailsNamingIt() throws IOException {
        StoreException missing = assertThrows(StoreException.class,
                () -> Stores.open(dir.resolve("missing.zip").toString()));
        assertTrue(missing.getMessage().contains("missing.zip") && missing.getMessage().contains("does not exist"),
                missing.getMessage());
        Path broken = Files.write(dir.resolve("broken.zip"), new byte[] {'P', 'K'});
        StoreException e = assertThrows(StoreException.class, () -> Stores.open(broken.toString()));
        assertTrue(e.getMessage().contains("not a zip archive"), e.getMessage());
    }

    @Test
    void malformedHttpUrlsAreRefusedWithAReason() {
        StoreException e = assertThrows(StoreException.class, () -> Stores.open("http://host/a b.zarr"));
        assertTrue(e.getMessage().contains("percent-encoded"), e.getMessage());
        StoreException user = assertThrows(StoreException.class, () -> Stores.open("https://u:p@host/a.zarr"));
        assertTrue(user.getMessage().contains("Authorization"), user.getMessage());
    }

    @Test
    void aMalformedFileUriIsRefusedWithAHint() {
        StoreException e = assertThrows(StoreException.class, () -> Stores.open("file://host/share/a.zarr"));
        assertTrue(e.getMessage().contains("file:///absolute/path"), e.getMessage());
    }
}
