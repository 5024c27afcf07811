// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.corrupt;

import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.BackendProvider;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every backend's {@code zstd} decoder, the CPU's (libzstd through zstd-jni) and each device
 * kernel, gives the same answer for the same damaged frame (issue #25, item 6): the same bytes when
 * it decodes, a {@link CorruptChunkException} naming the chunk when it does not. One class run on
 * every backend found; a backend that is unavailable is skipped with its probe's reason, or fails
 * with {@code ZD_REQUIRE_OPENCL=1} / {@code ZD_REQUIRE_CUDA=1}.
 *
 * <p>The corpus ({@link ZstdFrameCorpus}) is seeded: {@code -Dzd.seed=N} picks another, and
 * {@code -Dzd.zstdCorpus.perBase=N} makes it larger (default 40 damaged copies of each of 13 intact
 * frames). Whatever the backend, a cut-short frame or one declaring 1 TiB never decodes, an intact
 * one always does, and a frame with a content checksum that decodes gives the original bytes.
 */
class ZstdBackendsAgreeOnDamagedFramesTest {

    static final long SEED = Long.getLong("zd.seed", 0x25_06L);
    static final int PER_BASE = Integer.getInteger("zd.zstdCorpus.perBase", 40);

    private static List<ZstdFrameCorpus.Case> corpus;
    private static List<Outcome> reference;

    /** What one backend made of one input: the decoded bytes, or the failure. */
    record Outcome(byte[] bytes, ZarrDirectException failure) {
        String describe() {
            return failure != null ? failure.getClass().getSimpleName() + ": " + failure.getMessage()
                    : "decoded " + bytes.length + " bytes";
        }
    }

    @TestFactory
    Stream<DynamicTest> everyBackendGivesTheCpuAnswerForEveryDamagedFrame() {
        List<DynamicTest> tests = new ArrayList<>();
        for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
            ProbeResult probe = p.probe();
            if (!probe.available()) {
                String env = "ZD_REQUIRE_" + p.name().toUpperCase(java.util.Locale.ROOT);
                if ("1".equals(System.getenv(env))) {
                    tests.add(DynamicTest.dynamicTest(p.name() + " is required", () -> fail(env + "=1 but "
                            + p.name() + " is unavailable: " + probe.reason())));
                } else {
                    System.out.println("zstd agreement: skipping " + p.name() + ": " + probe.reason());
                }
                continue;
            }
            tests.add(DynamicTest.dynamicTest("zstd on " + p.name() + " agrees on " + corpus().size()
                    + " frames (seed " + SEED + ")", () -> check(p)));
        }
        return tests.stream();
    }

    private static synchronized List<ZstdFrameCorpus.Case> corpus() {
        if (corpus == null) {
            corpus = ZstdFrameCorpus.build(SEED, PER_BASE);
        }
        return corpus;
    }

    /** The CPU backend's outcomes, which every other backend must match. */
    private static synchronized List<Outcome> reference() {
        if (reference == null) {
            BackendProvider cpu = ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::get)
                    .filter(p -> p.name().equals("cpu")).findFirst().orElseThrow();
            try (Backend b = cpu.open()) {
                reference = decodeAll(b, corpus());
            }
        }
        return reference;
    }

    private static void check(BackendProvider p) {
        List<ZstdFrameCorpus.Case> cases = corpus();
        List<Outcome> ref = reference();
        List<Outcome> got;
        try (Backend b = p.open()) {
            got = p.name().equals("cpu") ? ref : decodeAll(b, cases);
        }
        List<String> wrong = new ArrayList<>();
        int failed = 0;
        for (int i = 0; i < cases.size(); i++) {
            ZstdFrameCorpus.Case c = cases.get(i);
            Outcome o = got.get(i);
            Outcome want = ref.get(i);
            String where = "#" + i + " " + c.name() + ", " + c.damage() + ": ";
            if (o.failure() != null) {
                failed++;
                if (!(o.failure() instanceof CorruptChunkException) || !o.failure().getMessage().contains(label(i) + " (")) {
                    wrong.add(where + "not a CorruptChunkException naming the chunk: " + o.describe());
                }
            }
            if (c.intact() && o.failure() != null) {
                wrong.add(where + "intact, but " + o.describe());
            } else if (c.truncated() && o.failure() == null) {
                wrong.add(where + "cut short, but it decoded");
            } else if (c.bomb() && o.failure() == null) {
                wrong.add(where + "declares far more than the chunk holds, but it decoded");
            } else if (c.checksummed() && o.failure() == null && !Arrays.equals(c.original(), o.bytes())) {
                wrong.add(where + "has a content checksum but decoded to other bytes");
            } else if ((o.failure() == null) != (want.failure() == null)) {
                wrong.add(where + p.name() + " " + o.describe() + "; cpu " + want.describe());
            } else if (o.failure() == null && !Arrays.equals(o.bytes(), want.bytes())) {
                wrong.add(where + p.name() + " and cpu decode to different bytes");
            }
        }
        System.out.println("zstd agreement on " + p.name() + ": " + cases.size() + " frames, " + failed
                + " corrupt, " + wrong.size() + " wrong (seed " + SEED + ")");
        java.util.TreeMap<String, Integer> kinds = new java.util.TreeMap<>();
        for (String w : wrong) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("[A-Z]+_[A-Z_]+").matcher(w);
            kinds.merge(m.find() ? m.group() : w.contains("; cpu Corrupt") ? "only cpu fails" : "other", 1, Integer::sum);
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " of " + cases.size() + " frames on " + p.name() + " (seed " + SEED
                + ") " + kinds + ":\n" + String.join("\n", wrong.subList(0, Math.min(40, wrong.size()))));
    }

    private static String label(int i) {
        return "frame #" + i;
    }

    /** Decodes every case in one batch on {@code b}'s default device, inputs and outputs packed in one buffer each. */
    static List<Outcome> decodeAll(Backend b, List<ZstdFrameCorpus.Case> cases) {
        Device d = b.defaultDevice();
        MemoryKind kind = d.isHost() ? MemoryKind.HOST : MemoryKind.DEVICE;
        BytesToBytesCodec codec = (BytesToBytesCodec) b.codecs().create("zstd", Map.of(), d).orElseThrow(
                () -> new AssertionError(b.name() + " has no zstd codec for " + d));
        long inTotal = 0;
        long outTotal = 0;
        for (ZstdFrameCorpus.Case c : cases) {
            inTotal += c.encoded().length + 3; // odd gaps: unaligned frames
            outTotal += c.original().length + 3;
        }
        try (Buffer in = b.allocate(d, kind, inTotal); Buffer out = b.allocate(d, kind, outTotal)) {
            List<CodecBatch.Item> items = new ArrayList<>();
            long ia = 0;
            long oa = 0;
            for (int i = 0; i < cases.size(); i++) {
                ZstdFrameCorpus.Case c = cases.get(i);
                b.copy(HostBuffer.wrap(MemorySegment.ofArray(c.encoded())), 0, in, ia, c.encoded().length);
                items.add(new CodecBatch.Item(in.slice(ia, c.encoded().length), out.slice(oa, c.original().length),
                        label(i) + " (" + c.name() + ", " + c.damage() + ")"));
                ia += c.encoded().length + 3;
                oa += c.original().length + 3;
            }
            CodecBatch batch = new CodecBatch(items);
            codec.decode(batch);
            List<Outcome> outcomes = new ArrayList<>();
            oa = 0;
            for (int i = 0; i < cases.size(); i++) {
                int n = cases.get(i).original().length;
                if (batch.failure(i) != null) {
                    outcomes.add(new Outcome(null, batch.failure(i)));
                } else {
                    byte[] bytes = new byte[n];
                    b.copy(out, oa, HostBuffer.wrap(MemorySegment.ofArray(bytes)), 0, n);
                    outcomes.add(new Outcome(bytes, null));
                }
                oa += n + 3;
            }
            return outcomes;
        }
    }
}
