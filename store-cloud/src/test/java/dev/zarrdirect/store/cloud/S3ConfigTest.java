// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.store.StoreOptions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.profiles.ProfileFile;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a location, its options and the environment become a configuration, and what doctor shows of it. */
class S3ConfigTest {

    private static final Supplier<ProfileFile> PROFILES = () -> ProfileFile.builder()
            .content(new ByteArrayInputStream(("[profile work]\nregion = eu-west-1\n"
                    + "aws_access_key_id = AKIAEXAMPLEKEY\naws_secret_access_key = very-secret-value\n")
                    .getBytes(StandardCharsets.UTF_8)))
            .type(ProfileFile.Type.CONFIGURATION).build();

    private static S3Config resolve(String location, StoreOptions o, Map<String, String> env) {
        return S3Config.resolve(CloudLocation.parse(URI.create(location)), o, S3Config.envOf(env), PROFILES);
    }

    @Test
    void s3TakesItsRegionAndEndpointFromTheStandardVariablesAndSaysSo() {
        S3Config c = resolve("s3://bucket/era5.zarr", StoreOptions.defaults(), Map.of("AWS_REGION", "us-west-2",
                "AWS_ENDPOINT_URL", "http://127.0.0.1:9000", "AWS_ACCESS_KEY_ID", "AKIAEXAMPLE",
                "AWS_SECRET_ACCESS_KEY", "very-secret-value"));
        assertEquals("us-west-2", c.region.id());
        assertEquals(URI.create("http://127.0.0.1:9000"), c.endpoint);
        assertTrue(c.pathStyle, "a custom endpoint means path style");
        List<String> lines = c.describe();
        assertEquals("s3 credentials: AWS default chain: environment (AWS_ACCESS_KEY_ID)", lines.get(0));
        assertEquals("s3 endpoint:    http://127.0.0.1:9000 (AWS_ENDPOINT_URL)", lines.get(1));
        assertEquals("s3 region:      us-west-2 (AWS_REGION)", lines.get(2));
        assertFalse(String.join("\n", lines).contains("very-secret-value"));
        assertFalse(String.join("\n", lines).contains("AKIAEXAMPLE"));
    }

    @Test
    void withoutARegionS3FollowsTheBucketFromUsEast1AndOptionsWinOverTheEnvironment() {
        S3Config none = resolve("s3://bucket", StoreOptions.defaults(), Map.of());
        assertEquals("us-east-1", none.region.id());
        assertTrue(none.crossRegion);
        assertFalse(none.pathStyle);
        S3Config set = resolve("s3://bucket", StoreOptions.defaults().withRegion("ap-south-1")
                .withEndpoint(URI.create("http://10.0.0.1:9000")).withPathStyle(false), Map.of("AWS_REGION", "us-west-2",
                "AWS_ENDPOINT_URL_S3", "http://ignored:1"));
        assertEquals("ap-south-1", set.region.id());
        assertEquals(URI.create("http://10.0.0.1:9000"), set.endpoint);
        assertFalse(set.pathStyle);
        S3Config profile = resolve("s3://bucket", StoreOptions.defaults().withProfile("work"), Map.of());
        assertEquals("eu-west-1", profile.region.id());
        assertEquals("profile work", profile.credentialsSource);
    }

    @Test
    void anonymousAccessComesFromTheOptionOrTheEnvironment() {
        S3Config option = resolve("s3://bucket", StoreOptions.defaults().withAnonymous(true), Map.of());
        assertInstanceOf(AnonymousCredentialsProvider.class, option.credentials);
        assertTrue(option.credentialsSource.contains("--no-sign-request"));
        S3Config env = resolve("s3://bucket", StoreOptions.defaults(), Map.of(S3Config.NO_SIGN_ENV, "1"));
        assertInstanceOf(AnonymousCredentialsProvider.class, env.credentials);
        assertTrue(env.credentialsSource.contains(S3Config.NO_SIGN_ENV), env.credentialsSource);
    }

    @Test
    void gsUsesTheXmlApiWithHmacKeysOrAnonymousAndNeverAwsCredentials() {
        S3Config anon = resolve("gs://public-bucket/era5.zarr", StoreOptions.defaults(),
                Map.of("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY", "aws-secret", "AWS_REGION", "us-west-2"));
        assertEquals(URI.create(S3Config.GCS_ENDPOINT), anon.endpoint);
        assertTrue(anon.pathStyle);
        assertEquals("auto", anon.region.id());
        assertInstanceOf(AnonymousCredentialsProvider.class, anon.credentials, "AWS keys are not sent to Google");
        assertEquals("GcsStore(gs://public-bucket/era5.zarr)", anon.describeStore());
        S3Config hmac = resolve("gs://bkt", StoreOptions.defaults(), Map.of(S3Config.GCS_KEY_ENV, "GOOGKEY",
                S3Config.GCS_SECRET_ENV, "google-secret"));
        assertEquals("GOOGKEY", hmac.credentials.resolveCredentials().accessKeyId());
        assertTrue(hmac.credentialsSource.startsWith("HMAC key from " + S3Config.GCS_KEY_ENV), hmac.credentialsSource);
        assertFalse(String.join("\n", hmac.describe()).contains("google-secret"));
    }

    @Test
    void locationsParseIntoBucketAndRoot() {
        assertEquals(new CloudLocation("s3", "bucket", "a/b.zarr/"), CloudLocation.parse(URI.create("s3://bucket/a/b.zarr/")));
        assertEquals(new CloudLocation("gs", "bucket", ""), CloudLocation.parse(URI.create("gs://bucket")));
        assertEquals("s3://bucket/a", CloudLocation.parse(URI.create("s3://bucket//a/")).url());
        StoreException e = assertThrows(StoreException.class, () -> CloudLocation.parse(URI.create("s3:///x")));
        assertTrue(e.getMessage().contains("names no bucket"), e.getMessage());
    }
}
