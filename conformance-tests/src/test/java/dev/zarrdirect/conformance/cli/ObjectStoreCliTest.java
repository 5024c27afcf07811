// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cli;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.cli.ZarrDirectCli;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CLI on {@code s3://} locations, against s3proxy on 127.0.0.1: convert into a bucket and out of
 * it, info and checksum of the bucket's copy, doctor naming the endpoint and the credentials' source.
 * Here rather than in the cli module, so that s3proxy's dependencies stay off the CLI's class paths.
 */
class ObjectStoreCliTest {

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = ZarrDirectCli.newCommandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @TempDir
    Path tmp;

    private Path array() {
        Path dir = tmp.resolve("a.zarr");
        try (FileSystemStore store = FileSystemStore.create(dir)) {
            ZarrArray a = Zarr.createArray(store, "", ArrayMetadata.create(new long[]{6, 5}, DataType.INT32,
                    new long[]{2, 5}, FillValue.zero(DataType.INT32), List.of(CodecMetadata.of("bytes", Map.of("endian", "little")),
                            CodecMetadata.of("zstd", Map.of("level", 3L, "checksum", false)))));
            try (Tensor t = Tensor.allocateHost(DataType.INT32, 6, 5)) {
                for (int i = 0; i < 30; i++) {
                    t.segment().setAtIndex(ValueLayout.JAVA_INT, i, i * 7 - 3);
                }
                a.write(t);
            }
        }
        return dir;
    }

    @Test
    void convertIntoABucketThenInfoChecksumAndConvertBackMatchTheLocalArray() throws Exception {
        S3Proxy server = S3Proxy.builder().blobStore(new TransientNio2BlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.NONE, null, null).jettyMaxThreads(16).build();
        server.start();
        try (HttpClient http = HttpClient.newHttpClient()) {
            for (int i = 0; i < 200 && !"STARTED".equals(server.getState()); i++) {
                Thread.sleep(10);
            }
            String endpoint = "http://127.0.0.1:" + server.getPort();
            HttpResponse<String> made = http.send(HttpRequest.newBuilder(URI.create(endpoint + "/zd-cli"))
                    .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, made.statusCode(), made.body());
            Path dir = array();
            String local = run("checksum", dir.toString()).out().lines().findFirst().orElseThrow();

            var conv = run("convert", dir.toString(), "s3://zd-cli/a.zarr", "--chunks", "1,5",
                    "--endpoint-url", endpoint, "--no-sign-request");
            assertEquals(0, conv.code(), conv.err() + conv.out());
            assertTrue(conv.out().contains("destination:  S3Store(s3://zd-cli/a.zarr, endpoint=" + endpoint + ")"),
                    conv.out());
            var sum = run("checksum", "s3://zd-cli/a.zarr", "--endpoint-url", endpoint, "--no-sign-request");
            assertEquals(0, sum.code(), sum.err());
            assertEquals(local.split(" ")[0], sum.out().lines().findFirst().orElseThrow().split(" ")[0]);
            var info = run("info", "s3://zd-cli/a.zarr", "--endpoint-url", endpoint, "--no-sign-request");
            assertEquals(0, info.code(), info.err());
            assertTrue(info.out().contains("[1, 5]"), info.out());

            Path back = tmp.resolve("back.zarr");
            var out = run("convert", "s3://zd-cli/a.zarr", back.toString(), "--chunks", "3,5",
                    "--endpoint-url", endpoint, "--no-sign-request", "--verify");
            assertEquals(0, out.code(), out.err() + out.out());
            assertEquals(local, run("checksum", back.toString()).out().lines().findFirst().orElseThrow());

            var missing = run("info", "s3://zd-none/a.zarr", "--endpoint-url", endpoint, "--no-sign-request");
            assertEquals(1, missing.code(), missing.out());
            assertTrue(missing.err().contains("the bucket \"zd-none\" does not exist"), missing.err());

            var doctor = run("doctor", "--endpoint-url", endpoint, "--no-sign-request");
            assertTrue(doctor.out().contains("object stores: gs://, s3://")
                    && doctor.out().contains("s3 credentials: none: anonymous, unsigned requests (--no-sign-request)")
                    && doctor.out().contains("s3 endpoint:    " + endpoint + " (set by option)"), doctor.out());
            assertFalse(doctor.out().contains("SECRET"), doctor.out());
        } finally {
            server.stop();
        }
    }
}
