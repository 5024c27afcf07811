// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingType;
import dev.zarrdirect.cuda.driver.CudaDevice;

import java.util.List;
import java.util.Objects;
import java.util.function.ToIntFunction;

/**
 * How the zstd kernels run on one device: the single-pass decoder's threads, which frames take
 * the multi-pass path, and the {@link MultiPassLaunch} of that path. Chosen once per device when
 * the backend starts ({@link #forDevice}), from the device's properties (multiprocessors, shared
 * memory a group and a multiprocessor, the kernels' thread limits) and the settings that override
 * them ({@link Overrides}); the codec takes it as it is, nothing is looked up per launch.
 *
 * <h2>Defaults</h2>
 * Every default was measured on an H200 (sm_90; an H100 has the same shared memory and thread
 * limits, with 132 multiprocessors, and gets the same launches); the derived ones follow the
 * device: the shared-memory window where a group may have {@link MultiPassLaunch#WIN_SHARED_BYTES}
 * (H100, H200, B200; not an A100), 1024 execute threads with it and 512 without, deferred
 * execution only with the window and {@link MultiPassLaunch#DEFER_SHARED_BYTES}, a sequence pass of
 * as many items as a multiprocessor's shared memory holds (none where it cannot fit, unless lanes or
 * items were set), and the sequence pass above the entropy pass's resident chains.
 *
 * @param singlePassThreads threads a frame of {@code zd_zstd_decode_batch} ({@link CudaZstdCodec#BLOCK_PROPERTY})
 * @param multiPassMin      frames of more decoded bytes take the multi-pass path; negative: never
 * @param sortFrames        whether a multi-pass batch's frames go in order of encoded size
 * @param multiPass         the launches of the multi-pass path
 */
public record ZstdKernelPolicy(int singlePassThreads, long multiPassMin, boolean sortFrames, MultiPassLaunch multiPass) {

    public ZstdKernelPolicy {
        Objects.requireNonNull(multiPass, "multiPass");
        if (singlePassThreads < 1 || singlePassThreads > 1024) {
            throw new IllegalArgumentException("single-pass zstd threads must be in 1..1024, got " + singlePassThreads);
        }
    }

    /** Whether a frame of {@code decodedBytes} takes the multi-pass path. */
    public boolean multiPass(long decodedBytes) {
        return multiPassMin >= 0 && decodedBytes > multiPassMin;
    }

    // ------------------------------------------------------------------ settings

    /** A multiple of 32 threads from 32 to 1024. */
    static final SettingType<Integer> WARPS = new SettingType<>() {
        private final SettingType<Integer> range = SettingType.intRange(32, 1024);

        @Override
        public Integer parse(String text) {
            int v = range.parse(text);
            if (v % 32 != 0) {
                throw new IllegalArgumentException(expected());
            }
            return v;
        }

        @Override
        public String expected() {
            return "a multiple of 32 from 32 to 1024";
        }
    };

    /** A power of two from 1 to 32. */
    static final SettingType<Integer> LANES = new SettingType<>() {
        private final SettingType<Integer> range = SettingType.intRange(1, 32);

        @Override
        public Integer parse(String text) {
            int v = range.parse(text);
            if (Integer.bitCount(v) != 1) {
                throw new IllegalArgumentException(expected());
            }
            return v;
        }

        @Override
        public String expected() {
            return "a power of two from 1 to 32";
        }
    };

