// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.fuzz;

import dev.zarrdirect.api.ZarrDirectException;

import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/**
 * A bounded mutation fuzzer for one parser: inputs are seeds changed by a mutator, each run on
 * one worker thread with a time limit, for a few seconds (a suite's budget) or as long as
 * {@code -Dzd.fuzz.seconds=N} says. The only outcomes allowed are success and the documented
 * {@link ZarrDirectException}s; anything else (an {@code OutOfMemoryError}, an
 * {@code InternalError}, an {@code ArrayIndexOutOfBoundsException}, a {@code NullPointerException},
 * a {@code StackOverflowError}) or an input running past {@link #INPUT_LIMIT_MS} fails with the
 * target, the seed and iteration that reproduce it, and the input in base64. {@code -Dzd.seed=N}
 * picks another seed.
 */
final class Fuzz {

    /** Seconds per target: a second and a half in the default suite. */
    static final double SECONDS = Double.parseDouble(System.getProperty("zd.fuzz.seconds", "1.5"));
    /**
     * A new seed each run (printed with every target's count, and in any failure): the suite's
     * short runs add up to new inputs over time instead of repeating the same ones.
     */
    static final long SEED = Long.getLong("zd.seed", System.nanoTime());
    /** One input may take this long; longer is a hang. */
    static final long INPUT_LIMIT_MS = 5_000;

    /** Parses one input; returning or throwing a {@link ZarrDirectException} both pass. */
    interface Target {
        void parse(byte[] input) throws Exception;
    }

    private Fuzz() {
    }

    /**
     * Runs {@code target} on mutations of {@code seeds} (each seed also once as it is) and returns
     * how many inputs ran, of which how many were refused.
     */
    static int[] run(String name, List<byte[]> seeds, BiFunction<byte[], SplittableRandom, byte[]> mutator,
                     Target target) {
        ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-" + name);
            t.setDaemon(true);
            return t;
        });
        long deadline = System.nanoTime() + (long) (SECONDS * 1e9);
        int runs = 0;
        int refused = 0;
        try {
            for (long i = 0; i < seeds.size() || System.nanoTime() < deadline; i++) {
                SplittableRandom r = new SplittableRandom(SEED ^ (i * 0x9E3779B97F4A7C15L));
                byte[] seed = seeds.get((int) (i % seeds.size()));
                byte[] input = i < seeds.size() ? seed : mutator.apply(seed, r);
                Future<?> f = worker.submit(() -> {
                    target.parse(input);
                    return null;
                });
                runs++;
                try {
                    f.get(INPUT_LIMIT_MS, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof ZarrDirectException) {
                        refused++;
                    } else {
                        throw new AssertionError(where(name, i, input) + " threw " + e.getCause(), e.getCause());
                    }
                } catch (TimeoutException e) {
                    f.cancel(true);
                    throw new AssertionError(where(name, i, input) + " ran past " + INPUT_LIMIT_MS + " ms");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            }
        } finally {
            worker.shutdownNow();
        }
        System.out.println("fuzz " + name + ": " + runs + " inputs, " + refused + " refused (seed " + SEED + ", "
                + SECONDS + " s)");
        return new int[]{runs, refused};
    }

    private static String where(String name, long i, byte[] input) {
        String b64 = Base64.getEncoder().encodeToString(input);
        return "fuzz target " + name + ", seed " + SEED + ", iteration " + i + ", input ("
                + input.length + " bytes, base64) " + (b64.length() > 4000 ? b64.substring(0, 4000) + "…" : b64);
    }
}
