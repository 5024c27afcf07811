// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.benchmarks.s3;

import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.settings.ResolvedSetting;
import dev.zarrdirect.api.store.Store;
import dev.zarrdirect.api.store.StoreOptions;
import dev.zarrdirect.core.Selection;
import dev.zarrdirect.core.Zarr;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.store.Stores;
import dev.zarrdirect.cpu.CpuSettings;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * zarr-direct reading a whole array through {@code s3://} from an S3 endpoint, in slabs of time
 * steps, the way TensorStore's side of tools/gpu/s3-bench.sh reads it; prints one JSON line with
 * the decoded GB/s of each round and the median.
 *
 * <p>Usage: {@code S3ReadBench ENDPOINT s3://BUCKET/STORE ARRAY IN_FLIGHT [ROUNDS=5] [BACKEND=cpu]
 * [STEPS_PER_READ=8]}: {@code IN_FLIGHT} is the store's requests in flight; the context has
 * {@code IN_FLIGHT} plus one per processor worker threads ({@code -Dzd.s3bench.threads=N} sets it),
 * since a worker waits on its request before it decodes; with a device backend the reads go to
 * device memory ({@code readToDevice}). {@code median_cores_busy} is this process's CPU time over the
 * wall time of a round (the median round): how many cores the reads kept busy.
 * {@code zstd_stream_check} is the CPU backend's {@code zarrdirect.cpu.zstdStreamCheck} in force
 * (set it as a property or in the environment; null on other backends, whose zstd decodes on the
 * device). A path other than {@code s3://} reads that local store (the endpoint is then ignored),
 * for the same reads without S3.
 */
public final class S3ReadBench {

    private S3ReadBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: S3ReadBench ENDPOINT s3://BUCKET/STORE ARRAY IN_FLIGHT [ROUNDS] [BACKEND] [STEPS_PER_READ]");
            System.exit(2);
        }
        URI endpoint = URI.create(args[0]);
        String location = args[1];
        String array = args[2];
        int inFlight = Integer.parseInt(args[3]);
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 5;
        String backend = args.length > 5 ? args[5] : "cpu";
        int stepsPerRead = args.length > 6 ? Integer.parseInt(args[6]) : 8;
        // Workers block on their request, then decode: more workers than requests in flight keep
        // decoding while requests wait, and the store still sends at most IN_FLIGHT at once.
        int threads = Integer.getInteger("zd.s3bench.threads", inFlight + Runtime.getRuntime().availableProcessors());
        StoreOptions options = StoreOptions.defaults().withEndpoint(endpoint).withAnonymous(true)
                .withRegion("us-east-1").withMaxRequests(inFlight);
        try (Store store = Stores.open(location, options); ZarrContext ctx = ZarrContext.open(backend, threads)) {
            ZarrArray a = Zarr.openArray(ctx, store, array);
            long[] shape = a.metadata().shape();
            boolean device = !ctx.device().isHost();
            // what the backend resolved rather than what the script asked for: a -D that overrides it shows here
            Object streamCheck = ctx.settings().stream()
                    .filter(s -> s.name().equals(CpuSettings.ZSTD_STREAM_CHECK.name()))
                    .map(ResolvedSetting::value).findFirst().orElse(null);
            List<Double> gbs = new ArrayList<>();
            List<Double> cores = new ArrayList<>();
            var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            long bytes = 0;
            for (int r = 0; r < rounds + 1; r++) {
                long t0 = System.nanoTime();
                long cpu0 = os.getProcessCpuTime();
                bytes = 0;
                for (long t = 0; t < shape[0]; t += stepsPerRead) {
                    long[] off = new long[shape.length];
                    long[] len = shape.clone();
                    off[0] = t;
                    len[0] = Math.min(stepsPerRead, shape[0] - t);
                    Selection sel = Selection.at(off, len);
                    try (Tensor out = device ? a.readToDevice(sel) : a.read(sel)) {
                        bytes += out.byteSize();
                    }
                }
                long wall = System.nanoTime() - t0;
                double s = wall / 1e9;
                if (r > 0) {
                    gbs.add(bytes / s / 1e9); // round 0 warms the JIT, the connections and the page cache
                    // this process's CPU time over the wall time: how many cores the reads kept busy
                    cores.add((os.getProcessCpuTime() - cpu0) / (double) wall);
                }
            }
            double[] sorted = gbs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double[] busy = cores.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf(Locale.ROOT, "{\"reader\": \"zarr-direct %s\", \"location\": \"%s\", \"in_flight\": %d, \"threads\": %d,"
                    + " \"bytes\": %d, \"gbps\": %s, \"median_gbps\": %.3f, \"median_cores_busy\": %.2f,"
                    + " \"zstd_stream_check\": %s}%n",
                    device ? "device " + ctx.device() : "host", location, inFlight, threads, bytes, Arrays.toString(sorted),
                    sorted[sorted.length / 2], busy[busy.length / 2], streamCheck);
        }
    }
}
