// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.interop;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs the Node scripts of interop/ (zarrita.js 0.7.5 and numcodecs.js 0.3.2, pinned in
 * interop/package-lock.json) for the zarrita interop tests.
 *
 * <h2>Availability</h2>
 * {@link #start()} finds interop/ above the working directory, checks that {@code node} runs and
 * runs {@code npm ci --prefix interop} when node_modules is missing. When either fails the calling
 * test is skipped with the reason, except under CI ({@code CI=true}), where it fails, so interop
 * cannot silently stop being checked.
 */
final class ZarritaNode {

    /** What a command printed and how it ended; {@code exit} is -1 when it could not run or timed out. */
    record Result(int exit, String out, String err) {
    }

    private final Path interop;

    private ZarritaNode(Path interop) {
        this.interop = interop;
    }

    /** Node and the interop packages, ready; skips (or, under CI, fails) the caller otherwise. */
    static ZarritaNode start() {
        Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        while (root != null && !Files.isDirectory(root.resolve("interop"))) {
            root = root.getParent();
        }
        assertNotNull(root, "no interop/ folder above " + System.getProperty("user.dir"));
        Path interop = root.resolve("interop");
        boolean ci = "true".equals(System.getenv("CI"));
        if (run(List.of("node", "--version"), root, 30).exit != 0) {
            if (ci) {
                fail("node is not on the PATH; CI must install Node to run the zarrita interop tests");
            }
            Assumptions.abort("node is not on the PATH: zarrita interop skipped");
        }
        if (!Files.isDirectory(interop.resolve("node_modules/zarrita"))) {
            Result r = run(List.of("npm", "ci", "--prefix", interop.toString(), "--no-audit", "--no-fund"), root, 300);
            if (r.exit != 0) {
                if (ci) {
                    fail("npm ci --prefix interop failed: " + r.err);
                }
                Assumptions.abort("npm ci --prefix interop failed (no registry?): " + r.err);
            }
        }
        return new ZarritaNode(interop);
    }

    /** The interop/ folder. */
    Path dir() {
        return interop;
    }

    /** Runs {@code cmd} in {@code dir}, waiting at most {@code seconds}. */
    static Result run(List<String> cmd, Path dir, int seconds) {
        try {
            Path out = Files.createTempFile("zd-node", ".out");
            Path err = Files.createTempFile("zd-node", ".err");
            try {
                Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
                        .redirectError(err.toFile()).start();
                if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return new Result(-1, "", String.join(" ", cmd) + " timed out after " + seconds + " s");
                }
                return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            return new Result(-1, "", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "", e.toString());
        }
    }

    /** Runs {@code node interop/SCRIPT ARGS...} in interop/. */
    Result script(String script, String... args) {
        List<String> cmd = new ArrayList<>(List.of("node", interop.resolve(script).toString()));
        cmd.addAll(List.of(args));
        return run(cmd, interop, 300);
    }

    /** Runs a script that writes fixtures and asserts that it succeeded. */
    void write(String script, String... args) {
        Result w = script(script, args);
        assertEquals(0, w.exit, script + " " + String.join(" ", args) + " failed: " + w.out + w.err);
    }

    /**
     * RELPATH to the SHA-256 zarrita computes for every array (v3 or v2) under {@code dir}, or to
     * {@code "error MESSAGE"} where it cannot read one (checksum-all.mjs).
     */
    Map<String, String> checksums(Path dir) {
        Result r = script("checksum-all.mjs", dir.toString());
        Map<String, String> out = new TreeMap<>();
        for (String line : r.out.split("\n")) {
            String[] f = line.trim().split(" ", 3);
            if (f.length == 3) {
                out.put(f[0], f[1].equals("sha256") ? f[2] : "error " + f[2]);
            }
        }
        assertFalse(out.isEmpty(), "zarrita printed nothing: " + r.out + r.err);
        return out;
    }
}
