// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.backend.ProbeResult;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The probe on a machine without the OpenCL library, in a child JVM so LWJGL's state and stderr are its own. */
class QuietProbeTest {

    /** Probes and prints the result on stdout: the child's stderr is then only what the probe printed. */
    public static void main(String[] args) {
        ProbeResult r = new OpenClBackendProvider().probe();
        System.out.println((r.available() ? "available: " : "unavailable: ") + r.reason());
    }

    /**
     * The class path this test was loaded from: {@code java.class.path} under Maven, plus the
     * entries of the class loaders above this class where a launcher made its own (the JUnit console
     * launcher's {@code --class-path}, as on the GPU machine, leaves {@code java.class.path} its jar alone).
     */
    private static String classPath() throws URISyntaxException {
        List<String> parts = new ArrayList<>(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        for (ClassLoader l = QuietProbeTest.class.getClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader u) {
                for (URL url : u.getURLs()) {
                    parts.add(Path.of(url.toURI()).toString());
                }
            }
        }
        return String.join(File.pathSeparator, parts);
    }

    @Test
    void aMissingOpenClLibraryPrintsNothingOnStderrAndTheProbeSaysWhy() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-Dorg.lwjgl.opencl.libname=libNoSuchOpenCL.so.1",
                "-cp", classPath(), QuietProbeTest.class.getName())).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String stdout = new String(out, StandardCharsets.UTF_8);
        String stderr = new String(err, StandardCharsets.UTF_8);

        assertEquals(0, p.exitValue(), stdout + stderr);
        assertFalse(stderr.contains("[LWJGL]"), stderr);
        assertEquals("", stderr.strip(), stderr);
        assertTrue(stdout.startsWith("unavailable: OpenCL: libNoSuchOpenCL.so.1 not found"), stdout);
    }
}
