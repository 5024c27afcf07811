// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.core.ArraySlice;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
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
                throw new ZarrDirectCli.CliFailure(Text.escape(StoreOptions.describe(s))
                        + " is a group; cat prints arrays (see 'zarr-direct info' for its members)");
            }
            ArraySlice reg;
            try {
                reg = ArraySlice.parse(region, array.shape());
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

    /** Walks the region's printed shape in C order, taking elements from the tensor of its first ones. */
    private static final class Printer {
        private final Tensor t;
        private final MemorySegment seg;
        private final long[] shape;
        private final long[] strides;
        private final long limit;
        private long printed;

        Printer(Tensor t, ArraySlice reg, long limit) {
            this.t = t;
            this.seg = t.segment();
            this.shape = reg.shape();
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