    public static final Setting<Integer> SINGLE_PASS_THREADS = Setting.of(CudaZstdCodec.BLOCK_PROPERTY,
            SettingType.intRange(1, 1024), 32, "cuda", "threads a frame of the single-pass zstd kernel");
    public static final Setting<Long> MULTI_PASS_MIN = Setting.of(CudaZstdCodec.MP_MIN_PROPERTY,
            SettingType.longRange(-1, Long.MAX_VALUE), CudaZstdCodec.DEFAULT_MP_MIN, "cuda",
            "zstd frames of more decoded bytes take the multi-pass kernels; -1: never");
    public static final Setting<Integer> MP_THREADS = Setting.derived(CudaZstdCodec.MP_THREADS_PROPERTY, WARPS,
            "1024 with the window, else 512", "cuda", "threads a group of the multi-pass execute pass");
    public static final Setting<Boolean> MP_WINDOW = Setting.of(CudaZstdCodec.MP_WINDOW_PROPERTY, SettingType.bool(),
            true, "cuda", "build blocks in shared memory where the device has 217 KiB a group");
    public static final Setting<Boolean> MP_SAME_ROUND = Setting.of(CudaZstdCodec.MP_SAME_ROUND_PROPERTY,
            SettingType.bool(), false, "cuda", "short matches mark their bytes at once (execute pass)");
    public static final Setting<Boolean> MP_JUMP = Setting.of(CudaZstdCodec.MP_JUMP_PROPERTY, SettingType.bool(), true,
            "cuda", "pointer jumping for batches of short output (execute pass, with the window)");
    public static final Setting<Boolean> MP_ENTROPY_PAIRS = Setting.of(CudaZstdCodec.MP_ENTROPY_PAIRS_PROPERTY,
            SettingType.bool(), true, "cuda", "the entropy pass decodes two blocks a 32-thread group");
    public static final Setting<Boolean> MP_SORT = Setting.of(CudaZstdCodec.MP_SORT_PROPERTY, SettingType.bool(), true,
            "cuda", "order a multi-pass batch's frames by encoded size");
    public static final Setting<Long> MP_ENTROPY_WAVES = Setting.of(MultiPassLaunch.ENTROPY_WAVES_PROPERTY,
            SettingType.longRange(1, 1024), MultiPassLaunch.DEFAULT_ENTROPY_WAVES, "cuda",
            "entropy-pass groups launched, in multiples of the resident ones");
    public static final Setting<Long> MP_EXEC_GROUPS_PER_FRAME = Setting.of(
            MultiPassLaunch.EXEC_GROUPS_PER_FRAME_PROPERTY, SettingType.longRange(1, 1024),
            MultiPassLaunch.DEFAULT_EXEC_GROUPS_PER_FRAME, "cuda", "execute-pass groups a frame of the batch at most");
    public static final Setting<Long> MP_DEFER = Setting.of(MultiPassLaunch.DEFER_PROPERTY,
            SettingType.longRange(0, Long.MAX_VALUE), MultiPassLaunch.DEFAULT_DEFER_BLOCKS, "cuda",
            "batches whose largest frame has this many 128 KiB blocks execute deferred; 0: never");
    public static final Setting<Integer> MP_SEQ_MIN = Setting.of(MultiPassLaunch.SEQ_MIN_PROPERTY,
            SettingType.intRange(0, Integer.MAX_VALUE), MultiPassLaunch.DEFAULT_SEQ_MIN, "cuda",
            "blocks of at least this many sequences go to the sequence pass; 0: no sequence pass");
    public static final Setting<Integer> MP_SEQ_LANES = Setting.of(MultiPassLaunch.SEQ_LANES_PROPERTY, LANES,
            MultiPassLaunch.DEFAULT_SEQ_LANES, "cuda", "items a warp of the sequence pass");
    public static final Setting<Integer> MP_SEQ_ITEMS = Setting.of(MultiPassLaunch.SEQ_ITEMS_PROPERTY,
            SettingType.intRange(0, 1024), MultiPassLaunch.DEFAULT_SEQ_ITEMS, "cuda",
            "items a group of the sequence pass at most; 0: as many as fit");
    public static final Setting<Long> MP_SEQ_ABOVE = Setting.derived(MultiPassLaunch.SEQ_ABOVE_PROPERTY,
            SettingType.longRange(0, Long.MAX_VALUE), "the entropy pass's resident chains (4488 on an H200)", "cuda",
            "the sequence pass runs for batches of more blocks than this; 0: always");
    public static final Setting<Boolean> MP_SEQ_SIZED = Setting.of(MultiPassLaunch.SEQ_SIZED_PROPERTY,
            SettingType.bool(), true, "cuda", "the sequence pass launches only the groups a batch needs");
    public static final Setting<Integer> MP_RESOLVE_PARTS = Setting.of(MultiPassLaunch.RESOLVE_PARTS_PROPERTY,
            SettingType.intRange(1, 1024), MultiPassLaunch.DEFAULT_RESOLVE_PARTS, "cuda",
            "slices of a block in the resolve pass at most");

