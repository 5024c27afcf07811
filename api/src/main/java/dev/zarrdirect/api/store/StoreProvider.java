// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.store;

import java.net.URI;
import java.util.List;
import java.util.Set;

/**
 * A plugin that opens stores for URI schemes that {@code core} does not know itself, such as
 * {@code s3} and {@code gs}: {@code Stores.open} finds providers at run time with
 * {@link java.util.ServiceLoader}, so that {@code core} needs none of their dependencies (cloud
 * SDKs). A provider is listed in {@code META-INF/services/dev.zarrdirect.api.store.StoreProvider}
 * and, in a named module, declared with {@code provides dev.zarrdirect.api.store.StoreProvider with
 * ...}; it has a public no-argument constructor.
 *
 * {@snippet :
 * public final class MyStoreProvider implements StoreProvider {
 *     public String name() { return "my-store (mys://)"; }
 *     public Set<String> schemes() { return Set.of("mys"); }
 *     public Store open(URI location, StoreOptions options) { return new MyStore(location, options); }
 * }
 * }
 *
 * <p>Providers are stateless and thread-safe; every store they open is owned, and closed, by the
 * caller. Two providers serving one scheme are an error that {@code Stores.open} reports naming both.
 */
public interface StoreProvider {

    /**
     * A short name for messages and {@code zarr-direct doctor}: the artifact and what it serves,
     * such as {@code zarr-direct-store-cloud (s3://, gs://)}.
     *
     * @return the name
     */
    String name();

    /**
     * The URI schemes this provider opens, in lower case ({@code s3}, {@code gs}).
     *
     * @return the schemes; not empty
     */
    Set<String> schemes();

    /**
     * Opens the store at {@code location}. Opening may send a request to check that the location
     * can be reached; it need not, and a missing bucket may only show at the first read.
     *
     * @param location a URI whose scheme is one of {@link #schemes()} ({@code s3://bucket/prefix})
     * @param options  how to reach it; options the provider does not use are ignored
     * @return the store; the caller closes it
     * @throws dev.zarrdirect.api.StoreException when the location is malformed or cannot be opened,
     *                                           naming the location and what to change
     */
    Store open(URI location, StoreOptions options);

    /**
     * What {@link #open} would use for {@code options}, one line each, for {@code zarr-direct doctor}:
     * where credentials come from, the endpoint and region in force, and the source of each (an
     * environment variable, a profile, the default). Lines never show a secret. By default none.
     *
     * @param options the options a command would pass
     * @return lines such as {@code s3 credentials: environment (AWS_ACCESS_KEY_ID)}
     */
    default List<String> describeConfiguration(StoreOptions options) {
        return List.of();
    }
}
