// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.NoSuchKeyException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * The options of commands that read one node: the location of the node (a directory holding a
 * {@code zarr.json}, a {@code file:} URI, an http(s), {@code s3://} or {@code gs://} URL), how to
 * reach it when it is remote, and the backend to read it with.
 */
final class StoreOptions {

    @Parameters(index = "0", paramLabel = "PATH",
            description = "Directory of a Zarr array or group (the one holding its zarr.json or .zarray), a .zip of one, "
                    + "a file: URI, an http(s):// URL, or an object store: s3://bucket/path, gs://bucket/path.")
    String location;

    @Mixin
    RemoteOptions remote;

    @Option(names = {"-b", "--backend"}, paramLabel = "NAME", defaultValue = "auto",
            description = "Backend to read with: auto (the best found), cpu, cuda, ... Default: ${DEFAULT-VALUE}.")
    String backend;

    /** Opens the store at the location; the caller closes it. */
    Store openStore() {
        if (!location.contains(":/")) {
            Path p;
            try {
                p = Path.of(location);
            } catch (InvalidPathException e) {
                throw new ZarrDirectCli.CliFailure("\"" + location + "\" is not a valid path: " + e.getMessage());
            }
            if (!Files.exists(p)) {
                throw new ZarrDirectCli.CliFailure(p.toAbsolutePath().normalize() + " does not exist");
            }
            if (!Files.isDirectory(p) && !p.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".zip")) {
                throw new ZarrDirectCli.CliFailure(p.toAbsolutePath().normalize()
                        + " is neither a directory nor a .zip file; give the directory that holds the node's zarr.json,"
                        + " a .zip of it, or an http(s):// URL");
            }
        }
        return Stores.open(location, remote.storeOptions());
    }

    /** Starts the chosen backend; the caller closes the context. */
    ZarrContext openContext() {
        return ZarrDirectCli.openContext(backend);
    }

    /** The array or group at the store's root, with a message naming the location when there is none. */
    Object openNode(ZarrContext ctx, Store store) {
        try {
            return Zarr.open(ctx, store, "");
        } catch (NoSuchKeyException e) {
            if ("zarr.json".equals(e.key())) {
                throw new ZarrDirectCli.CliFailure("no Zarr v3 array or group at " + describe(store)
                        + ": it holds no zarr.json (" + e.getMessage() + ")");
            }
            throw e;
        }
    }

    /** The store's directory for a local store, else its description. */
    static String describe(Store store) {
        return store instanceof FileSystemStore fs ? fs.root().toString() : store.toString();
    }
}
