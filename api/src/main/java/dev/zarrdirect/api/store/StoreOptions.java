// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.store;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * How to reach a remote store: what {@link StoreProvider#open} and {@code Stores.open(location,
 * options)} take besides the location. Every option starts unset, and an unset option means the
 * store's own default, or the standard configuration of its service (for S3: the AWS default
 * credential chain, {@code AWS_REGION}, {@code AWS_ENDPOINT_URL}, profiles). Local stores ignore
 * these options.
 *
 * {@snippet :
 * StoreOptions public_ = StoreOptions.defaults().withAnonymous(true);
 * StoreOptions minio = StoreOptions.defaults()
 *         .withEndpoint(URI.create("http://127.0.0.1:9000")).withRegion("us-east-1").withMaxRequests(32);
 * }
 *
 * <p>Immutable and thread-safe: each {@code with} method returns a new instance, checking its value
 * at once. Options never hold secrets: credentials come from the service's own configuration.
 */
public final class StoreOptions {

    private static final StoreOptions DEFAULTS = new StoreOptions(false, null, null, null, null, 0, 0, null, null);

    private final boolean anonymous;
    private final URI endpoint;
    private final String region;
    private final Boolean pathStyle;
    private final String profile;
    private final int maxRequests;
    private final int maxAttempts;
    private final Duration requestTimeout;
    private final Duration connectTimeout;

    private StoreOptions(boolean anonymous, URI endpoint, String region, Boolean pathStyle, String profile,
            int maxRequests, int maxAttempts, Duration requestTimeout, Duration connectTimeout) {
        this.anonymous = anonymous;
        this.endpoint = endpoint;
        this.region = region;
        this.pathStyle = pathStyle;
        this.profile = profile;
        this.maxRequests = maxRequests;
        this.maxAttempts = maxAttempts;
        this.requestTimeout = requestTimeout;
        this.connectTimeout = connectTimeout;
    }

    /**
     * Every option unset: the stores' defaults and the services' standard configuration.
     *
     * @return the default options
     */
    public static StoreOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Whether requests go unsigned, as the AWS CLI's {@code --no-sign-request} sends them: for
     * public buckets, without looking for credentials at all.
     *
     * @return true for anonymous access
     */
    public boolean anonymous() {
        return anonymous;
    }

    /**
     * The service endpoint to send requests to instead of the standard one (an S3-compatible
     * server: MinIO, Ceph, R2, s3proxy), when set.
     *
     * @return the endpoint, or empty for the standard configuration ({@code AWS_ENDPOINT_URL} and
     *         profiles for S3)
     */
    public Optional<URI> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    /**
     * The region to sign requests for, when set.
     *
     * @return the region, or empty for the standard configuration ({@code AWS_REGION}, profiles)
     */
    public Optional<String> region() {
        return Optional.ofNullable(region);
    }

    /**
     * Whether the bucket goes in the path ({@code http://host/bucket/key}) rather than in the host
     * name ({@code http://bucket.host/key}), when set.
     *
     * @return the addressing style, or empty for the store's default (path style with a custom
     *         endpoint, virtual-hosted style on AWS)
     */
    public Optional<Boolean> pathStyle() {
        return Optional.ofNullable(pathStyle);
    }

    /**
     * The named profile of the service's shared configuration to take credentials and region
     * from, when set.
     *
     * @return the profile's name, or empty for the standard choice ({@code AWS_PROFILE}, else
     *         {@code default})
     */
    public Optional<String> profile() {
        return Optional.ofNullable(profile);
    }

    /**
     * The most requests in flight at once through one store, when set; callers beyond it wait.
     *
     * @return the limit, or empty for the store's default
     */
    public OptionalInt maxRequests() {
        return maxRequests == 0 ? OptionalInt.empty() : OptionalInt.of(maxRequests);
    }

    /**
     * Attempts per request, the first included, when set: throttling, server errors, timeouts and
     * broken connections are retried with backoff until they are spent.
     *
     * @return the number of attempts, or empty for the store's default
     */
    public OptionalInt maxAttempts() {
        return maxAttempts == 0 ? OptionalInt.empty() : OptionalInt.of(maxAttempts);
    }

    /**
     * The limit for one attempt of one request, from sending it to the last byte of its answer,
     * when set.
     *
     * @return the limit, or empty for the store's default
     */
    public Optional<Duration> requestTimeout() {
        return Optional.ofNullable(requestTimeout);
    }

    /**
     * The limit for opening a connection, when set.
     *
     * @return the limit, or empty for the store's default
     */
    public Optional<Duration> connectTimeout() {
        return Optional.ofNullable(connectTimeout);
    }

    /**
     * These options with anonymous (unsigned) access on or off.
     *
     * @param anonymous true to send requests unsigned
     * @return the new options
     */
    public StoreOptions withAnonymous(boolean anonymous) {
        return new StoreOptions(anonymous, endpoint, region, pathStyle, profile, maxRequests, maxAttempts,
                requestTimeout, connectTimeout);
    }

