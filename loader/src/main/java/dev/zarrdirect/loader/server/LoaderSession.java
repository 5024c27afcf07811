// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.InterprocessMemory;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.loader.LoaderSpec;
import dev.zarrdirect.loader.assemble.BatchAssembler;
import dev.zarrdirect.loader.assemble.BatchProducer;
import dev.zarrdirect.loader.assemble.Normalizer;
import dev.zarrdirect.loader.assemble.SlotLayout;
import dev.zarrdirect.loader.dataset.Variable;
import dev.zarrdirect.loader.dataset.WindowDataset;
import dev.zarrdirect.loader.sampling.EpochSampler;
import dev.zarrdirect.loader.slots.IpcSlots;
import dev.zarrdirect.loader.slots.ShmSlots;
import dev.zarrdirect.loader.slots.Slots;
import dev.zarrdirect.loader.stats.StatsFile;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * One opened loader of the server: the context, dataset, order, slots and the producer thread of
 * the epoch under way. Requests come from the server's loop; batches go out from the producer.
 */
final class LoaderSession implements AutoCloseable {

    /** Without a budget in the request: this much device memory for slots and staging. */
    static final long DEFAULT_DEVICE_BUDGET = 24L << 30;

    private final ZarrContext ctx;
    private final WindowDataset dataset;
    private final EpochSampler sampler;
    private final SlotLayout layout;
    private final Slots slots;
    private final BatchAssembler assembler;
    private final BatchProducer producer;
    private final int prefetch;
    private final Consumer<ObjectNode> send;
    private final Set<Integer> held = ConcurrentHashMap.newKeySet();
    private volatile boolean stop;
    /** Set by the producer just before its last message of an epoch. */
    private volatile boolean finished;
    private Thread thread;
    private LinkedBlockingQueue<Integer> free;

    private LoaderSession(ZarrContext ctx, WindowDataset dataset, EpochSampler sampler, SlotLayout layout, Slots slots,
                          BatchAssembler assembler, int prefetch, Consumer<ObjectNode> send) {
        this.ctx = ctx;
        this.dataset = dataset;
        this.sampler = sampler;
        this.layout = layout;
        this.slots = slots;
        this.assembler = assembler;
        this.prefetch = prefetch;
        this.send = send;
        this.producer = new BatchProducer(assembler, sampler, dataset, slots, prefetch);
    }

