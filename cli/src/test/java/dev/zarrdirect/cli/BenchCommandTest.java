// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class BenchCommandTest {

    @TempDir
    Path tmp;

    @Test
    void theFileReadLimitReadsEveryStoredByteOfFilesOfAnySize() throws Exception {
        // ranges of 4 MiB: files shorter than one, of exactly one, one byte past, and several with a tail
        long[] sizes = {0, 1, 4 << 20, (4 << 20) + 1, (9L << 20) + 3};
        Path dir = Files.createDirectories(tmp.resolve("files"));
        var r = new java.util.Random(7);
        for (int i = 0; i < sizes.length; i++) {
            byte[] b = new byte[(int) sizes[i]];
            r.nextBytes(b);
            Files.write(dir.resolve("c" + i), b);
        }
        Files.writeString(dir.resolve("zarr.json"), "{}");
        var store = dev.zarrdirect.core.store.fs.FileSystemStore.openReadOnly(dir);
        // it throws when the bytes read are not the files' sizes summed
        assertTrue(BenchCommand.fileReadRate(store, "the test files", 3) > 0);
        assertTrue(BenchCommand.fileReadRate(store, "the test files", 1) > 0);
    }

    @Test
    void benchGeneratesBothLayoutsWithTheSameElementsAndReportsAMedian() {
        Path plain = tmp.resolve("plain");
        Path sharded = tmp.resolve("sharded");
        var a = CliEndToEndTest.run("bench", plain.toString(), "--generate", "era5", "--shape", "3,9,5,7", "--passes", "2",
                "--limits");
        assertEquals(0, a.code(), a.err());
        assertTrue(a.out().matches("(?s).*result:   cpu +median [0-9.]+ GB/s decoded \\(min [0-9.]+, max [0-9.]+; passes \\[.*"),
                a.out());
        assertTrue(a.out().contains("limit:    min(read, copy) x ratio"), a.out());
        var b = CliEndToEndTest.run("bench", sharded.toString(), "--generate", "era5-sharded", "--shape", "3,9,5,7",
                "--passes", "1");
        assertEquals(0, b.code(), b.err());
        assertTrue(b.out().contains("sharding_indexed"), b.out());
        String shaA = CliEndToEndTest.run("checksum", plain.toString()).out().lines().findFirst().orElseThrow();
        String shaB = CliEndToEndTest.run("checksum", sharded.toString()).out().lines().findFirst().orElseThrow();
        assertEquals(shaA, shaB, "the two layouts hold the same elements");
        // computed with the CLI's own generator at 732b923, before the testkit had it, so figures compare
        assertEquals("sha256 770ec40202ccbb79be6dc1d4f0fc2c75cca5a76674088867bc401f8bafb7d14e", shaA);
        var again = CliEndToEndTest.run("bench", plain.toString(), "--generate", "era5", "--shape", "3,9,5,7", "--passes", "1");
        assertTrue(again.err().contains("reusing the complete store"), again.err());
    }

    @Test
    void benchRefusesToGenerateOverAStoreItDidNotWrite() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("mine"));
        Files.writeString(dir.resolve("notes.txt"), "keep");
        var r = CliEndToEndTest.run("bench", dir.toString(), "--generate", "era5", "--shape", "1,1,2,2");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("neither empty nor a store bench generated"), r.err());
        assertTrue(Files.exists(dir.resolve("notes.txt")));
    }
}
