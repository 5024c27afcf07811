// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu.codec.bytestobytes;

import dev.zarrdirect.cpu.CpuBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.zarrdirect.cpu.Chunks.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Blosc1 buffers written by c-blosc 1.x (numcodecs.js, WebAssembly) decode to the data they were made
 * from; see {@code src/test/resources/blosc/README.md}. With {@code -Dzd.blosc.exportDir=DIR} the test
 * also writes buffers encoded here, with a manifest, for {@code make-vectors.mjs check DIR}.
 */
class BloscVectorsTest {

    private final CpuBackend backend = trackingBackend();

    @AfterEach
    void noLeaks() {
        backend.assertNoLiveBuffers();
        backend.close();
    }

    /** One entry of vectors.json. */
    record Vector(String file, String cname, int clevel, String shuffle, String kind, int blocksize, int nbytes,
                  String sha256) {
    }

    /** The same generator as make-vectors.mjs: xorshift32 noise, "smooth" int32 values or random bytes. */
    static byte[] data(String kind, int n) {
        byte[] out = new byte[n];
        int[] x = {(int) 2463534242L};
        java.util.function.IntSupplier next = () -> {
            int v = x[0];
            v ^= v << 13;
            v ^= v >>> 17;
            v ^= v << 5;
            return x[0] = v;
        };
        if (kind.equals("random")) {
            for (int i = 0; i < n; i++) {
                out[i] = (byte) next.getAsInt();
            }
            return out;
        }
        for (int i = 0; i < n; i += 4) {
            int m = (i / 4) % 1000;
            int v = 250000 + (((m * (1000 - m)) >> 4) & ~15) + ((next.getAsInt() & 15) == 0 ? 1 : 0);
            for (int b = 0; b < 4 && i + b < n; b++) {
                out[i + b] = (byte) (v >>> (8 * b));
            }
        }
        return out;
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = BloscVectorsTest.class.getResourceAsStream("/blosc/" + name)) {
            assertNotNull(in, "test resource blosc/" + name);
            return in.readAllBytes();
        }
    }

    /** Reads vectors.json: a flat list of flat objects, so a pattern is enough (no JSON library here). */
    static List<Vector> manifest() throws IOException {
        String json = new String(resource("vectors.json"), StandardCharsets.UTF_8);
        List<Vector> out = new ArrayList<>();
        Matcher m = Pattern.compile("\\{([^}]*)}").matcher(json);
        while (m.find()) {
            Map<String, String> f = new java.util.HashMap<>();
            Matcher kv = Pattern.compile("\"(\\w+)\":\\s*(\"([^\"]*)\"|(-?\\d+))").matcher(m.group(1));
            while (kv.find()) {
                f.put(kv.group(1), kv.group(3) != null ? kv.group(3) : kv.group(4));
            }
            out.add(new Vector(f.get("file"), f.get("cname"), Integer.parseInt(f.get("clevel")), f.get("shuffle"),
                    f.get("kind"), Integer.parseInt(f.get("blocksize")), Integer.parseInt(f.get("nbytes")),
                    f.get("sha256")));
        }
        return out;
    }

    @Test
    void generatorMatchesTheOneThatMadeTheVectors() throws IOException {
        for (Vector v : manifest()) {
            assertEquals(v.sha256(), sha256(data(v.kind(), v.nbytes())), v.file());
        }
    }

    @Test
    void buffersWrittenByCBloscThroughNumcodecsJsDecodeToTheirData() throws IOException {
        List<Vector> vectors = manifest();
        assertTrue(vectors.size() >= 20, "vectors listed: " + vectors.size());
        BloscCodec codec = BloscCodec.create(Map.of());
        for (Vector v : vectors) {
            byte[] decoded = decode(backend, codec, resource(v.file()), v.nbytes(), "vector " + v.file());
            assertEquals(v.sha256(), sha256(decoded), v.file());
        }
    }

    @Test
    void buffersWrittenHereAreExportedForNumcodecsJsWhenAskedTo() throws IOException {
        String dir = System.getProperty("zd.blosc.exportDir");
        org.junit.jupiter.api.Assumptions.assumeTrue(dir != null, "set -Dzd.blosc.exportDir to export");
        Path out = Files.createDirectories(Path.of(dir));
        StringBuilder json = new StringBuilder("[\n");
        int count = 0;
        for (String cname : List.of("blosclz", "lz4", "lz4hc", "zlib", "zstd")) {
            for (String shuffle : List.of("noshuffle", "shuffle", "bitshuffle")) {
                for (int typesize : new int[] {1, 2, 4, 8}) {
                    for (int n : new int[] {0, 1, 100, 65536, (1 << 20) + 3}) {
                        for (String kind : List.of("smooth", "random")) {
                            BloscCodec codec = BloscCodec.create(Map.of("cname", cname, "shuffle", shuffle,
                                    "typesize", (long) typesize, "clevel", 5L));
                            byte[] raw = data(kind, n);
                            String file = cname + "-" + shuffle + "-t" + typesize + "-" + kind + "-" + n + ".blosc";
                            Files.write(out.resolve(file), encode(backend, codec, raw));
                            json.append(count++ == 0 ? "" : ",\n").append(String.format(
                                    "{\"file\": \"%s\", \"nbytes\": %d, \"sha256\": \"%s\"}", file, n, sha256(raw)));
                        }
                    }
                }
            }
        }
        Files.writeString(out.resolve("vectors.json"), json.append("\n]\n"));
    }
}
