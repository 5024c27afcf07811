// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.InvalidKeyException;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.StoreKeys;

import java.net.URI;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A parsed object-store location: {@code s3://bucket/prefix} or {@code gs://bucket/prefix}. The
 * prefix is the store's root: key {@code t2m/zarr.json} is the object {@code prefix/t2m/zarr.json}.
 *
 * @param scheme {@code s3} or {@code gs}
 * @param bucket the bucket's name
 * @param root   the prefix of every object of the store: empty, or ending in {@code /}
 */
record CloudLocation(String scheme, String bucket, String root) {

    /** Bucket names as S3 and GCS allow them (3..222 characters; dots for GCS domain buckets). */
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]");

    /**
     * Parses {@code uri}.
     *
     * @throws StoreException naming the location when it has no bucket, a malformed bucket name, a
     *                        query, user info, or a prefix that is not a valid key
     */
    static CloudLocation parse(URI uri) {
        String text = uri.toString();
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("s3") && !scheme.equals("gs")) {
            throw bad(text, "the scheme is neither s3 nor gs");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null
                || uri.getPort() != -1) {
            throw bad(text, "it has a query, fragment, user info or port; write " + scheme + "://bucket/prefix and pass"
                    + " the endpoint and credentials as options");
        }
        String bucket = uri.getHost() != null ? uri.getHost() : uri.getRawAuthority();
        if (bucket == null || bucket.isEmpty()) {
            throw bad(text, "it names no bucket; write " + scheme + "://bucket/prefix");
        }
        if (!BUCKET.matcher(bucket).matches()) {
            throw bad(text, "\"" + bucket + "\" is not a bucket name (3 to 222 lower-case letters, digits, '.', '-'"
                    + " and '_')");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        while (path.startsWith("/")) {
            path = path.substring(1);
        }
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (!path.isEmpty()) {
            try {
                StoreKeys.validate(text, path);
            } catch (InvalidKeyException e) {
                throw bad(text, "the prefix \"" + path + "\" is not a valid path (" + e.getMessage() + ")");
            }
        }
        return new CloudLocation(scheme, bucket, path.isEmpty() ? "" : path + "/");
    }

    private static StoreException bad(String location, String why) {
        return new StoreException(location, null, "cannot open \"" + location + "\": " + why);
    }

    /** The object name of {@code key}. */
    String objectKey(String key) {
        return root + key;
    }

    /** The location as the user writes it: {@code s3://bucket/prefix}. */
    String url() {
        return scheme + "://" + bucket + (root.isEmpty() ? "" : "/" + root.substring(0, root.length() - 1));
    }
}