    /** Every setting of the policy. */
    public static final List<Setting<?>> SETTINGS = List.of(SINGLE_PASS_THREADS, MULTI_PASS_MIN, MP_THREADS, MP_WINDOW,
            MP_SAME_ROUND, MP_JUMP, MP_ENTROPY_PAIRS, MP_SORT, MP_ENTROPY_WAVES, MP_EXEC_GROUPS_PER_FRAME, MP_DEFER,
            MP_SEQ_MIN, MP_SEQ_LANES, MP_SEQ_ITEMS, MP_SEQ_ABOVE, MP_SEQ_SIZED, MP_RESOLVE_PARTS);

    /**
     * What the settings ask of the policy; null where nobody set a value (the device decides, or
     * the default holds). {@link #NONE} asks nothing.
     */
    public record Overrides(Integer singlePassThreads, Long multiPassMin, Integer execThreads, Boolean window,
                            Boolean sameRound, Boolean jump, Boolean entropyPairs, Boolean sortFrames,
                            Long entropyWaves, Long execGroupsPerFrame, Long deferBlocks, Integer seqMin,
                            Integer seqLanes, Integer seqItems, Long seqAbove, Boolean seqSized,
                            Integer resolveParts) {

        public static final Overrides NONE = new Overrides(null, null, null, null, null, null, null, null, null, null,
                null, null, null, null, null, null, null);

        /** The values {@code r} finds set (explicitly, as properties or in the environment); unset ones null. */
        public static Overrides from(SettingResolver r) {
            return new Overrides(set(r, SINGLE_PASS_THREADS), set(r, MULTI_PASS_MIN), set(r, MP_THREADS),
                    set(r, MP_WINDOW), set(r, MP_SAME_ROUND), set(r, MP_JUMP), set(r, MP_ENTROPY_PAIRS), set(r, MP_SORT),
                    set(r, MP_ENTROPY_WAVES), set(r, MP_EXEC_GROUPS_PER_FRAME), set(r, MP_DEFER), set(r, MP_SEQ_MIN),
                    set(r, MP_SEQ_LANES), set(r, MP_SEQ_ITEMS), set(r, MP_SEQ_ABOVE), set(r, MP_SEQ_SIZED),
                    set(r, MP_RESOLVE_PARTS));
        }

        private static <T> T set(SettingResolver r, Setting<T> s) {
            var v = r.resolve(s);
            return v.source() == dev.zarrdirect.api.settings.SettingSource.DEFAULT ? null : v.value();
        }
    }

    /**
     * What a policy needs to know of a device.
     *
     * @param name                   for messages ({@code cuda:0 (NVIDIA H200)})
     * @param computeMajor           compute capability
     * @param computeMinor           compute capability
     * @param multiprocessors        SM count
     * @param maxSharedPerBlockOptin shared memory a group may opt in to
     * @param maxSharedPerSm         shared memory of a multiprocessor
     * @param maxThreadsPerSm        resident threads of a multiprocessor
     * @param kernelMaxThreads       the most threads a group of a kernel (by name) may have (its registers)
     */
    public record DeviceProperties(String name, int computeMajor, int computeMinor, int multiprocessors,
                                   int maxSharedPerBlockOptin, int maxSharedPerSm, int maxThreadsPerSm,
                                   ToIntFunction<String> kernelMaxThreads) {

        /** The properties of {@code d} (its kernels' thread limits asked of the driver as needed). */
        public static DeviceProperties of(CudaDevice d) {
            return new DeviceProperties(d.toString(), d.computeMajor(), d.computeMinor(), d.multiprocessors(),
                    d.maxSharedMemoryPerBlockOptin(), d.maxSharedMemoryPerMultiprocessor(),
                    d.maxThreadsPerMultiprocessor(), d::maxThreadsPerBlock);
        }
    }

