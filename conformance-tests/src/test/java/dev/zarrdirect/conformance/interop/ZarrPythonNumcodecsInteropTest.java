// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.interop;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.json.Json;
import dev.zarrdirect.core.registry.BackendRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Zarr v2 arrays written by zarr-python 2 with numcodecs (c-blosc 1.21 over every internal
 * compressor, shuffle mode and element size, clevels 0 to 9, forced and automatic block sizes, C
 * and F order, big-endian elements, incompressible data, zlib, gzip, zlib after a 2-byte shuffle,
 * delta before zlib and blosc for element sizes 1 to 8 and floats; one chunk of each left unwritten),
 * read by the CPU backend and by every device backend available here (PoCL's OpenCL in CI, CUDA and
 * OpenCL on a GPU machine): each must give exactly the bytes zarr-python reads back.
 *
 * <p>The corpus is made by src/test/python/make_numcodecs_corpus.py with Debian's /usr/bin/python3;
 * without python3-zarr the test is skipped, unless ZD_REQUIRE_PYTHON=1 makes it fail.
 * ZD_NUMCODECS_CORPUS=DIR reads a corpus made beforehand instead (for machines without zarr-python).
 */
class ZarrPythonNumcodecsInteropTest {

    /** From the module (Maven) or the repository's root (the GPU machine's test runner). */
    static final Path SCRIPT = java.util.stream.Stream.of("src/test/python", "conformance-tests/src/test/python")
            .map(d -> Path.of(d, "make_numcodecs_corpus.py")).filter(Files::isRegularFile).findFirst()
            .orElse(Path.of("src/test/python/make_numcodecs_corpus.py"));
    static final String PYTHON = "/usr/bin/python3";

    @TempDir
    static Path dir;
    static List<Map<String, Object>> arrays = List.of();
    static String skipped;

    @BeforeAll
    static void makeCorpus() throws IOException, InterruptedException {
        boolean required = "1".equals(System.getenv("ZD_REQUIRE_PYTHON"));
        String made = System.getenv("ZD_NUMCODECS_CORPUS"); // made elsewhere (a GPU machine has no zarr-python)
        if (made != null && !made.isBlank()) {
            dir = Path.of(made);
        } else if (!Files.isExecutable(Path.of(PYTHON))) {
            skipped = PYTHON + " is missing";
        } else {
            Process p = new ProcessBuilder(PYTHON, SCRIPT.toString(), dir.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("make_numcodecs_corpus.py did not finish in 120 s: " + out);
            }
            if (p.exitValue() != 0) {
                if (out.contains("ModuleNotFoundError")) {
                    skipped = PYTHON + " lacks zarr-python or numcodecs (apt-get install python3-zarr python3-numcodecs): "
                            + out.strip();
                } else {
                    fail("make_numcodecs_corpus.py failed (" + p.exitValue() + "): " + out);
                }
            }
        }
        if (skipped != null) {
            assertTrue(!required, "ZD_REQUIRE_PYTHON=1 but " + skipped);
            return;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> manifest = (Map<String, Object>) Json.parse(Files.readString(dir.resolve("manifest.json")),
                "manifest.json");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> list = (List<Map<String, Object>>) manifest.get("arrays");
        arrays = list;
        assertTrue(arrays.size() >= 30, "the corpus lists " + arrays.size() + " arrays");
    }

    @TestFactory
    Stream<DynamicTest> everyBackendReadsWhatZarrPythonReads() {
        assumeTrue(skipped == null, skipped);
        List<String> backends = new ArrayList<>();
        for (BackendRegistry.Entry e : BackendRegistry.discover().entries()) {
            if (e.probe().available()) {
                backends.add(e.name());
            }
        }
        return backends.stream().map(b -> DynamicTest.dynamicTest(b + " reads the zarr-python corpus", () -> check(b)));
    }

    private static void check(String backend) throws IOException {
        try (ZarrContext ctx = ZarrContext.open(backend, 2)) {
            for (Map<String, Object> a : arrays) {
                String name = (String) a.get("name");
                byte[] expect = Files.readAllBytes(dir.resolve(name + ".bin"));
                String what = backend + " " + name + " " + a.get("compressor") + " filters " + a.get("filters");
                try (var store = dev.zarrdirect.core.store.fs.FileSystemStore.open(dir)) {
                    ZarrArray array = Zarr.openArray(ctx, store, name);
                    if (backend.equals("cpu")) {
                        try (Tensor t = array.read()) {
                            compare(what, expect, t.segment());
                        }
                    } else {
                        // the device decodes these itself: every blosc compressor, zlib, and the
                        // shuffle and delta filters
                        boolean deviceCodec = ((List<?>) a.get("filters")).stream()
                                .allMatch(f -> List.of("shuffle", "delta").contains(((Map<?, ?>) f).get("id")));
                        if (deviceCodec) {
                            assertTrue(array.devicePath().startsWith("batched decode on"), what + ": " + array.devicePath());
                        }
                        try (Tensor t = array.readToDevice(Selection.all(array.shape()));
                             HostBuffer back = HostBuffer.allocate(Math.max(1, t.byteSize()))) {
                            ctx.backend().copy(t.buffer(), t.byteOffset(), back, 0, t.byteSize());
                            compare(what, expect, back.segment().asSlice(0, t.byteSize()));
                        }
                    }
                }
            }
        }
    }

    private static void compare(String what, byte[] expect, MemorySegment got) {
        assertEquals(expect.length, got.byteSize(), what + ": bytes");
        long m = MemorySegment.ofArray(expect).mismatch(got);
        assertEquals(-1, m, what + ": first difference at byte " + m);
    }
}
