// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import com.sun.net.httpserver.HttpServer;
import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import dev.zarrdirect.core.metadata.FillValue;
import dev.zarrdirect.core.store.fs.FileSystemStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The CLI on the other store forms: a .zip file and an HTTP server without listing or ranges. */
class RemoteStoreCliTest {

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
    void infoAndChecksumWorkOnAZipAndOverHttpWithTheSameChecksum() throws Exception {
        Path dir = array();
        String local = CliEndToEndTest.run("checksum", dir.toString()).out().lines().findFirst().orElseThrow();

        Path zip = tmp.resolve("a.zip");
        var conv = CliEndToEndTest.run("convert", dir.toString(), zip.toString());
        assertEquals(0, conv.code(), conv.err());
        assertEquals(local, CliEndToEndTest.run("checksum", zip.toString()).out().lines().findFirst().orElseThrow());
        var zipInfo = CliEndToEndTest.run("info", zip.toString());
        assertEquals(0, zipInfo.code(), zipInfo.err());
        assertTrue(zipInfo.out().contains("3 of 3 present"), zipInfo.out());

        // A plain file server: no listing, no Range support (whole bodies, status 200).
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            Path f = dir.resolve(ex.getRequestURI().getPath().substring(1));
            if (!Files.isRegularFile(f)) {
                ex.sendResponseHeaders(404, -1);
            } else {
                byte[] body = Files.readAllBytes(f);
                ex.sendResponseHeaders(200, body.length);
                try (OutputStream os = ex.getResponseBody()) {
                    os.write(body);
                }
            }
            ex.close();
        });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
            var sum = CliEndToEndTest.run("checksum", url);
            assertEquals(0, sum.code(), sum.err());
            assertEquals(local, sum.out().lines().findFirst().orElseThrow());
            var info = CliEndToEndTest.run("info", url);
            assertEquals(0, info.code(), info.err());
            assertTrue(info.out().contains("unknown of 3") && info.out().contains("cannot list its keys"), info.out());
        } finally {
            server.stop(0);
        }
    }
}
