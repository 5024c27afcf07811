// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * OpenCL C source read from class-path resources, with {@code #include "path.h"} lines replaced by
 * the included file (each file at most once), so that the program built at run time needs no
 * include directory on disk and its cache key covers every byte compiled. An include is looked up
 * next to the including file first, then under each include root ({@code -I}, as resource paths).
 *
 * <h2>Kernel development</h2>
 * With {@value #KERNELS_DIR_PROPERTY} set to a directory (the kernels module's {@code src/main/c}),
 * resources under {@value #KERNELS_PREFIX} are read from that directory instead, so an edited
 * kernel runs without rebuilding a jar; the tests of this module set it.
 */
public final class KernelSource {

    /** A directory that replaces the {@value #KERNELS_PREFIX} resources; for kernel development and tests. */
    public static final String KERNELS_DIR_PROPERTY = "zarrdirect.opencl.kernelsDir";
    /** Where the kernels module puts its sources in its jar. */
    public static final String KERNELS_PREFIX = "dev/zarrdirect/kernels/";

    private static final Pattern INCLUDE = Pattern.compile("^\\s*#\\s*include\\s+\"([^\"]+)\"\\s*$");

    private KernelSource() {
    }

    /** True when {@code resource} (a resource path without a leading slash) can be read. */
    public static boolean exists(String resource) {
        return exists(resource, systemDir());
    }

    /** {@link #exists(String)} with {@code dir} (null: none) replacing the {@value #KERNELS_PREFIX} resources. */
    public static boolean exists(String resource, String dir) {
        return read(normalize(resource), dir) != null;
    }

    /** The {@value #KERNELS_DIR_PROPERTY} of system properties or environment, or null. */
    static String systemDir() {
        return dev.zarrdirect.api.settings.SettingResolver.system().get(OpenClSettings.KERNELS_DIR);
    }

    /**
     * The source of {@code resource} with its includes inlined.
     *
     * @param includeRoots resource directories searched for includes not found next to the includer
     * @throws IllegalArgumentException when it or an included file is missing, naming the includer
     */
    public static String load(String resource, String... includeRoots) {
        return loadFrom(systemDir(), resource, includeRoots);
    }

    /** {@link #load} with {@code dir} (null: none) replacing the {@value #KERNELS_PREFIX} resources. */
    public static String loadFrom(String dir, String resource, String... includeRoots) {
        StringBuilder out = new StringBuilder();
        inline(normalize(resource), null, List.of(includeRoots), out, new HashSet<>(), dir);
        return out.toString();
    }

    private static void inline(String path, String includer, List<String> roots, StringBuilder out, Set<String> seen,
                               String kernelsDir) {
        if (!seen.add(path)) {
            return;
        }
        String text = read(path, kernelsDir);
        if (text == null) {
            throw new IllegalArgumentException("kernel source " + path + " is not on the class path"
                    + (includer == null ? "" : " (included by " + includer + ")")
                    + (path.startsWith(KERNELS_PREFIX) ? "; add the zarr-direct-kernels jar or set -D"
                    + KERNELS_DIR_PROPERTY + "=<kernels/src/main/c>" : ""));
        }
        String dir = path.contains("/") ? path.substring(0, path.lastIndexOf('/') + 1) : "";
        int lineNo = 0;
        for (String line : text.split("\n", -1)) {
            lineNo++;
            Matcher m = INCLUDE.matcher(line);
            if (!m.matches()) {
                out.append(line).append('\n');
                continue;
            }
            List<String> candidates = new ArrayList<>();
            candidates.add(normalize(dir + m.group(1)));
            for (String r : roots) {
                candidates.add(normalize(r + "/" + m.group(1)));
            }
            String found = candidates.stream().filter(c -> read(c, kernelsDir) != null).findFirst().orElse(null);
            if (found == null) {
                throw new IllegalArgumentException("kernel include \"" + m.group(1) + "\" of " + path + ":" + lineNo
                        + " is not on the class path; looked at " + candidates);
            }
            inline(found, path + ":" + lineNo, roots, out, seen, kernelsDir);
            out.append('\n');
        }
    }

    private static String read(String path, String dir) {
        try {
            if (dir != null && !dir.isBlank() && path.startsWith(KERNELS_PREFIX)) {
                Path f = Path.of(dir).resolve(path.substring(KERNELS_PREFIX.length()));
                return Files.isRegularFile(f) ? Files.readString(f, StandardCharsets.UTF_8) : null;
            }
            try (InputStream in = dev.zarrdirect.kernels.KernelResources.open(path)) {
                return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading kernel source " + path, e);
        }
    }

    private static String normalize(String path) {
        java.util.ArrayDeque<String> parts = new java.util.ArrayDeque<>();
        for (String p : path.split("/")) {
            if (p.isEmpty() || p.equals(".")) {
                continue;
            }
            if (p.equals("..")) {
                if (parts.isEmpty()) {
                    throw new IllegalArgumentException("kernel include " + path + " leaves the class path root");
                }
                parts.removeLast();
            } else {
                parts.addLast(p);
            }
        }
        return String.join("/", parts);
    }
}
