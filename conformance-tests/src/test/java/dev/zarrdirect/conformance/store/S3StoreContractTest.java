// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.store;

import dev.zarrdirect.testing.StoreContract;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreOptions;
import dev.zarrdirect.core.store.Stores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Store contract for {@code s3://} stores, opened through {@code Stores.open} (so through the
 * provider that {@code ServiceLoader} finds) against a real S3 server, s3proxy on 127.0.0.1. Each
 * test gets its own prefix of one bucket.
 */
class S3StoreContractTest extends StoreContract {

    private static final String BUCKET = "zd-contract";
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static S3Proxy server;
    private static URI endpoint;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3Proxy.builder().blobStore(new TransientNio2BlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.NONE, null, null).jettyMaxThreads(32).build();
        server.start();
        for (int i = 0; i < 200 && !"STARTED".equals(server.getState()); i++) {
            Thread.sleep(10);
        }
        endpoint = URI.create("http://127.0.0.1:" + server.getPort());
        try (S3Client admin = S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(AnonymousCredentialsProvider.create()).build()) {
            admin.createBucket(b -> b.bucket(BUCKET));
        }
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.stop();
    }

    @Override
    protected Store newStore(Path dir) {
        return Stores.open("s3://" + BUCKET + "/test-" + PREFIXES.incrementAndGet() + "/data.zarr",
                StoreOptions.defaults().withEndpoint(endpoint).withAnonymous(true).withRegion("us-east-1"));
    }

    @Test
    void describesItselfWithTheLocationAndTheEndpoint() {
        assertTrue(store.toString().matches("S3Store\\(s3://zd-contract/test-\\d+/data\\.zarr, endpoint=http://127\\.0\\.0\\.1:\\d+\\)"),
                store.toString());
    }
}
