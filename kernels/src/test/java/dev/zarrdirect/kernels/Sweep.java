// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.function.Executable;

/**
 * The two tiers of a sweep over generated cases. The generated cases are always all built, the
 * same as ever (their data and corruptions come from {@link ZstdTestSupport#SEED}); what a tier
 * changes is which of them are decoded:
 * <ul>
 * <li>the full tier (test methods tagged {@value #FULL}, run with {@code mvn -Pfull} or
 * {@code -Dzd.tier=full}) decodes every case;</li>
 * <li>the default suite decodes a sample, stratified: from every stratum (a frame and a kind of
 * corruption of it, e.g. "text/L19/ck=true, cut in the first 24 bytes") it takes
 * {@code perStratum} cases (all of them where the stratum has fewer), so every frame kind and
 * every kind of corruption is seen on every run. The cases are picked by {@link #SEED}: a new
 * one each run, printed, and in the message of any failure; {@code -Dzd.sweep.seed=N} repeats
 * a run's sample.</li>
 * </ul>
 */
final class Sweep {
    /** The JUnit tag of the full tier; excluded by kernels/pom.xml unless the full profile is on. */
    static final String FULL = "full";

    /** Picks the default suite's sample: {@code -Dzd.sweep.seed=N} (decimal or 0x hex), else a new one each run. */
    static final long SEED = seed();

    private Sweep() {}

    private static long seed() {
        String s = System.getProperty("zd.sweep.seed");
        if (s == null || s.isBlank()) return ThreadLocalRandom.current().nextLong(1L << 40);
        s = s.strip();
        return s.startsWith("0x") || s.startsWith("0X") ? Long.parseUnsignedLong(s.substring(2), 16) : Long.parseLong(s);
    }

    /** One generated case and its stratum (the frame it came from and how it was corrupted). */
    record Case(String stratum, byte[] frame) {}

    /** Which cases of a sweep are decoded. */
    interface Selection {
        /** The cases to decode, in their order in {@code all}. */
        List<Case> of(List<Case> all);

        /**
         * For a test of {@code items} cases under each of {@code configs} ways of running them:
         * which items each configuration runs, in their order.
         */
        List<List<Integer>> deal(int configs, int items);

        /** A description for the test's output. */
        String describe();
    }

    /** Every case: the full tier. */
    static final Selection ALL = new Selection() {
        @Override
        public List<Case> of(List<Case> all) {
            return all;
        }

        @Override
        public List<List<Integer>> deal(int configs, int items) {
            List<Integer> every = new ArrayList<>();
            for (int i = 0; i < items; i++) every.add(i);
            List<List<Integer>> out = new ArrayList<>();
            for (int c = 0; c < configs; c++) out.add(every);
            return out;
        }

        @Override
        public String describe() {
            return "full sweep";
        }
    };

    /**
     * A stratified sample: {@code perStratum} cases of every stratum (all of a smaller one),
     * picked with a generator seeded by {@link #SEED} and {@code salt} (one per test).
     */
    static Selection sample(int perStratum, long salt) {
        Random r = new Random(SEED ^ salt);
        return new Selection() {
            @Override
            public List<Case> of(List<Case> all) {
                Map<String, List<Integer>> strata = new LinkedHashMap<>();
                for (int i = 0; i < all.size(); i++) strata.computeIfAbsent(all.get(i).stratum(), k -> new ArrayList<>()).add(i);
                boolean[] keep = new boolean[all.size()];
                for (List<Integer> idx : strata.values()) {
                    // a partial Fisher-Yates shuffle: perStratum distinct members, uniformly
                    for (int k = 0; k < Math.min(perStratum, idx.size()); k++) {
                        int j = k + r.nextInt(idx.size() - k);
                        Integer t = idx.get(k);
                        idx.set(k, idx.get(j));
                        idx.set(j, t);
                        keep[idx.get(k)] = true;
                    }
                }
                List<Case> out = new ArrayList<>();
                for (int i = 0; i < all.size(); i++) if (keep[i]) out.add(all.get(i));
                return out;
            }

            /**
             * {@code perStratum} distinct items a configuration, dealt in turn from a shuffled deck
             * of all items: every item runs at least once where configs * perStratum >= items.
             */
            @Override
            public List<List<Integer>> deal(int configs, int items) {
                List<Integer> deck = new ArrayList<>();
                for (int i = 0; i < items; i++) deck.add(i);
                Collections.shuffle(deck, r);
                int per = Math.min(perStratum, items), next = 0;
                List<List<Integer>> out = new ArrayList<>();
                for (int c = 0; c < configs; c++) {
                    List<Integer> mine = new ArrayList<>();
                    for (int k = 0; k < per; k++) mine.add(deck.get(next++ % items));
                    mine.sort(null);
                    out.add(mine);
                }
                return out;
            }

            @Override
            public String describe() {
                return "sample of " + perStratum + " a stratum, zd.sweep.seed=" + SEED;
            }
        };
    }

    /**
     * Runs a sampled sweep; a failure names the seed that repeats it
     * ({@code -Dzd.sweep.seed=N}) and the switch that runs every case.
     */
    static void sampled(String what, Executable body) throws Throwable {
        System.out.println(what + ": sample picked by zd.sweep.seed=" + SEED
                + " (repeat with -Dzd.sweep.seed=" + SEED + "; every case: -Pfull)");
        try {
            body.execute();
        } catch (AssertionError e) {
            throw new AssertionError(what + ", sample picked by zd.sweep.seed=" + SEED + " (repeat with -Dzd.sweep.seed="
                    + SEED + "): " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new IllegalStateException(what + ", sample picked by zd.sweep.seed=" + SEED + ": " + e, e);
        }
    }
}
