// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The generated OpenCL blosc program (opencl/zd_blosc_flat.cl) built and run by the first OpenCL
 * platform there is (PoCL on the CPU in CI) over the c-blosc corpus, through src/test/c/zd_blosc_opencl_run.c.
 * Skipped where there is no OpenCL platform. The zstd entry is left out: PoCL 3.1 cannot compile it.
 */
class BloscOpenClTest {
    @Test
    void openClLzEntriesDecodeTheCorpus() throws Exception {
        Path flat = HostKernels.C_SRC.resolve("../../../target/classes/dev/zarrdirect/kernels/opencl/zd_blosc_flat.cl")
                .normalize();
        Assumptions.assumeTrue(Files.exists(flat), "no generated " + flat + " (run through Maven)");
        Path dir = Files.createTempDirectory("zd-blosc-ocl");
        Path exe = dir.resolve("blosc-ocl");
        HostKernels.run(List.of("gcc", "-O1", "-o", exe.toString(),
                HostKernels.TEST_C.resolve("zd_blosc_opencl_run.c").toString(), "-ldl"), dir);
        Path corpus = Path.of(BloscOpenClTest.class.getResource("/blosc/corpus.bin").toURI());
        Process p = new ProcessBuilder(new ArrayList<>(List.of(exe.toString(), flat.toString(), corpus.toString(),
                "quick"))).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "timed out");
        Assumptions.assumeTrue(p.exitValue() != 77, "no OpenCL platform: " + out);
        System.out.print(out);
        assertEquals(0, p.exitValue(), out);
    }
}
