// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.StoreOptions;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Core alone has no store provider on its test class path: what a user without store-cloud sees. */
class StoreProvidersTest {

    @Test
    void objectStoreSchemesWithoutTheirProviderNameTheArtifactToAdd() {
        for (String location : List.of("s3://bucket/era5.zarr", "gs://bucket/a.zarr", "S3://bucket/x")) {
            StoreException e = assertThrows(StoreException.class,
                    () -> Stores.open(location, StoreOptions.defaults().withAnonymous(true)), location);
            assertTrue(e.getMessage().contains(location), "names the location: " + e.getMessage());
            assertTrue(e.getMessage().contains("dev.zarrdirect:zarr-direct-store-cloud"),
                    "names the artifact: " + e.getMessage());
        }
    }

    @Test
    void otherSchemesAreRefusedListingTheSupportedForms() {
        StoreException e = assertThrows(StoreException.class, () -> Stores.open("ftp://host/a.zarr"));
        assertTrue(e.getMessage().contains("scheme \"ftp\" is not supported")
                && e.getMessage().contains("supported now: a local directory path"), e.getMessage());
    }

    @Test
    void noProviderIsFoundWithoutTheCloudArtifact() {
        assertTrue(Stores.providers().isEmpty(), Stores.providers().toString());
    }
}