    /** The defaults on {@code d}: {@link #forDevice} with nothing overridden. */
    public static ZstdKernelPolicy defaults(DeviceProperties d) {
        return forDevice(d, Overrides.NONE);
    }

    /**
     * The policy for device {@code d}, with {@code o}'s values over the device's defaults.
     *
     * @throws InvalidSettingException when a setting asks for more execute threads than the kernel
     *                                 can run on the device, or for a sequence pass that cannot fit
     */
    public static ZstdKernelPolicy forDevice(DeviceProperties d, Overrides o) {
        boolean fits = d.maxSharedPerBlockOptin() >= MultiPassLaunch.WIN_SHARED_BYTES;
        boolean window = fits && or(o.window(), true);
        int execThreads = or(o.execThreads(),
                window ? MultiPassLaunch.DEFAULT_WINDOW_THREADS : MultiPassLaunch.DEFAULT_IN_PLACE_THREADS);
        String kernel = window ? "zd_zstd_mp_exec_win" : "zd_zstd_mp_exec";
        int max = d.kernelMaxThreads().applyAsInt(kernel);
        if (execThreads > max) {
            String v = Integer.toString(execThreads);
            throw new InvalidSettingException(MP_THREADS.name(), v, MP_THREADS.name() + " = \"" + v
                    + "\": expected at most the " + max + " threads " + kernel + " can run in one group on " + d.name()
                    + " (its registers)" + (o.execThreads() == null ? "; this is the default: set it lower" : ""));
        }
        int seqMin = or(o.seqMin(), MultiPassLaunch.DEFAULT_SEQ_MIN);
        MultiPassLaunch.Sequences seq = MultiPassLaunch.Sequences.OFF;
        if (seqMin > 0) {
            boolean asked = o.seqLanes() != null || o.seqItems() != null;
            int lanes = or(o.seqLanes(), MultiPassLaunch.DEFAULT_SEQ_LANES);
            int items = or(o.seqItems(), MultiPassLaunch.DEFAULT_SEQ_ITEMS);
            try {
                seq = MultiPassLaunch.Sequences.fit(seqMin, lanes, items, d.maxSharedPerSm(), d.maxThreadsPerSm(),
                        d.maxSharedPerBlockOptin(), d.kernelMaxThreads().applyAsInt("zd_zstd_mp_sequences"));
            } catch (IllegalArgumentException e) {
                // a device too small for the default pass decodes sequences in the entropy pass;
                // settings someone chose are reported
                if (asked) {
                    throw new InvalidSettingException(MP_SEQ_LANES.name(), lanes + "/" + items, MP_SEQ_LANES.name()
                            + " = \"" + lanes + "\", " + MP_SEQ_ITEMS.name() + " = \"" + items + "\": " + e.getMessage()
                            + " on " + d.name() + "; set fewer lanes or items, or " + MP_SEQ_MIN.name() + "=0");
                }
            }
        }
        long defer = or(o.deferBlocks(), MultiPassLaunch.DEFAULT_DEFER_BLOCKS);
        if (!window || d.maxSharedPerBlockOptin() < MultiPassLaunch.DEFER_SHARED_BYTES) {
            defer = 0;
        }
        MultiPassLaunch mp = new MultiPassLaunch(d.multiprocessors(), execThreads, window, or(o.sameRound(), false),
                or(o.jump(), true), or(o.entropyPairs(), true), seq, defer,
                or(o.entropyWaves(), MultiPassLaunch.DEFAULT_ENTROPY_WAVES),
                or(o.execGroupsPerFrame(), MultiPassLaunch.DEFAULT_EXEC_GROUPS_PER_FRAME),
                o.seqAbove() == null ? -1 : o.seqAbove(), or(o.seqSized(), true),
                or(o.resolveParts(), MultiPassLaunch.DEFAULT_RESOLVE_PARTS));
        return new ZstdKernelPolicy(or(o.singlePassThreads(), 32), or(o.multiPassMin(), CudaZstdCodec.DEFAULT_MP_MIN),
                or(o.sortFrames(), true), mp);
    }

    private static <T> T or(T v, T otherwise) {
        return v != null ? v : otherwise;
    }
}
