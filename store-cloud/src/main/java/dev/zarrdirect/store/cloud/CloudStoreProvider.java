// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreOptions;
import dev.zarrdirect.api.store.StoreProvider;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Opens {@code s3://bucket/prefix} and {@code gs://bucket/prefix} locations as {@link S3Store}s,
 * configured by {@link S3Config}. Listed in {@code META-INF/services} and in the module descriptor;
 * stateless and thread-safe.
 */
public final class CloudStoreProvider implements StoreProvider {

    /** For {@link java.util.ServiceLoader}. */
    public CloudStoreProvider() {
    }

    @Override
    public String name() {
        return "zarr-direct-store-cloud (s3://, gs://)";
    }

    @Override
    public Set<String> schemes() {
        return Set.of("s3", "gs");
    }

    /** Opens the store; nothing is sent until the first request. */
    @Override
    public Store open(URI location, StoreOptions options) {
        return S3Store.open(S3Config.resolve(CloudLocation.parse(location), options));
    }

    @Override
    public List<String> describeConfiguration(StoreOptions options) {
        List<String> lines = new ArrayList<>();
        lines.addAll(S3Config.resolve(CloudLocation.parse(URI.create("s3://bucket")), options).describe());
        lines.addAll(S3Config.resolve(CloudLocation.parse(URI.create("gs://bucket")), options).describe());
        return lines;
    }
}
