// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import dev.zarrdirect.core.store.http.HttpStore;
import dev.zarrdirect.core.store.zip.ZipStore;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens a store from the location a user typed: a path or a URI. Stateless and thread-safe.
 *
 * {@snippet :
 * try (Store store = Stores.open("https://example.org/era5.zarr")) {
 *     ZarrArray t2m = Zarr.openArray(store, "t2m");
 * }
 * }
 */
public final class Stores {

    /** Two characters at least, so that a Windows drive ({@code C:\data}) is not a scheme. */
    private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]+):");
    private static final String SUPPORTED = "supported now: a local directory path (/data/era5.zarr), a file: URI"
            + " (file:///data/era5.zarr), a zip file (/data/era5.zarr.zip, read-only) or an http(s) URL"
            + " (https://host/era5.zarr, read-only)";

    private Stores() {
    }

    /**
     * Reads the metadata document at {@code key} as UTF-8 text, refusing one larger than
     * {@link dev.zarrdirect.core.ZarrContext#MAX_METADATA_BYTES} (64 MiB unless set) before it is
     * read: a hostile store can hold a 3 GiB {@code zarr.json}, and documents are parsed whole.
     *
     * @param store the store
     * @param key   the document's key ({@code t2m/zarr.json})
     * @return the text, or empty when the key does not exist
     * @throws StoreException when the document is larger than the limit (naming the store, the key,
     *                        the size, the limit and the setting) or cannot be read
     * @throws dev.zarrdirect.api.InvalidSettingException when the setting is set to a bad value
     */
    public static Optional<String> readMetadataText(Store store, String key) {
        long max = SettingResolver.system().get(ZarrContext.MAX_METADATA_BYTES);
        try (Arena arena = Arena.ofConfined()) {
            return store.get(key, ByteRange.ALL, max, arena)
                    .map(seg -> new String(seg.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
        } catch (StoreException e) {
            if (e.getMessage() != null && e.getMessage().contains("more than the limit of " + max + " bytes")) {
                throw new StoreException(e.store(), e.key(), "metadata document " + e.getMessage() + "; the limit"
                        + " for metadata documents is " + ZarrContext.MAX_METADATA_BYTES.name() + " ("
                        + ZarrContext.MAX_METADATA_BYTES.env() + ")", e);
            }
            throw e;
        }
    }

    /**
     * Opens the existing store at {@code pathOrUri}:
     * <ul>
     *   <li>a local directory or a {@code file:} URI naming one: a {@link FileSystemStore};</li>
     *   <li>a regular file, or a path or {@code file:} URI ending in {@code .zip}: a read-only
     *       {@link ZipStore};</li>
     *   <li>an {@code http://} or {@code https://} URL: a read-only {@link HttpStore} with default
     *       settings.</li>
     * </ul>
     *
     * <p>The caller owns the store and closes it.
     *
     * @param pathOrUri a path, {@code file:} URI or http(s) URL
     * @return the store, read-only unless it is a {@link FileSystemStore}
     * @throws StoreException for another scheme (such as {@code s3:}), saying which forms are
     *                        supported, or when the location does not exist or cannot be read
     */
    public static Store open(String pathOrUri) {
        Matcher m = SCHEME.matcher(pathOrUri);
        if (m.find()) {
            String scheme = m.group(1).toLowerCase(Locale.ROOT);
            switch (scheme) {
                case "file" -> {
                    return openLocal(pathOrUri, fileUriToPath(pathOrUri));
                }
                case "http", "https" -> {
                    return openHttp(pathOrUri);
                }
                case "s3", "gs", "gcs", "az", "abfs" -> throw new StoreException(pathOrUri, null, "cannot open \""
                        + pathOrUri + "\": object stores are not supported by scheme (\"" + scheme + "\"); a public"
                        + " bucket can be read through its https:// endpoint (for S3:"
                        + " https://<bucket>.s3.<region>.amazonaws.com/<path>); " + SUPPORTED);
                default -> throw new StoreException(pathOrUri, null, "cannot open \"" + pathOrUri + "\": scheme \""
                        + scheme + "\" is not supported; " + SUPPORTED);
            }
        }
        Path path;
        try {
            path = Path.of(pathOrUri);
        } catch (InvalidPathException e) {
            throw new StoreException(pathOrUri, null,
                    "cannot open \"" + pathOrUri + "\": not a valid path (" + e.getMessage() + "); " + SUPPORTED, e);
        }
        return openLocal(pathOrUri, path);
    }

    private static Store openHttp(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (java.net.URISyntaxException e) {
            throw new StoreException(url, null, "cannot open \"" + url + "\": not a valid URL (" + e.getMessage()
                    + "); characters such as spaces must be percent-encoded", e);
        }
        try {
            return HttpStore.open(uri);
        } catch (IllegalArgumentException e) {
            throw new StoreException(url, null, "cannot open \"" + url + "\": " + e.getMessage(), e);
        }
    }

    private static Path fileUriToPath(String uri) {
        try {
            return Path.of(URI.create(uri));
        } catch (IllegalArgumentException | FileSystemNotFoundException e) {
            throw new StoreException(uri, null, "cannot open \"" + uri + "\": not a valid file: URI ("
                    + e.getMessage() + "); write it as file:///absolute/path; " + SUPPORTED, e);
        }
    }

    private static Store openLocal(String location, Path path) {
        boolean zipName = path.getFileName() != null
                && path.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".zip");
        if (Files.isRegularFile(path) || (zipName && !Files.isDirectory(path))) {
            return ZipStore.open(path);
        }
        return FileSystemStore.open(path);
    }
}
