package dev.zarrdirect.conformance.store;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.core.store.fs.FileSystemStore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
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
    void otherSchemesAndZipFilesAreRefusedNamingTheSupportedForms() throws IOException {
        Path zip = Files.write(dir.resolve("era5.zarr.zip"), new byte[] {'P', 'K'});
        for (String location : List.of("http://example.com/era5.zarr", "s3://bucket/era5.zarr",
                "gs://bucket/a.zarr", zip.toString(), dir.resolve("missing.zip").toString())) {
            StoreException e = assertThrows(StoreException.class, () -> Stores.open(location), location);
            assertTrue(e.getMessage().contains(location), "names the location: " + e.getMessage());
            assertTrue(e.getMessage().contains("supported now: a local directory path")
                    && e.getMessage().contains("file: URI"), "lists what works: " + e.getMessage());
        }
    }

    @Test
    void aMalformedFileUriIsRefusedWithAHint() {
        StoreException e = assertThrows(StoreException.class, () -> Stores.open("file://host/share/a.zarr"));
        assertTrue(e.getMessage().contains("file:///absolute/path"), e.getMessage());
    }
}
