package dev.zarrdirect.core.store;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.store.fs.FileSystemStore;

import java.net.URI;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Opens a store from the location a user typed: a path or a URI. */
public final class Stores {

    /** Two characters at least, so that a Windows drive ({@code C:\data}) is not a scheme. */
    private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]+):");
    private static final String SUPPORTED = "supported now: a local directory path (/data/era5.zarr) or a file: URI"
            + " (file:///data/era5.zarr); zip, http(s) and s3 stores are not implemented yet";

    private Stores() {
    }

    /**
     * Opens the existing store at {@code pathOrUri}: a local directory or a {@code file:} URI, as a
     * {@link FileSystemStore}.
     *
     * @throws StoreException for a location of another kind (http, s3, a zip file), saying which
     *                        forms are supported, or when the directory does not exist
     */
    public static Store open(String pathOrUri) {
        Matcher m = SCHEME.matcher(pathOrUri);
        if (m.find()) {
            String scheme = m.group(1).toLowerCase(Locale.ROOT);
            if (!scheme.equals("file")) {
                throw new StoreException(pathOrUri, null, "cannot open \"" + pathOrUri + "\": scheme \""
                        + scheme + "\" is not supported; " + SUPPORTED);
            }
            return openDirectory(pathOrUri, fileUriToPath(pathOrUri));
        }
        Path path;
        try {
            path = Path.of(pathOrUri);
        } catch (InvalidPathException e) {
            throw new StoreException(pathOrUri, null,
                    "cannot open \"" + pathOrUri + "\": not a valid path (" + e.getMessage() + "); " + SUPPORTED, e);
        }
        return openDirectory(pathOrUri, path);
    }

    private static Path fileUriToPath(String uri) {
        try {
            return Path.of(URI.create(uri));
        } catch (IllegalArgumentException | FileSystemNotFoundException e) {
            throw new StoreException(uri, null, "cannot open \"" + uri + "\": not a valid file: URI ("
                    + e.getMessage() + "); write it as file:///absolute/path; " + SUPPORTED, e);
        }
    }

    private static Store openDirectory(String location, Path path) {
        if (path.getFileName() != null
                && path.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".zip")
                || Files.isRegularFile(path)) {
            throw new StoreException(location, null, "cannot open \"" + location + "\": " + path
                    + " is a file, and stores in zip (or other) files are not supported yet; " + SUPPORTED);
        }
        return FileSystemStore.open(path);
    }
}