    static LoaderSession open(LoaderSpec spec, Requests.Options opts, String shmPrefix, Consumer<ObjectNode> send) {
        if (!opts.device().equals("cuda") && !opts.device().equals("cpu")) {
            throw new IllegalArgumentException("device must be 'cuda' or 'cpu', not '" + opts.device() + "'");
        }
        ZarrContext.Builder b = ZarrContext.builder().backend(opts.backend());
        opts.settings().forEach(b::set);
        ZarrContext ctx = b.open();
        WindowDataset ds = null;
        Slots slots = null;
        BatchAssembler asm = null;
        try {
            ds = WindowDataset.open(ctx, spec);
            EpochSampler sampler = new EpochSampler(ds.sampleCount(), spec.batchSize(), spec.shuffle(), spec.seed(),
                    spec.dropLast(), spec.rank(), spec.worldSize());
            if (sampler.batches() == 0) {
                throw new IllegalArgumentException(ds.sampleCount() + " samples make no batch of " + spec.batchSize()
                        + " on each of " + spec.worldSize() + " ranks with drop_last");
            }
            Normalizer norm = Normalizer.of(ds.variables(), ds.channels(), normalization(opts.normalize(), ds));
            SlotLayout layout = new SlotLayout(spec.batchSize(), spec.history(), spec.future(), ds.channels(),
                    ds.height(), ds.width(), spec.dtype());
            Backend backend = ctx.backend();
            Optional<InterprocessMemory> ipc = opts.device().equals("cuda") ? backend.interprocess() : Optional.empty();
            long staging = BatchAssembler.stagingBytes(ds, layout);
            long slot = layout.slotBytes();
            long budget = opts.memoryBudget() != null ? opts.memoryBudget() : defaultBudget(backend);
            // prefetch staging buffers, one slot more than that (the consumer holds one), and for a
            // device backend writing host slots one device buffer to gather into
            long fixed = slot + (ipc.isEmpty() && !backend.defaultDevice().isHost() ? slot : 0);
            int fit = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (budget - fixed) / Math.max(1, staging + slot)));
            int prefetch = Math.min(spec.prefetch(), fit);
            slots = ipc.isPresent() ? new IpcSlots(backend, ipc.get(), prefetch + 1, slot)
                    : new ShmSlots(backend, prefetch + 1, slot, shmPrefix);
            asm = new BatchAssembler(ctx, ds, layout, norm, spec.nanValue(), prefetch);
            return new LoaderSession(ctx, ds, sampler, layout, slots, asm, prefetch, send);
        } catch (RuntimeException | Error e) {
            if (asm != null) {
                asm.close();
            }
            if (slots != null) {
                slots.close();
            }
            if (ds != null) {
                ds.close();
            }
            ctx.close();
            throw e;
        }
    }

    private static long defaultBudget(Backend backend) {
        if (!backend.defaultDevice().isHost()) {
            return DEFAULT_DEVICE_BUDGET;
        }
        long ram = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        return ram / 4;
    }

    /** The normalization a request asks for: none, a stats file, or values per variable. */
    private static Map<String, LoaderSpec.Normalization> normalization(JsonNode n, WindowDataset ds) {
        Map<String, LoaderSpec.Normalization> out = new LinkedHashMap<>();
        if (n == null || n.isMissingNode() || n.isNull()) {
            return out;
        }
        if (n.has("file")) {
            StatsFile stats = StatsFile.read(Path.of(n.get("file").asText()));
            for (Variable v : ds.variables()) {
                out.put(v.name(), stats.normalization(v.name(), v.channels()));
            }
            return out;
        }
        JsonNode values = n.path("values");
        if (!values.isObject()) {
            throw new IllegalArgumentException("normalize must be a stats file or a mapping of variable to (mean, std)");
        }
        List<String> names = ds.variables().stream().map(Variable::name).toList();
        values.properties().forEach(e -> {
            int i = names.indexOf(e.getKey());
            if (i < 0) {
                throw new IllegalArgumentException("normalize names '" + e.getKey() + "', which is not one of the variables "
                        + names);
            }
            int count = ds.variables().get(i).channels().length;
            JsonNode pair = e.getValue();
            if (!pair.isArray() || pair.size() != 2) {
                throw new IllegalArgumentException("normalize['" + e.getKey() + "'] must be (mean, std)");
            }
            out.put(e.getKey(), new LoaderSpec.Normalization(perChannel(pair.get(0), count, e.getKey(), "mean"),
                    perChannel(pair.get(1), count, e.getKey(), "std")));
        });
        return out;
    }

    private static double[] perChannel(JsonNode n, int count, String variable, String what) {
        double[] out = new double[count];
        if (n.isNumber()) {
            java.util.Arrays.fill(out, n.asDouble());
            return out;
        }
        if (!n.isArray() || n.size() != count) {
            throw new IllegalArgumentException("the " + what + " of '" + variable + "' must be one number or " + count
                    + " (one per selected channel), not " + n);
        }
        for (int i = 0; i < count; i++) {
            out[i] = n.get(i).asDouble();
        }
        return out;
    }

    ObjectNode opened() {
        List<Map<String, Object>> slotInfo = new ArrayList<>();
        for (int i = 0; i < slots.count(); i++) {
            Map<String, Object> m = new LinkedHashMap<>(slots.describe(i));
            m.put("input_offset", 0L);
            m.put("target_offset", layout.targetOffset());
            slotInfo.add(m);
        }
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("samples", dataset.sampleCount());
        f.put("batches", sampler.batches());
        f.put("batch_size", layout.batchSize());
        f.put("input_shape", layout.inputShape());
        f.put("target_shape", layout.targetShape());
        f.put("dtype", layout.dtype().name().toLowerCase(java.util.Locale.ROOT));
        f.put("channels", dataset.channelNames());
        f.put("time_dim", dataset.variables().getFirst().timeAxis());
        f.put("backend", ctx.backend().name());
        f.put("device", ctx.backend().defaultDevice().toString());
        f.put("prefetch", prefetch);
        f.put("memory", slots.memory());
        f.put("slots", slotInfo);
        return LoaderServer.message("opened", f);
    }

    void consumerMapped() {
        slots.consumerMapped();
    }

    synchronized void startEpoch(int epoch, int position) {
        if (thread != null && thread.isAlive()) {
            if (!finished) {
                throw new IllegalStateException("an epoch is under way: send 'stop' before starting another");
            }
            // it has sent its last message ('end' or 'error') and is only returning
            joinProducer();
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be 0 or more, not " + epoch);
        }
        if (position < 0 || position > sampler.batches()) {
            throw new IllegalArgumentException("position " + position + " is not in [0, " + sampler.batches() + "]");
        }
        held.clear();
        free = new LinkedBlockingQueue<>();
        for (int i = 0; i < slots.count(); i++) {
            free.add(i);
        }
        stop = false;
        finished = false;
        LinkedBlockingQueue<Integer> q = free;
        thread = Thread.ofPlatform().name("zd-loader-producer").start(() -> {
            try {
                producer.run(epoch, position, q, d -> {
                    held.add(d.slot());
                    send.accept(LoaderServer.message("batch", Map.of("index", d.index(), "slot", d.slot(),
                            "rows", d.rows(), "time", d.time())));
                }, () -> stop);
                if (!stop) {
                    finished = true;
                    send.accept(LoaderServer.message("end", Map.of("epoch", epoch, "batches", sampler.batches())));
                }
            } catch (Throwable e) {
                if (!stop) {
                    finished = true;
                    try {
                        send.accept(LoaderServer.error(e));
                    } catch (RuntimeException gone) {
                        // the consumer is gone; the server's loop ends on its own
                    }
                }
            }
        });
    }

    void release(int slot) {
        if (slot < 0 || slot >= slots.count()) {
            throw new IllegalArgumentException("there is no slot " + slot + " (slots 0 to " + (slots.count() - 1) + ")");
        }
        if (!held.remove(slot)) {
            throw new IllegalStateException("slot " + slot + " is not held by the consumer (released twice?)");
        }
        free.add(slot);
    }

    synchronized void stopEpoch() {
        stop = true;
        joinProducer();
        thread = null;
        held.clear();
    }

    private void joinProducer() {
        Thread t = thread;
        if (t != null) {
            boolean interrupted = false;
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        stopEpoch();
        // each step runs whatever the one before threw: reads end before their buffers go
        try (ZarrContext c = ctx; WindowDataset d = dataset; Slots sl = slots; BatchAssembler a = assembler) {
            producer.discardAhead();
        }
    }
}
