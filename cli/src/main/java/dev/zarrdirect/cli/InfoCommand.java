// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.ZarrGroup;
import dev.zarrdirect.core.grid.Shapes;
import dev.zarrdirect.core.metadata.ArrayMetadata;
import dev.zarrdirect.core.metadata.CodecMetadata;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** Describes an array (shape, chunking, codecs, what is stored) or a group (attributes, members). */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Describe a Zarr array or group (v3 or v2): shape, chunks, codecs, stored bytes; or a group's members.")
final class InfoCommand implements Callable<Integer> {

    static final String SHARDING = "sharding_indexed";

    @Mixin
    StoreOptions store;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (Store s = store.openStore(); ZarrContext ctx = store.openContext()) {
            Object node = store.openNode(ctx, s);
            Lines lines = new Lines();
            lines.add("path", StoreOptions.describe(s));
            if (node instanceof ZarrArray a) {
                describeArray(a, lines);
            } else {
                describeGroup((ZarrGroup) node, lines);
            }
            lines.print(out);
        }
        out.flush();
        return ZarrDirectCli.EXIT_OK;
    }

    static void describeArray(ZarrArray a, Lines lines) {
        ArrayMetadata md = a.metadata();
        lines.add("node type", "array");
        lines.add("shape", Shapes.format(md.shape()));
        CodecMetadata sharding = md.codecs().stream().filter(c -> c.name().equals(SHARDING)).findFirst().orElse(null);
        if (sharding != null) {
            lines.add("shard shape", Shapes.format(md.chunkShape()));
            lines.add("inner chunk shape", Text.compactJson(sharding.configuration().get("chunk_shape")));
        } else {
            lines.add("chunk shape", Shapes.format(md.chunkShape()));
        }
        lines.add("data type", md.dataType().name());
        List<String> codecs = new ArrayList<>();
        for (CodecMetadata c : md.codecs()) {
            codecs.add(c.configuration().isEmpty() ? c.name() : c.name() + " " + Text.compactJson(c.configuration()));
        }
        lines.add("codecs", String.join(", ", codecs));
        lines.add("implementations", String.join(", ", a.codecImplementations()));
        lines.add("fill value", md.fillValue().toString());
        lines.add("dimension names", md.dimensionNames() == null ? "(none)"
                : String.join(", ", md.dimensionNames().stream().map(n -> n == null ? "(unnamed)" : n).toList()));
        long total = a.chunkCount();
        long logical = Shapes.product(md.shape()) * md.dataType().byteSize();
        Stored stored;
        try {
            stored = stored(a);
        } catch (dev.zarrdirect.api.StoreException e) {
            // Stores without a listing (HTTP) still open and read; only the census is unknown.
            lines.add(sharding != null ? "shards" : "chunks", String.format(Locale.ROOT,
                    "unknown of %,d (grid %s): %s cannot list its keys", total, Shapes.format(md.gridShape()), a.store()));
            lines.add("logical bytes", Text.bytes(logical));
            if (!md.attributes().isEmpty()) {
                lines.add("attributes", Text.compactJson(md.attributes()));
            }
            return;
        }
        lines.add(sharding != null ? "shards" : "chunks",
                String.format(Locale.ROOT, "%,d of %,d present (grid %s)", stored.keys, total,
                        Shapes.format(md.gridShape())));
        lines.add("logical bytes", Text.bytes(logical));
        lines.add("stored bytes", Text.bytes(stored.bytes));
        lines.add("compression ratio", stored.bytes == 0 ? "n/a (nothing stored)"
                : String.format(Locale.ROOT, "%.2f", (double) logical / stored.bytes));
        if (!md.attributes().isEmpty()) {
            lines.add("attributes", Text.compactJson(md.attributes()));
        }
    }

    /** Keys of a node other than metadata documents, and their total size. */
    record Stored(long keys, long bytes) {
    }

    static Stored stored(ZarrArray a) {
        String prefix = a.path().isEmpty() ? "" : a.path() + "/";
        long n = 0;
        long bytes = 0;
        for (String k : a.store().list(prefix)) {
            String leaf = k.substring(k.lastIndexOf('/') + 1);
            if (leaf.equals("zarr.json") || leaf.equals(".zarray") || leaf.equals(".zattrs") || leaf.equals(".zgroup")
                    || leaf.equals(".zmetadata")) {
                continue;
            }
            long size = a.store().size(k);
            if (size >= 0) {
                n++;
                bytes += size;
            }
        }
        return new Stored(n, bytes);
    }

    private static void describeGroup(ZarrGroup g, Lines lines) {
        lines.add("node type", "group");
        lines.add("attributes", g.attributes().isEmpty() ? "(none)" : Text.compactJson(g.attributes()));
        List<String> members = new ArrayList<>();
        listMembers(g, "", members);
        lines.add("members", members.isEmpty() ? "(none)" : members.size() + "");
        lines.extra.addAll(members);
    }

    private static void listMembers(ZarrGroup g, String indent, List<String> out) {
        for (String name : g.members()) {
            Object child = g.open(name);
            if (child instanceof ZarrArray a) {
                out.add(indent + "  " + name + "  array " + a.dataType().name() + " " + Shapes.format(a.shape())
                        + " chunks " + Shapes.format(a.chunkShape()));
            } else {
                out.add(indent + "  " + name + "/  group");
                listMembers((ZarrGroup) child, indent + "  ", out);
            }
        }
    }

    /** {@code label: value} lines with the values aligned, then free lines. */
    static final class Lines {
        private final List<String[]> rows = new ArrayList<>();
        final List<String> extra = new ArrayList<>();

        void add(String label, String value) {
            rows.add(new String[]{label, value});
        }

        void print(PrintWriter out) {
            int w = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0) + 1;
            for (String[] r : rows) {
                out.println(String.format(Locale.ROOT, "%-" + (w + 1) + "s%s", r[0] + ":", Text.escape(r[1])));
            }
            extra.forEach(line -> out.println(Text.escape(line)));
        }
    }
}
