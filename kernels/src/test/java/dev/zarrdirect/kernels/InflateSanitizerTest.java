// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.zip.Deflater;

import org.junit.jupiter.api.Test;

import static dev.zarrdirect.kernels.InflateTestSupport.*;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The host build of the deflate decoders under AddressSanitizer and UBSan, driven by
 * src/test/c/zd_inflate_fuzz_driver.c: truncated and bit-flipped streams decoded into exactly
 * sized heap buffers, so any read or write outside them stops the driver. Skipped where gcc
 * cannot build with the sanitizers.
 */
class InflateSanitizerTest {
    @Test
    void corruptedStreamsStayInsideTheirBuffersUnderAddressSanitizer() throws IOException {
        Path dir = Files.createTempDirectory("zd-inflate-asan");
        Path lib = dir.resolve("libzdasan.so"), fuzz = dir.resolve("inffuzz");
        try {
            // -O0: the sanitized build of every kernel took most of this test's 19 s at -O1 (2 cores)
            HostKernels.run(List.of("gcc", "-std=gnu11", "-O0", "-g", "-fsanitize=address,undefined",
                    "-fno-sanitize-recover=undefined", "-shared", "-fPIC", "-pthread", "-I", HostKernels.C_SRC.toString(),
                    HostKernels.C_SRC.resolve("host/zd_host.c").toString(), "-o", lib.toString(), "-lm"), dir);
            HostKernels.run(List.of("gcc", "-O0", "-g", "-fsanitize=address,undefined",
                    HostKernels.TEST_C.resolve("zd_inflate_fuzz_driver.c").toAbsolutePath().toString(), "-o", fuzz.toString(),
                    "-L" + dir, "-lzdasan", "-Wl,-rpath," + dir), dir);
        } catch (IOException e) {
            assumeTrue(false, "no sanitizer build here: " + e.getMessage());
        }
        try {
            fuzzEveryFormat(dir, fuzz);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) Files.deleteIfExists(p);
            }
            Files.deleteIfExists(dir);
        }
    }

    private static void fuzzEveryFormat(Path dir, Path fuzz) throws IOException {
        Random r = new Random(SEED ^ 0xA5A);
        int f = 0;
        for (String kind : new String[] {"text", "runs", "random"}) {
            byte[] d = data(kind, 30_000 + r.nextInt(20_000), r);
            for (int format = RAW; format <= GZIP; format++) {
                byte[] s = format == GZIP ? gzipMember(d, 6, Deflater.DEFAULT_STRATEGY, FHCRC | FNAME, null, "x", null)
                        : encode(format, d, format == RAW ? 1 : 9, Deflater.DEFAULT_STRATEGY);
                Path zs = dir.resolve("s" + f + ".z"), orig = dir.resolve("s" + f + ".o");
                f++;
                Files.write(zs, s);
                Files.write(orig, d);
                String out = HostKernels.run(List.of(fuzz.toString(), zs.toString(), orig.toString(), Integer.toString(format), "150"), dir);
                assertFalse(out.contains("Sanitizer"), out);
                assertTrue(out.contains("rejected"), out);
                System.out.print("asan " + FORMATS[format] + " " + kind + ": " + out);
            }
        }
    }
}