    /**
     * These options with another endpoint.
     *
     * @param endpoint an absolute {@code http} or {@code https} URL without path, query or user info
     *                 ({@code http://127.0.0.1:9000})
     * @return the new options
     * @throws IllegalArgumentException for another kind of URL
     * @throws NullPointerException     when {@code endpoint} is null
     */
    public StoreOptions withEndpoint(URI endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || endpoint.getHost() == null) {
            throw new IllegalArgumentException("endpoint \"" + endpoint + "\" is not an http:// or https:// URL with"
                    + " a host (such as http://127.0.0.1:9000)");
        }
        if (endpoint.getRawUserInfo() != null || endpoint.getRawQuery() != null || endpoint.getRawFragment() != null
                || (endpoint.getRawPath() != null && !endpoint.getRawPath().isEmpty() && !endpoint.getRawPath().equals("/"))) {
            throw new IllegalArgumentException("endpoint \"" + endpoint + "\" has a path, query or user info; give"
                    + " the server alone (scheme, host and port), and the bucket in the location");
        }
        return new StoreOptions(anonymous, endpoint, region, pathStyle, profile, maxRequests, maxAttempts,
                requestTimeout, connectTimeout);
    }

    /**
     * These options with another region.
     *
     * @param region a region name such as {@code us-west-2}
     * @return the new options
     * @throws IllegalArgumentException when {@code region} is blank
     * @throws NullPointerException     when {@code region} is null
     */
    public StoreOptions withRegion(String region) {
        if (Objects.requireNonNull(region, "region").isBlank()) {
            throw new IllegalArgumentException("region is blank");
        }
        return new StoreOptions(anonymous, endpoint, region.strip(), pathStyle, profile, maxRequests, maxAttempts,
                requestTimeout, connectTimeout);
    }

    /**
     * These options with path-style (true) or virtual-hosted (false) addressing.
     *
     * @param pathStyle true for {@code http://host/bucket/key}
     * @return the new options
     */
    public StoreOptions withPathStyle(boolean pathStyle) {
        return new StoreOptions(anonymous, endpoint, region, pathStyle, profile, maxRequests, maxAttempts,
                requestTimeout, connectTimeout);
    }

    /**
     * These options with a named profile of the shared configuration.
     *
     * @param profile the profile's name
     * @return the new options
     * @throws IllegalArgumentException when {@code profile} is blank
     * @throws NullPointerException     when {@code profile} is null
     */
    public StoreOptions withProfile(String profile) {
        if (Objects.requireNonNull(profile, "profile").isBlank()) {
            throw new IllegalArgumentException("profile is blank");
        }
        return new StoreOptions(anonymous, endpoint, region, pathStyle, profile.strip(), maxRequests, maxAttempts,
                requestTimeout, connectTimeout);
    }

    /**
     * These options with another limit of requests in flight.
     *
     * @param requests 1 to 4096
     * @return the new options
     * @throws IllegalArgumentException when {@code requests} is out of range
     */
    public StoreOptions withMaxRequests(int requests) {
        if (requests < 1 || requests > 4096) {
            throw new IllegalArgumentException("maxRequests is 1..4096, got " + requests);
        }
        return new StoreOptions(anonymous, endpoint, region, pathStyle, profile, requests, maxAttempts,
                requestTimeout, connectTimeout);
    }

    /**
     * These options with another number of attempts per request.
     *
     * @param attempts 1 (no retry) to 100
     * @return the new options
     * @throws IllegalArgumentException when {@code attempts} is out of range
     */
    public StoreOptions withMaxAttempts(int attempts) {
        if (attempts < 1 || attempts > 100) {
            throw new IllegalArgumentException("maxAttempts is 1..100, got " + attempts);
        }
        return new StoreOptions(anonymous, endpoint, region, pathStyle, profile, maxRequests, attempts,
                requestTimeout, connectTimeout);
    }

    /**
     * These options with another limit for one attempt of a request.
     *
     * @param timeout positive
     * @return the new options
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public StoreOptions withRequestTimeout(Duration timeout) {
        return new StoreOptions(anonymous, endpoint, region, pathStyle, profile, maxRequests, maxAttempts,
                positive("requestTimeout", timeout), connectTimeout);
    }

    /**
     * These options with another limit for opening a connection.
     *
     * @param timeout positive
     * @return the new options
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public StoreOptions withConnectTimeout(Duration timeout) {
        return new StoreOptions(anonymous, endpoint, region, pathStyle, profile, maxRequests, maxAttempts,
                requestTimeout, positive("connectTimeout", timeout));
    }

    private static Duration positive(String what, Duration d) {
        if (Objects.requireNonNull(d, what).isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + d);
        }
        return d;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoreOptions s && anonymous == s.anonymous && Objects.equals(endpoint, s.endpoint)
                && Objects.equals(region, s.region) && Objects.equals(pathStyle, s.pathStyle)
                && Objects.equals(profile, s.profile) && maxRequests == s.maxRequests && maxAttempts == s.maxAttempts
                && Objects.equals(requestTimeout, s.requestTimeout) && Objects.equals(connectTimeout, s.connectTimeout);
    }

    @Override
    public int hashCode() {
        return Objects.hash(anonymous, endpoint, region, pathStyle, profile, maxRequests, maxAttempts, requestTimeout,
                connectTimeout);
    }

    /**
     * The options that are set: {@code StoreOptions[anonymous, endpoint=http://127.0.0.1:9000]}.
     *
     * @return the description
     */
    @Override
    public String toString() {
        List<String> set = new ArrayList<>();
        if (anonymous) {
            set.add("anonymous");
        }
        endpoint().ifPresent(e -> set.add("endpoint=" + e));
        region().ifPresent(r -> set.add("region=" + r));
        pathStyle().ifPresent(p -> set.add("pathStyle=" + p));
        profile().ifPresent(p -> set.add("profile=" + p));
        maxRequests().ifPresent(n -> set.add("maxRequests=" + n));
        maxAttempts().ifPresent(n -> set.add("maxAttempts=" + n));
        requestTimeout().ifPresent(t -> set.add("requestTimeout=" + t));
        connectTimeout().ifPresent(t -> set.add("connectTimeout=" + t));
        return "StoreOptions" + set;
    }
}
