// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.store.StoreOptions;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real S3 server in this JVM: s3proxy over an in-memory blob store, on 127.0.0.1 and a free port,
 * either open to anonymous requests or requiring AWS signatures (v2 or v4) with one key. Tests get
 * fresh buckets from {@link #newBucket}; closing stops the server.
 */
final class S3Server implements AutoCloseable {

    static final String KEY_ID = "zd-test-key";
    static final String SECRET = "zd-test-secret-0123456789";
    private static final AtomicInteger BUCKETS = new AtomicInteger();

    private final S3Proxy proxy;
    private final boolean signed;

    private S3Server(boolean signed) throws Exception {
        this.signed = signed;
        S3Proxy.Builder b = S3Proxy.builder().blobStore(new TransientNio2BlobStore())
                .endpoint(URI.create("http://127.0.0.1:0")).jettyMaxThreads(32);
        b = signed ? b.awsAuthentication(AuthenticationType.AWS_V2_OR_V4, KEY_ID, SECRET)
                : b.awsAuthentication(AuthenticationType.NONE, null, null);
        proxy = b.build();
        proxy.start();
        for (int i = 0; i < 200 && !"STARTED".equals(proxy.getState()); i++) {
            Thread.sleep(10);
        }
    }

    /** A server that accepts requests without signatures. */
    static S3Server anonymous() throws Exception {
        return new S3Server(false);
    }

    /** A server that accepts only requests signed with {@link #KEY_ID} and {@link #SECRET}. */
    static S3Server signed() throws Exception {
        return new S3Server(true);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    /** Options that reach this server: its endpoint, path style, short timeouts. */
    StoreOptions options() {
        return StoreOptions.defaults().withEndpoint(endpoint()).withRegion("us-east-1").withAnonymous(!signed)
                .withRequestTimeout(Duration.ofSeconds(20));
    }

    /** Creates an empty bucket with a name no other test uses. */
    String newBucket() {
        String name = "zd-bucket-" + BUCKETS.incrementAndGet();
        try (S3Store admin = store("s3://" + name, options())) {
            admin.client().createBucket(b -> b.bucket(name));
        }
        return name;
    }

    /** A store at {@code location} with {@code options}, signed with the server's key when it wants one. */
    S3Store store(String location, StoreOptions options) {
        S3Config config = S3Config.resolve(CloudLocation.parse(URI.create(location)), options);
        if (signed && !options.anonymous()) {
            config = config.withCredentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY_ID, SECRET)),
                    "the test server's key");
        }
        return S3Store.open(config);
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
    }
}
