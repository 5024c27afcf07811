// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** Prints the values of an array, or of a region of it, with nested brackets as NumPy does. */
@Command(name = "cat", mixinStandardHelpOptions = true,
        description = "Print the values of an array (or of a region of it).")
final class CatCommand implements Callable<Integer> {

    @Mixin
    StoreOptions store;

    @Option(names = {"-r", "--region", "--select"}, paramLabel = "START:STOP,...",
            description = {"Region to print, NumPy-like: START:STOP[:STEP] or an INDEX per dimension, e.g. 0:2,:,5 or -3: or ::2 "
                    + "or ... (default: everything).",
                    "An INDEX drops its dimension (-r 5,: of a 2-D array prints a 1-D row); a bound outside the "
                    + "dimension is an error; steps must be positive."})
    String region = "";

    @Option(names = {"-n", "--limit"}, paramLabel = "N", defaultValue = "1000",
            description = "Print at most N elements, then '...'. Default: ${DEFAULT-VALUE}.")
    long limit;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (limit < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
        }
        PrintWriter out = spec.commandLine().getOut();
        try (Store s = store.openStore(); ZarrContext ctx = store.openContext()) {
            Object node = store.openNode(ctx, s);
            if (!(node instanceof ZarrArray array)) {
                throw new ZarrDirectCli.CliFailure(StoreOptions.describe(s)
                        + " is a group; cat prints arrays (see 'zarr-direct info' for its members)");
            }
            Region reg;
            try {
                reg = Region.parse(region, array.shape());
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "bad --region: " + e.getMessage(), e,
                        null, region);
            }
            Selection first = reg.box(firstElements(Selection.all(reg.counts()), limit));
            try (Tensor t = array.read(first)) {
                StringBuilder sb = new StringBuilder();
                new Printer(t, reg, limit).print(sb);
                out.println(sb);
            }
        }
        out.flush();
        return ZarrDirectCli.EXIT_OK;
    }

    /** The smallest box at the start of {@code sel} that holds its first {@code limit} elements in C order. */
    static Selection firstElements(Selection sel, long limit) {
        long[] start = sel.start();
        long[] stop = sel.stop();
        long[] shape = sel.shape();
        for (int d = 0; d < shape.length; d++) {
            long inner = 1;
            for (int k = d + 1; k < shape.length; k++) {
                inner = Math.multiplyHigh(inner, shape[k]) != 0 ? Long.MAX_VALUE : inner * shape[k];
            }
            if (inner == 0) {
                break;
            }
            if (inner >= limit) {
                stop[d] = Math.min(stop[d], start[d] + 1);
            } else {
                stop[d] = Math.min(stop[d], start[d] + (limit + inner - 1) / inner);
                break;
            }
        }
        return new Selection(start, stop);
    }

    /**
     * A parsed {@code --region}: per dimension a first index, a positive step and a count of elements;
     * dimensions selected by a single index are dropped from the printed shape.
     */
    record Region(long[] start, long[] step, long[] counts, boolean[] dropped) {

        static Region parse(String text, long[] shape) {
            int rank = shape.length;
            long[] start = new long[rank];
            long[] step = new long[rank];
            long[] counts = shape.clone();
            boolean[] dropped = new boolean[rank];
            java.util.Arrays.fill(step, 1);
            String t = text.trim();
            if (t.isEmpty()) {
                return new Region(start, step, counts, dropped);
            }
            List<String> parts = new ArrayList<>(List.of(t.split(",", -1)));
            int ellipsis = parts.indexOf("...");
            if (ellipsis >= 0) {
                parts.remove(ellipsis);
                if (parts.contains("...")) {
                    throw new IllegalArgumentException("selection \"" + text + "\" has more than one '...'");
                }
                while (parts.size() < rank) {
                    parts.add(ellipsis, ":");
                }
            }
            if (parts.size() > rank) {
                throw new IllegalArgumentException("selection \"" + text + "\" has " + parts.size()
                        + " entries for an array of rank " + rank + " with shape " + java.util.Arrays.toString(shape));
            }
            for (int i = 0; i < parts.size(); i++) {
                String p = parts.get(i).trim();
                long size = shape[i];
                String[] f = p.split(":", -1);
                try {
                    if (f.length == 1) {
                        long v = Long.parseLong(p);
                        long n = v < 0 ? v + size : v;
                        if (n < 0 || n >= size) {
                            throw new IllegalArgumentException("index " + v + " is outside dimension " + i + " of size "
                                    + size + " (valid: " + -size + " to " + (size - 1) + ")");
                        }
                        start[i] = n;
                        counts[i] = 1;
                        dropped[i] = true;
                        continue;
                    }
                    if (f.length > 3) {
                        throw new NumberFormatException(p);
                    }
                    long st = f.length == 3 && !f[2].isBlank() ? Long.parseLong(f[2].trim()) : 1;
                    if (st <= 0) {
                        throw new IllegalArgumentException("step " + st + " in dimension " + i
                                + ": only positive steps are supported");
                    }
                    long a = f[0].isBlank() ? 0 : bound(Long.parseLong(f[0].trim()), p, i, size);
                    long b = f[1].isBlank() ? size : bound(Long.parseLong(f[1].trim()), p, i, size);
                    start[i] = a;
                    step[i] = st;
                    counts[i] = b <= a ? 0 : (b - a + st - 1) / st;
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("selection \"" + text + "\": entry " + i + " \"" + p
                            + "\" is not INDEX or START:STOP[:STEP]", e);
                }
            }
            return new Region(start, step, counts, dropped);
        }

        private static long bound(long v, String entry, int dim, long size) {
            long n = v < 0 ? v + size : v;
            if (n < 0 || n > size) {
                throw new IllegalArgumentException("region " + entry + " is outside dimension " + dim + " of size " + size
                        + " (bounds from " + -size + " to " + size + ")");
            }
            return n;
        }

        /** The printed shape: the counts of the dimensions not dropped. */
        long[] printedShape() {
            return java.util.stream.IntStream.range(0, counts.length).filter(d -> !dropped[d])
                    .mapToLong(d -> counts[d]).toArray();
        }

        /** The array box holding the elements {@code [0, n)} of each dimension's count, {@code n} from {@code first}. */
        Selection box(Selection first) {
            long[] n = first.shape();
            long[] a = new long[n.length];
            long[] b = new long[n.length];
            for (int d = 0; d < n.length; d++) {
                a[d] = start[d];
                b[d] = n[d] == 0 ? start[d] : start[d] + (n[d] - 1) * step[d] + 1;
            }
            return new Selection(a, b);
        }
    }

    /** Walks the region's printed shape in C order, taking elements from the tensor of its first ones. */
    private static final class Printer {
        private final Tensor t;
        private final MemorySegment seg;
        private final long[] shape;
        private final long[] strides;
        private final long limit;
        private long printed;

        Printer(Tensor t, Region reg, long limit) {
            this.t = t;
            this.seg = t.segment();
            this.shape = reg.printedShape();
            long[] all = Tensor.contiguousStrides(t.shape());
            this.strides = java.util.stream.IntStream.range(0, all.length).filter(d -> !reg.dropped()[d])
                    .mapToLong(d -> all[d] * reg.step()[d]).toArray();
            this.limit = limit;
        }

        void print(StringBuilder sb) {
            if (shape.length == 0) {
                sb.append(ValueFormat.format(seg, 0, t.dataType()));
                return;
            }
            dim(sb, 0, 0);
        }

        /** Returns false once the limit is reached. */
        private boolean dim(StringBuilder sb, int d, long elementOffset) {
            sb.append('[');
            for (long i = 0; i < shape[d]; i++) {
                if (i > 0) {
                    sb.append(',');
                    if (d == shape.length - 1) {
                        sb.append(' ');
                    } else {
                        sb.append("\n".repeat(shape.length - 1 - d)).append(" ".repeat(d + 1));
                    }
                }
                if (printed >= limit) {
                    sb.append("...");
                    sb.append(']');
                    return false;
                }
                long off = elementOffset + i * strides[d];
                if (d == shape.length - 1) {
                    sb.append(ValueFormat.format(seg, off * t.dataType().byteSize(), t.dataType()));
                    printed++;
                } else if (!dim(sb, d + 1, off)) {
                    sb.append(']');
                    return false;
                }
            }
            sb.append(']');
            return true;
        }
    }
}
