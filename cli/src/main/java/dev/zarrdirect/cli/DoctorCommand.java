package dev.zarrdirect.cli;

import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.registry.BackendRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/** What this installation can do: Java, backends and their devices, which codec implementation runs where. */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = "Show the Java runtime, the backends found, the default one and why, and the codec implementations.")
final class DoctorCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.println("zarr-direct " + ZarrDirectCli.projectVersion());
        out.println("java:     " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
                + System.getProperty("java.home") + ")");
        out.println("os:       " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors() + " cores");
        BackendRegistry reg = BackendRegistry.discover();
        out.println();
        out.println("backends found (preferred first):");
        if (reg.entries().isEmpty()) {
            out.println("  none: no BackendProvider on the class path");
        }
        for (BackendRegistry.Entry e : reg.entries()) {
            out.println("  " + e.name() + "  priority " + e.priority() + "  "
                    + (e.probe().available() ? "available: " : "unavailable: ") + e.probe().reason());
            if (!e.probe().devices().isEmpty()) {
                out.println("      devices: " + e.probe().devices());
            }
        }
        out.println();
        String chosen;
        try {
            chosen = reg.defaultName();
        } catch (ZarrDirectException e) {
            out.println("default backend: none (" + e.getMessage() + ")");
            hints(out);
            out.flush();
            return ZarrDirectCli.EXIT_FAILURE;
        }
        out.println("default backend: " + chosen + " (" + why() + ")");
        int status = ZarrDirectCli.EXIT_OK;
        try (ZarrContext ctx = ZarrContext.open(chosen)) {
            out.println("default device:  " + ctx.device());
            out.println("worker threads:  " + ctx.parallelism() + threadsWhy());
            // What reads files into device memory (GPUDirect Storage state for CUDA), as a user wants to
            // know before trusting any figure.
            ctx.backend().directReader().ifPresentOrElse(
                    r -> out.println("direct reads:    " + r.describe()),
                    () -> out.println("direct reads:    none (" + (ctx.device().isHost() ? "host backend: reads land in host memory"
                            : "chunks are staged in pinned host memory, then copied") + ")"));
            out.println();
            out.println("codec implementations on " + ctx.device() + ":");
            Map<String, String> codecs = ctx.codecs().describe(ctx.device());
            int w = codecs.keySet().stream().mapToInt(String::length).max().orElse(0);
            codecs.forEach((name, impl) -> out.println("  " + name + " ".repeat(w - name.length() + 2) + impl));
            out.println();
            out.println("codec providers:");
            for (CodecProvider p : ctx.codecs().providers()) {
                out.println("  " + p.name() + "  devices " + new TreeSet<>(p.deviceTypes()) + "  codecs "
                        + new TreeSet<>(p.codecNames()));
            }
        } catch (ZarrDirectException e) {
            out.println("the default backend \"" + chosen + "\" did not start: " + e.getMessage());
            status = ZarrDirectCli.EXIT_FAILURE;
        }
        hints(out);
        out.flush();
        return status;
    }

    private static String why() {
        String p = System.getProperty(BackendRegistry.BACKEND_PROPERTY);
        if (p != null && !p.isBlank() && !p.equalsIgnoreCase("auto")) {
            return "set by -D" + BackendRegistry.BACKEND_PROPERTY + "=" + p;
        }
        String env = System.getenv(BackendRegistry.BACKEND_ENV);
        if (env != null && !env.isBlank() && !env.equalsIgnoreCase("auto")) {
            return "set by " + BackendRegistry.BACKEND_ENV + "=" + env;
        }
        return "the available backend of highest priority";
    }

    private static String threadsWhy() {
        String p = System.getProperty("zarrdirect.threads");
        if (p != null && !p.isBlank()) {
            return " (set by -Dzarrdirect.threads)";
        }
        String env = System.getenv("ZARRDIRECT_THREADS");
        if (env != null && !env.isBlank()) {
            return " (set by ZARRDIRECT_THREADS)";
        }
        return " (one per available processor)";
    }

    private static void hints(PrintWriter out) {
        out.println();
        out.println("hints:");
        out.println("  choose a backend: --backend NAME on a command, -D" + BackendRegistry.BACKEND_PROPERTY
                + "=NAME, or " + BackendRegistry.BACKEND_ENV + "=NAME");
        out.println("  choose a codec implementation: -Dzarrdirect.codec.zstd=PROVIDER or ZARRDIRECT_CODEC_ZSTD=PROVIDER");
        out.println("  worker threads: -Dzarrdirect.threads=N or ZARRDIRECT_THREADS=N");
        out.println("  a backend is a jar on the class path listing a BackendProvider in META-INF/services");
    }
}
