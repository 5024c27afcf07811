// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.store.StoreOptions;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.profiles.Profile;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.profiles.ProfileProperty;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The configuration of one object store, resolved once from its location, its
 * {@link StoreOptions} and the environment, with the source of each part kept for messages and
 * {@code zarr-direct doctor}. Secrets are read into the credentials provider and nowhere else.
 *
 * <p>For {@code s3://}, the standard AWS configuration: credentials from the default chain (Java
 * properties, environment, web identity, the shared profile files, SSO, container and instance
 * credentials) or the named profile; the region from the options, {@code AWS_REGION},
 * {@code AWS_DEFAULT_REGION} or the profile, else {@code us-east-1} with cross-region access, so
 * that a public bucket in any region opens without one; the endpoint from the options,
 * {@code AWS_ENDPOINT_URL_S3} or {@code AWS_ENDPOINT_URL}. A custom endpoint means path-style
 * addressing unless the options say otherwise, as S3-compatible servers on an address expect.
 *
 * <p>For {@code gs://}, Google Cloud Storage's XML API at {@code https://storage.googleapis.com},
 * path style, region {@code auto}: HMAC keys from the named profile or from
 * {@code ZARRDIRECT_GCS_ACCESS_KEY_ID} and {@code ZARRDIRECT_GCS_SECRET_ACCESS_KEY}, else anonymous.
 * AWS credentials are never sent to Google.
 *
 * <p>Immutable; {@link #newClient} builds a client that the caller closes.
 */
final class S3Config {

    static final String GCS_ENDPOINT = "https://storage.googleapis.com";
    static final String GCS_KEY_ENV = "ZARRDIRECT_GCS_ACCESS_KEY_ID";
    static final String GCS_SECRET_ENV = "ZARRDIRECT_GCS_SECRET_ACCESS_KEY";
    /** Anonymous access for every store of the process, where no option can be passed (the Python loader). */
    static final String NO_SIGN_ENV = "ZARRDIRECT_NO_SIGN_REQUEST";
    static final String NO_SIGN_PROPERTY = "zarrdirect.noSignRequest";

    static final int DEFAULT_MAX_REQUESTS = 64;
    static final int DEFAULT_MAX_ATTEMPTS = 5;
    static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);
    static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    final CloudLocation location;
    final URI endpoint;
    final String endpointSource;
    final Region region;
    final String regionSource;
    final boolean crossRegion;
    final boolean pathStyle;
    final AwsCredentialsProvider credentials;
    final String credentialsSource;
    final boolean anonymous;
    final int maxRequests;
    final int maxAttempts;
    final Duration requestTimeout;
    final Duration connectTimeout;

    private S3Config(CloudLocation location, URI endpoint, String endpointSource, Region region, String regionSource,
            boolean crossRegion, boolean pathStyle, AwsCredentialsProvider credentials, String credentialsSource,
            boolean anonymous, StoreOptions o) {
        this.location = location;
        this.endpoint = endpoint;
        this.endpointSource = endpointSource;
        this.region = region;
        this.regionSource = regionSource;
        this.crossRegion = crossRegion;
        this.pathStyle = pathStyle;
        this.credentials = credentials;
        this.credentialsSource = credentialsSource;
        this.anonymous = anonymous;
        this.maxRequests = o.maxRequests().orElse(DEFAULT_MAX_REQUESTS);
        this.maxAttempts = o.maxAttempts().orElse(DEFAULT_MAX_ATTEMPTS);
        this.requestTimeout = o.requestTimeout().orElse(DEFAULT_REQUEST_TIMEOUT);
        this.connectTimeout = o.connectTimeout().orElse(DEFAULT_CONNECT_TIMEOUT);
    }

    /** The configuration from the process's environment and Java properties. */
    static S3Config resolve(CloudLocation location, StoreOptions options) {
        return resolve(location, options, System::getenv, ProfileFile::defaultProfileFile);
    }

    /**
     * The configuration with the environment given: {@code env} answers variables (null when unset),
     * {@code profiles} reads the shared configuration files when a profile is needed.
     */
    static S3Config resolve(CloudLocation location, StoreOptions o, Function<String, String> env,
            java.util.function.Supplier<ProfileFile> profiles) {
        Objects.requireNonNull(o, "options");
        boolean gs = location.scheme().equals("gs");
        String profileName = o.profile().orElseGet(() -> Optional.ofNullable(nonBlank(env.apply("AWS_PROFILE")))
                .orElse("default"));
        // Only read when something needs it: a missing or broken file must not stop anonymous reads.
        boolean needProfile = !gs;
        Optional<Profile> profile = needProfile ? readProfile(profiles, profileName) : Optional.empty();

        URI endpoint;
        String endpointSource;
        if (o.endpoint().isPresent()) {
            endpoint = o.endpoint().get();
            endpointSource = "set by option";
        } else if (gs) {
            endpoint = URI.create(GCS_ENDPOINT);
            endpointSource = "Google Cloud Storage XML API";
        } else if (!"true".equalsIgnoreCase(env.apply("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"))
                && nonBlank(env.apply("AWS_ENDPOINT_URL_S3")) != null) {
            endpoint = URI.create(env.apply("AWS_ENDPOINT_URL_S3").strip());
            endpointSource = "AWS_ENDPOINT_URL_S3";
        } else if (!"true".equalsIgnoreCase(env.apply("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"))
                && nonBlank(env.apply("AWS_ENDPOINT_URL")) != null) {
            endpoint = URI.create(env.apply("AWS_ENDPOINT_URL").strip());
            endpointSource = "AWS_ENDPOINT_URL";
        } else {
            endpoint = null;
            endpointSource = "AWS S3 (the SDK's endpoint for the region, or the profile's endpoint_url)";
        }

        Region region;
        String regionSource;
        boolean crossRegion = false;
        String fromProfile = profile.flatMap(p -> p.property(ProfileProperty.REGION)).orElse(null);
        if (o.region().isPresent()) {
            region = Region.of(o.region().get());
            regionSource = "set by option";
        } else if (gs) {
            region = Region.of("auto");
            regionSource = "Google Cloud Storage (auto)";
        } else if (nonBlank(System.getProperty("aws.region")) != null) {
            region = Region.of(System.getProperty("aws.region").strip());
            regionSource = "-Daws.region";
        } else if (nonBlank(env.apply("AWS_REGION")) != null) {
            region = Region.of(env.apply("AWS_REGION").strip());
            regionSource = "AWS_REGION";
        } else if (nonBlank(env.apply("AWS_DEFAULT_REGION")) != null) {
            region = Region.of(env.apply("AWS_DEFAULT_REGION").strip());
            regionSource = "AWS_DEFAULT_REGION";
        } else if (nonBlank(fromProfile) != null) {
            region = Region.of(fromProfile.strip());
            regionSource = "profile " + profileName;
        } else {
            region = Region.US_EAST_1;
            crossRegion = endpoint == null;
            regionSource = endpoint == null ? "none configured: us-east-1, following the bucket to its region"
                    : "none configured: us-east-1";
        }

        boolean pathStyle = o.pathStyle().orElse(endpoint != null);

        AwsCredentialsProvider credentials;
        String credentialsSource;
        boolean fromEnv = isTrue(System.getProperty(NO_SIGN_PROPERTY)) || isTrue(env.apply(NO_SIGN_ENV));
        boolean anonymous = o.anonymous() || fromEnv;
        if (anonymous) {
            credentials = AnonymousCredentialsProvider.create();
            credentialsSource = "none: anonymous, unsigned requests (" + (o.anonymous() ? "--no-sign-request"
                    : System.getProperty(NO_SIGN_PROPERTY) != null ? "-D" + NO_SIGN_PROPERTY : NO_SIGN_ENV) + ")";
        } else if (gs) {
            String key = nonBlank(env.apply(GCS_KEY_ENV));
            String secret = nonBlank(env.apply(GCS_SECRET_ENV));
            if (o.profile().isPresent()) {
                credentials = ProfileCredentialsProvider.builder().profileFile(profiles).profileName(profileName).build();
                credentialsSource = "HMAC key of profile " + profileName;
            } else if (key != null && secret != null) {
                credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret));
                credentialsSource = "HMAC key from " + GCS_KEY_ENV + " and " + GCS_SECRET_ENV;
            } else {
                credentials = AnonymousCredentialsProvider.create();
                anonymous = true;
                credentialsSource = "none: anonymous (no HMAC key: set " + GCS_KEY_ENV + " and " + GCS_SECRET_ENV
                        + ", or pass a profile holding one)";
            }
        } else if (o.profile().isPresent()) {
            credentials = ProfileCredentialsProvider.builder().profileFile(profiles).profileName(profileName).build();
            credentialsSource = "profile " + profileName + (profile.isPresent() ? "" : " (not found in the shared"
                    + " configuration files)");
        } else {
            credentials = DefaultCredentialsProvider.builder().profileName(profileName).build();
            credentialsSource = "AWS default chain: " + describeChain(env, profileName, profile.isPresent());
        }
        return new S3Config(location, endpoint, endpointSource, region, regionSource, crossRegion, pathStyle,
                credentials, credentialsSource, anonymous, o);
    }

    private static Optional<Profile> readProfile(java.util.function.Supplier<ProfileFile> profiles, String name) {
        try {
            return profiles.get().profile(name);
        } catch (RuntimeException e) {
            // A malformed file is reported by the SDK when credentials are read; here it only
            // means no region from it.
            return Optional.empty();
        }
    }

    /** Which link of the default chain will answer, as far as can be told without asking one. */
    private static String describeChain(Function<String, String> env, String profileName, boolean profileExists) {
        if (nonBlank(System.getProperty("aws.accessKeyId")) != null) {
            return "Java properties (aws.accessKeyId)";
        }
        if (nonBlank(env.apply("AWS_ACCESS_KEY_ID")) != null) {
            return "environment (AWS_ACCESS_KEY_ID" + (nonBlank(env.apply("AWS_SESSION_TOKEN")) != null
                    ? ", AWS_SESSION_TOKEN" : "") + ")";
        }
        if (nonBlank(env.apply("AWS_WEB_IDENTITY_TOKEN_FILE")) != null) {
            return "web identity token (AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN)";
        }
        if (profileExists) {
            return "profile " + profileName + " of the shared configuration files";
        }
        if (nonBlank(env.apply("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) != null
                || nonBlank(env.apply("AWS_CONTAINER_CREDENTIALS_FULL_URI")) != null) {
            return "container credentials (AWS_CONTAINER_CREDENTIALS_*)";
        }
        return "nothing configured here; EC2 instance metadata is tried last (for a public bucket pass"
                + " --no-sign-request)";
    }

    private static boolean isTrue(String s) {
        return s != null && (s.strip().equalsIgnoreCase("true") || s.strip().equals("1"));
    }

    private static String nonBlank(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** An S3 client for this configuration, over the HTTP client the measurements chose. */
    S3Client newClient() {
        return newClient(ApacheHttpClient.builder()
                .maxConnections(maxRequests)
                .connectionTimeout(connectTimeout)
                .socketTimeout(requestTimeout)
                .connectionAcquisitionTimeout(requestTimeout)
                .tcpKeepAlive(true));
    }

    /** An S3 client over the given HTTP client (the measurements compare several). */
    S3Client newClient(SdkHttpClient.Builder<?> http) {
        var b = S3Client.builder()
                .httpClientBuilder(http)
                .credentialsProvider(credentials)
                .region(region)
                .crossRegionAccessEnabled(crossRegion)
                .forcePathStyle(pathStyle)
                // Checksums only where an operation needs them: S3-compatible servers and GCS's XML
                // API refuse the SDK's default aws-chunked uploads with trailing checksums.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                // One retry loop (S3Store's) counts and reports every attempt.
                .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .apiCallAttemptTimeout(requestTimeout));
        if (endpoint != null) {
            b.endpointOverride(endpoint);
        }
        return b.build();
    }

    /** The description of the store: {@code S3Store(s3://bucket/prefix, endpoint=http://127.0.0.1:9000)}. */
    String describeStore() {
        String kind = location.scheme().equals("gs") ? "GcsStore" : "S3Store";
        boolean standard = endpoint == null || (location.scheme().equals("gs") && endpointSource.startsWith("Google"));
        return kind + "(" + location.url() + (standard ? "" : ", endpoint=" + endpoint) + ")";
    }

    /** What doctor shows: credentials, endpoint, region and addressing, each with its source. */
    List<String> describe() {
        List<String> lines = new ArrayList<>();
        String s = location.scheme();
        lines.add(s + " credentials: " + credentialsSource);
        lines.add(s + " endpoint:    " + (endpoint == null ? "" : endpoint + " ") + "(" + endpointSource + ")");
        lines.add(s + " region:      " + region.id() + " (" + regionSource + ")");
        lines.add(s + " addressing:  " + (pathStyle ? "path style" : "virtual-hosted style") + ", " + maxRequests
                + " requests in flight, " + maxAttempts + " attempts, " + requestTimeout.toMillis() / 1000.0
                + " s per attempt");
        return lines;
    }

    /** This configuration with other credentials (tests sign with a server's own key this way). */
    S3Config withCredentials(AwsCredentialsProvider provider, String source) {
        StoreOptions o = StoreOptions.defaults().withMaxRequests(maxRequests).withMaxAttempts(maxAttempts)
                .withRequestTimeout(requestTimeout).withConnectTimeout(connectTimeout);
        return new S3Config(location, endpoint, endpointSource, region, regionSource, crossRegion, pathStyle, provider,
                source, provider instanceof AnonymousCredentialsProvider, o);
    }

    /** The environment's view for tests: {@link Map#get} of a fixed map. */
    static Function<String, String> envOf(Map<String, String> env) {
        return env::get;
    }
}
