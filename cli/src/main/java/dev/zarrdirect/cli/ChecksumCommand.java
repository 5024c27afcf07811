// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ArrayChecksum;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.grid.Shapes;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * The SHA-256 of an array's elements ({@link ArrayChecksum}): the same for the same data whatever the
 * chunking, codecs or backend. For an array: {@code sha256 HEX}, then {@code shape [..] dtype T}. For a
 * group: {@code sha256 HEX  RELPATH} for each array below it.
 */
@Command(name = "checksum", mixinStandardHelpOptions = true,
        description = "Print the SHA-256 of an array's elements (C order, little-endian), or of each array of a group.")
final class ChecksumCommand implements Callable<Integer> {

    /** Arrays at least this large show progress: redrawn on a terminal, a line every few seconds elsewhere. */
    static final long PROGRESS_BYTES = 256L << 20;

    @Mixin
    StoreOptions store;

    @Option(names = "--progress", description = "Show progress on stderr for any array (arrays of 256 MiB or more always "
            + "show it: redrawn on a terminal, a line every few seconds elsewhere).")
    boolean progress;

    @Option(names = "--force", description = "Hash an array even when more than 4 GiB of it is the fill value of "
            + "chunks never written (refused without it, as minutes of work on nothing).")
    boolean force;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (Store s = store.openStore(); ZarrContext ctx = store.openContext()) {
            Object node = store.openNode(ctx, s);
            if (node instanceof ZarrArray a) {
                out.println("sha256 " + checksum(a));
                out.println("shape " + Shapes.format(a.shape()) + " dtype " + a.dataType().name());
            } else {
                group((ZarrGroup) node, "", out);
            }
        }
        out.flush();
        return ZarrDirectCli.EXIT_OK;
    }

    private void group(ZarrGroup g, String prefix, PrintWriter out) {
        for (String name : g.members()) {
            Object child = g.open(name);
            if (child instanceof ZarrArray a) {
                out.println("sha256 " + checksum(a) + "  " + Text.escape(prefix + name));
                out.flush();
            } else {
                group((ZarrGroup) child, prefix + name + "/", out);
            }
        }
    }

    private String checksum(ZarrArray a) {
        long bytes = Shapes.product(a.shape()) * a.dataType().byteSize();
        DeclaredWork.check(a, bytes, "checksum of " + Text.escape("\"/" + a.path() + "\""), force);
        boolean terminal = Progress.stderrIsTerminal();
        if (!progress && bytes < PROGRESS_BYTES) {
            return ArrayChecksum.sha256(a);
        }
        long mib = Math.max(1, (bytes + (1 << 20) - 1) >> 20);
        Progress p = new Progress(spec.commandLine().getErr(), terminal, Text.escape("/" + a.path()), "MiB", mib);
        String hex = ArrayChecksum.sha256(a, done -> p.update((done + (1 << 20) - 1) >> 20, done));
        p.finish();
        return hex;
    }
}
