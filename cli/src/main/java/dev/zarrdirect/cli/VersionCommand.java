// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.core.registry.BackendRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * Prints the version of this build (its first line is what {@code --version} prints first), the
 * Java runtime, the operating system and the backends found with whether each is available.
 */
@Command(name = "version", mixinStandardHelpOptions = true,
        description = "Print the version of zarr-direct, the Java runtime, and the backends found.")
final class VersionCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        for (String line : new ZarrDirectCli.Version().getVersion()) {
            out.println(line);
        }
        BackendRegistry reg = BackendRegistry.discover();
        StringBuilder sb = new StringBuilder("backends:");
        if (reg.entries().isEmpty()) {
            sb.append(" none (no BackendProvider on the class path)");
        }
        for (BackendRegistry.Entry e : reg.entries()) {
            sb.append(' ').append(e.name()).append(e.probe().available() ? "" : " (unavailable)");
        }
        out.println(sb);
        out.flush();
        return ZarrDirectCli.EXIT_OK;
    }
}
