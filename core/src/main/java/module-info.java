// SPDX-License-Identifier: Apache-2.0
/**
 * Reading and writing Zarr v2 and v3 arrays and groups: {@link dev.zarrdirect.core.Zarr} opens them,
 * {@link dev.zarrdirect.core.ZarrArray} reads selections into tensors on any backend found at run
 * time, {@link dev.zarrdirect.core.convert.Converter} rechunks and recompresses; the stores for
 * directories, zip files, HTTP and memory live here too.
 *
 * <p>Backends and codecs are found with {@link java.util.ServiceLoader}: put
 * {@code dev.zarrdirect.cpu} (and {@code dev.zarrdirect.cuda}, {@code dev.zarrdirect.opencl}) on the
 * module path and they are bound without a {@code requires}. Stores for {@code s3://} and {@code gs://}
 * come the same way from a {@link dev.zarrdirect.api.store.StoreProvider} ({@code dev.zarrdirect.store.cloud}). The read engine (codec chains,
 * pipelines, executors) is internal.
 */
module dev.zarrdirect.core {
    requires transitive dev.zarrdirect.api;
    requires com.fasterxml.jackson.core;
    requires java.net.http;

    exports dev.zarrdirect.core;
    exports dev.zarrdirect.core.convert;
    exports dev.zarrdirect.core.grid;
    exports dev.zarrdirect.core.metadata;
    exports dev.zarrdirect.core.metadata.v2;
    exports dev.zarrdirect.core.plan;
    exports dev.zarrdirect.core.registry;
    exports dev.zarrdirect.core.store;
    exports dev.zarrdirect.core.store.fs;
    exports dev.zarrdirect.core.store.http;
    exports dev.zarrdirect.core.store.memory;
    exports dev.zarrdirect.core.store.zip;

    // The engine (codec chains, pipelines, executors) and the JSON helpers stay internal; the
    // command line reaches two of them for its benchmark and its JSON output.
    exports dev.zarrdirect.core.json to dev.zarrdirect.cli;
    exports dev.zarrdirect.core.pipeline to dev.zarrdirect.cli;

    uses dev.zarrdirect.api.backend.BackendProvider;
    uses dev.zarrdirect.api.codec.CodecProvider;
    uses dev.zarrdirect.api.store.StoreProvider;
}
