// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.store;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.store.ByteRange;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreOptions;
import dev.zarrdirect.api.store.StoreProvider;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens a store from the location a user typed: a path or a URI. Object stores ({@code s3://},
 * {@code gs://}) come from the {@link StoreProvider}s on the class or module path, found with
 * {@link ServiceLoader}. Stateless and thread-safe.
 *
 * {@snippet :
 * try (Store store = Stores.open("https://example.org/era5.zarr")) {
 *     ZarrArray t2m = Zarr.openArray(store, "t2m");
 * }
 * try (Store era5 = Stores.open("s3://bucket/era5.zarr", StoreOptions.defaults().withAnonymous(true))) {
 *     ZarrGroup root = Zarr.openGroup(era5, "");
 * }
 * }
 */
public final class Stores {

    /** Two characters at least, so that a Windows drive ({@code C:\data}) is not a scheme. */
    private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]+):");
    private static final String SUPPORTED = "supported now: a local directory path (/data/era5.zarr), a file: URI"
            + " (file:///data/era5.zarr), a zip file (/data/era5.zarr.zip, read-only) or an http(s) URL"
            + " (https://host/era5.zarr, read-only), and with the artifact " + Stores.CLOUD_ARTIFACT
            + " on the class path s3://bucket/prefix and gs://bucket/prefix";

    /** The artifact whose provider serves the object-store schemes, named when it is missing. */
    static final String CLOUD_ARTIFACT = "dev.zarrdirect:zarr-direct-store-cloud";
    /** Schemes that the cloud artifact serves: known here so that a missing artifact is named. */
    private static final List<String> CLOUD_SCHEMES = List.of("s3", "gs");

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
     * Opens the existing store at {@code pathOrUri} with {@link StoreOptions#defaults()}: see
     * {@link #open(String, StoreOptions)}.
     *
     * @param pathOrUri a path, {@code file:} URI, http(s) URL, or a URI a {@link StoreProvider} serves
     * @return the store, read-only unless it is a {@link FileSystemStore} or a provider's writable store
     * @throws StoreException for a scheme nobody serves, saying which forms are supported (and which
     *                        artifact serves {@code s3:} and {@code gs:}), or when the location does
     *                        not exist or cannot be read
     */
    public static Store open(String pathOrUri) {
        return open(pathOrUri, StoreOptions.defaults());
    }

    /**
     * Opens the existing store at {@code pathOrUri}:
     * <ul>
     *   <li>a local directory or a {@code file:} URI naming one: a {@link FileSystemStore};</li>
     *   <li>a regular file, or a path or {@code file:} URI ending in {@code .zip}: a read-only
     *       {@link ZipStore};</li>
     *   <li>an {@code http://} or {@code https://} URL: a read-only {@link HttpStore}, with the
     *       requests in flight, attempts and timeouts of {@code options} where set;</li>
     *   <li>any other scheme: the store of the {@link StoreProvider} that serves it, such as
     *       {@code s3://bucket/prefix} and {@code gs://bucket/prefix} with the artifact
     *       {@code zarr-direct-store-cloud} on the path.</li>
     * </ul>
     *
     * <p>Local stores ignore {@code options}. The caller owns the store and closes it.
     *
     * @param pathOrUri a path, {@code file:} URI, http(s) URL, or a URI a {@link StoreProvider} serves
     * @param options   how to reach a remote store (anonymous access, endpoint, region, ...)
     * @return the store, read-only unless it is a {@link FileSystemStore} or a provider's writable store
     * @throws StoreException for a scheme nobody serves, saying which forms are supported (and which
     *                        artifact serves {@code s3:} and {@code gs:}), when two providers serve
     *                        one scheme, or when the location does not exist or cannot be read
     */
    public static Store open(String pathOrUri, StoreOptions options) {
        java.util.Objects.requireNonNull(options, "options");
        Matcher m = SCHEME.matcher(pathOrUri);
        if (m.find()) {
            String scheme = m.group(1).toLowerCase(Locale.ROOT);
            switch (scheme) {
                case "file" -> {
                    return openLocal(pathOrUri, fileUriToPath(pathOrUri));
                }
                case "http", "https" -> {
                    return openHttp(pathOrUri, options);
                }
                default -> {
                    return openByProvider(pathOrUri, scheme, options);
                }
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

    /**
     * The store providers on the class or module path, by scheme: what {@code zarr-direct doctor}
     * lists.
     *
     * @return each scheme served and its provider, sorted by scheme
     * @throws StoreException when a provider cannot be loaded, or two serve one scheme
     */
    public static Map<String, StoreProvider> providers() {
        Map<String, StoreProvider> byScheme = new TreeMap<>();
        try {
            for (StoreProvider p : ServiceLoader.load(StoreProvider.class, Stores.class.getClassLoader())) {
                for (String scheme : p.schemes()) {
                    String s = scheme.toLowerCase(Locale.ROOT);
                    StoreProvider other = byScheme.putIfAbsent(s, p);
                    if (other != null && !other.getClass().equals(p.getClass())) {
                        throw new StoreException(s + "://", null, "two store providers serve the scheme \"" + s
                                + "\": " + other.name() + " (" + other.getClass().getName() + ") and " + p.name() + " ("
                                + p.getClass().getName() + "); keep one of them on the class path");
                    }
                }
            }
        } catch (ServiceConfigurationError e) {
            throw new StoreException("StoreProvider", null, "a store provider on the class path cannot be loaded: "
                    + e.getMessage(), e);
        }
        return byScheme;
    }

    private static Store openByProvider(String location, String scheme, StoreOptions options) {
        StoreProvider provider = providers().get(scheme);
        if (provider == null) {
            if (CLOUD_SCHEMES.contains(scheme)) {
                throw new StoreException(location, null, "cannot open \"" + location + "\": the scheme \"" + scheme
                        + "\" needs the artifact " + CLOUD_ARTIFACT + " on the class path (module"
                        + " dev.zarrdirect.store.cloud), and no StoreProvider for \"" + scheme + "\" was found; add that"
                        + " dependency next to zarr-direct-core (the zarr-direct command includes it)");
            }
            List<String> known = new ArrayList<>(providers().keySet());
            throw new StoreException(location, null, "cannot open \"" + location + "\": scheme \"" + scheme
                    + "\" is not supported" + (known.isEmpty() ? "" : " (store providers found serve " + known + ")")
                    + "; " + SUPPORTED);
        }
        URI uri;
        try {
            uri = new URI(location);
        } catch (java.net.URISyntaxException e) {
            throw new StoreException(location, null, "cannot open \"" + location + "\": not a valid URI ("
                    + e.getMessage() + "); characters such as spaces must be percent-encoded", e);
        }
        return provider.open(uri, options);
    }

    private static Store openHttp(String url, StoreOptions options) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (java.net.URISyntaxException e) {
            throw new StoreException(url, null, "cannot open \"" + url + "\": not a valid URL (" + e.getMessage()
                    + "); characters such as spaces must be percent-encoded", e);
        }
        try {
            HttpStore.Builder b = HttpStore.builder(uri);
            options.maxRequests().ifPresent(b::maxConcurrentRequests);
            options.maxAttempts().ifPresent(b::maxAttempts);
            options.requestTimeout().ifPresent(b::requestTimeout);
            options.connectTimeout().ifPresent(b::connectTimeout);
            return b.build();
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
