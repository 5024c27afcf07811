// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.codec.CodecProvider;
import dev.zarrdirect.api.settings.ResolvedSetting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingSource;
import dev.zarrdirect.api.store.StoreOptions;
import dev.zarrdirect.api.store.StoreProvider;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.registry.BackendRegistry;
import dev.zarrdirect.core.store.Stores;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/** What this installation can do: Java, backends and their devices, which codec implementation runs where. */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = "Show the Java runtime, the backends found, the default one and why, and the codec implementations.")
final class DoctorCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    RemoteOptions remote;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.println("zarr-direct " + ZarrDirectCli.projectVersion());
        out.println("java:     " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
                + System.getProperty("java.home") + ")");
        out.println("os:       " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors() + " cores");
        printObjectStores(out);
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
        ResolvedSetting<String> backendSetting;
        try {
            backendSetting = SettingResolver.system(ZarrDirectCli.explicitSettings()).resolve(BackendRegistry.BACKEND);
            chosen = reg.resolveName(backendSetting.value());
        } catch (ZarrDirectException e) {
            out.println("default backend: none (" + Text.escape(e.getMessage()) + ")");
            hints(out);
            out.flush();
            return ZarrDirectCli.EXIT_FAILURE;
        }
        out.println("default backend: " + chosen + " (" + why(backendSetting) + ")");
        int status = ZarrDirectCli.EXIT_OK;
        try (ZarrContext ctx = ZarrDirectCli.openContext(chosen)) {
            out.println("default device:  " + ctx.device());
            out.println("worker threads:  " + ctx.parallelism() + threadsWhy(ctx));
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
            out.println();
            printSettings(out, ctx.settings());
        } catch (InvalidSettingException e) {
            throw e; // bad usage: exit code 2
        } catch (ZarrDirectException e) {
            out.println("the default backend \"" + chosen + "\" did not start: " + Text.escape(e.getMessage()));
            status = ZarrDirectCli.EXIT_FAILURE;
        }
        hints(out);
        out.flush();
        return status;
    }

    /**
     * The store providers found and, for each scheme, where credentials, endpoint and region would
     * come from with these options: never a secret.
     */
    private void printObjectStores(PrintWriter out) {
        out.println();
        Map<String, StoreProvider> providers;
        try {
            providers = Stores.providers();
        } catch (ZarrDirectException e) {
            out.println("object stores: " + Text.escape(e.getMessage()));
            return;
        }
        if (providers.isEmpty()) {
            out.println("object stores: none (no StoreProvider on the class path; add zarr-direct-store-cloud for"
                    + " s3:// and gs://)");
            return;
        }
        out.println("object stores: " + String.join(", ", providers.keySet().stream().map(s -> s + "://").toList()));
        StoreOptions options = remote.storeOptions();
        for (StoreProvider p : new java.util.LinkedHashSet<>(providers.values())) {
            out.println("  " + p.name());
            for (String line : p.describeConfiguration(options)) {
                out.println("    " + Text.escape(line));
            }
        }
    }

    private static String why(ResolvedSetting<String> backend) {
        if (backend.source() != SettingSource.DEFAULT && !backend.value().equalsIgnoreCase("auto")) {
            return "set by " + source(backend);
        }
        return "the available backend of highest priority";
    }

    private static String threadsWhy(ZarrContext ctx) {
        return ctx.settings().stream().filter(r -> r.setting().equals(ZarrContext.THREADS)).findFirst()
                .map(r -> r.source() == SettingSource.DEFAULT ? " (one per available processor)" : " (set by " + source(r) + ")")
                .orElse("");
    }

    /** {@code ZARRDIRECT_THREADS}, {@code -Dzarrdirect.threads}, {@code --set}. */
    private static String source(ResolvedSetting<?> r) {
        return r.source() == SettingSource.EXPLICIT ? "--set" : r.source().describe(r.setting());
    }

    /**
     * Every setting in force, one a line: {@code decodeDepth = 3 (default)},
     * {@code threads = 8 (ZARRDIRECT_THREADS)}, {@code cuda.batchBytes = 512m (--set)}.
     */
    static void printSettings(PrintWriter out, List<ResolvedSetting<?>> settings) {
        out.println("settings in force (docs/settings.md lists them all):");
        for (ResolvedSetting<?> r : settings) {
            out.println("  " + r.setting().shortName() + " = " + Text.escape(r.valueText()) + " ("
                    + (r.source() == SettingSource.DEFAULT ? "default" : source(r)) + ")");
        }
    }

    private static void hints(PrintWriter out) {
        out.println();
        out.println("hints:");
        out.println("  choose a backend: --backend NAME on a command, --set backend=NAME, -D" + BackendRegistry.BACKEND_PROPERTY
                + "=NAME, or " + BackendRegistry.BACKEND_ENV + "=NAME");
        out.println("  choose a codec implementation: --set codec.zstd=PROVIDER, -Dzarrdirect.codec.zstd=PROVIDER"
                + " or ZARRDIRECT_CODEC_ZSTD=PROVIDER");
        out.println("  worker threads: --set threads=N, -Dzarrdirect.threads=N or ZARRDIRECT_THREADS=N");
        out.println("  any setting: --set NAME=VALUE (docs/settings.md); --set wins over -D, which wins over the environment");
        out.println("  a backend is a jar on the class path listing a BackendProvider in META-INF/services");
    }
}
