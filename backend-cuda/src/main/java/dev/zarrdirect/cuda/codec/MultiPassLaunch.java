// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.KernelArgs;

/**
 * The launches of the multi-pass zstd decoder (kernels: zstd/zd_zstd_mp.h, cuda/zd_zstd_mp.cu)
 * for one batch of frames, queued in order on one stream: {@code zd_zstd_mp_scan} (block tables),
 * {@code zd_zstd_mp_entropy} (literals of every block, and its sequences unless
 * {@code zd_zstd_mp_sequences} follows to decode them, a block a thread), {@code zd_zstd_mp_link}
 * (block positions and repeat offsets), {@code zd_zstd_mp_exec} (persistent groups executing
 * blocks in ticket order; or {@code zd_zstd_mp_exec_defer}, whose blocks do not wait for each
 * other, then {@code zd_zstd_mp_resolve}, which copies the bytes they left, a frame's blocks in
 * order) and {@code zd_zstd_mp_finish} (checksums, single-pass fallback, status).
 * The codec and the kernel bench both queue through here, so the bench times what reads run.
 *
 * @param multiprocessors the device's SM count: the persistent launches are sized from it
 * @param execThreads     threads per group of the execute pass: a multiple of 32, at most 1024
 * @param window          whether the execute pass builds blocks in shared memory
 *                        ({@code zd_zstd_mp_exec_win}, {@link #WIN_SHARED_BYTES} per group)
 * @param sameRound       whether a short match marks its bytes as soon as it is copied, so that
 *                        matches depending on it may run in the same round (ZD_MPX_F_SAME_ROUND)
 * @param jump            whether batches of short output are executed by pointer jumping instead
 *                        of in rounds (ZD_MPX_F_JUMP; only with the window, whose shared memory
 *                        holds the pointers)
 * @param entropyPairs    whether the entropy pass decodes two blocks a 32-thread group
 *                        ({@code zd_zstd_mp_entropy_pairs}) or one ({@code zd_zstd_mp_entropy})
 * @param sequences      how the sequence pass ({@code zd_zstd_mp_sequences}) runs, and for which
 *                        blocks ({@link Sequences#OFF}: none, the entropy pass decodes every block's
 *                        sequences)
 * @param deferBlocks     batches whose largest frame has at least this many blocks execute deferred
 *                        ({@link #DEFER_PROPERTY}; 0: never)
 * @param entropyWaves    groups of the entropy pass launched, in multiples of those resident at once
 *                        ({@link #ENTROPY_WAVES_PROPERTY}, 1..1024)
 * @param execGroupsPerFrame groups of the waiting execute pass per frame of the batch at most
 *                        ({@link #EXEC_GROUPS_PER_FRAME_PROPERTY}, 1..1024)
 * @param seqAbove        the sequence pass runs for batches of more than this many blocks; -1: the
 *                        chains the entropy pass keeps resident ({@link #SEQ_ABOVE_PROPERTY})
 * @param seqSized        whether the sequence pass launches only the groups a batch's blocks need
 *                        ({@link #SEQ_SIZED_PROPERTY})
 * @param resolveParts    slices of a block in {@code zd_zstd_mp_resolve} at most
 *                        ({@link #RESOLVE_PARTS_PROPERTY}, 1..1024)
 *
 * <p>Made once per device when the backend starts ({@link ZstdKernelPolicy}); nothing here reads
 * a setting.
 */
public record MultiPassLaunch(int multiprocessors, int execThreads, boolean window, boolean sameRound, boolean jump,
                              boolean entropyPairs, Sequences sequences, long deferBlocks, long entropyWaves,
                              long execGroupsPerFrame, long seqAbove, boolean seqSized, int resolveParts) {

    /** Default {@link #entropyWaves()}, {@link #execGroupsPerFrame()}. */
    public static final long DEFAULT_ENTROPY_WAVES = 4, DEFAULT_EXEC_GROUPS_PER_FRAME = 2;

    /**
     * With the defaults of {@link #entropyWaves()} (4), {@link #execGroupsPerFrame()} (2),
     * {@link #seqAbove()} (the resident chains), {@link #seqSized()} (true) and
     * {@link #resolveParts()} ({@value #DEFAULT_RESOLVE_PARTS}).
     */
    public MultiPassLaunch(int multiprocessors, int execThreads, boolean window, boolean sameRound, boolean jump,
                           boolean entropyPairs, Sequences sequences, long deferBlocks) {
        this(multiprocessors, execThreads, window, sameRound, jump, entropyPairs, sequences, deferBlocks,
                DEFAULT_ENTROPY_WAVES, DEFAULT_EXEC_GROUPS_PER_FRAME, -1, true, DEFAULT_RESOLVE_PARTS);
    }

    /**
     * The sequence pass: blocks of at least {@code min} sequences (0: no pass) are decoded by one
     * item each, {@code itemsPerGroup} items a group of 32-thread warps with {@code lanes} items
     * each (a power of two up to 32), {@code groupsPerSm} groups a multiprocessor; each item has
     * its tables in {@link #SEQ_LDS_BYTES} of shared memory. A block's sequences are one serial
     * chain; many lanes a warp share its instructions but run every branch any of them takes,
     * few lanes need more warps, and shared memory bounds the chains a multiprocessor.
     */
    public record Sequences(int min, int lanes, int itemsPerGroup, int groupsPerSm) {
        public static final Sequences OFF = new Sequences(0, 1, 1, 1);

        public Sequences {
            if (min < 0 || lanes < 1 || lanes > 32 || Integer.bitCount(lanes) != 1 || itemsPerGroup < 1
                    || groupsPerSm < 1 || threadsPerGroup(itemsPerGroup, lanes) > 1024) {
                throw new IllegalArgumentException("multi-pass sequence pass: min " + min + ", lanes " + lanes
                        + " (a power of two up to 32), items a group " + itemsPerGroup + " (at most 32 warps of "
                        + lanes + "), groups a multiprocessor " + groupsPerSm);
            }
        }

        private static int threadsPerGroup(int items, int lanes) {
            return (items + lanes - 1) / lanes * 32;
        }

        public boolean on() {
            return min > 0;
        }

        /** Threads of a group: whole warps of {@code lanes} items. */
        public int threads() {
            return threadsPerGroup(itemsPerGroup, lanes);
        }

        /** Dynamic shared memory of a group: the code table, then each item's tables. */
        public int sharedBytes() {
            return SEQ_CODES_BYTES + itemsPerGroup * SEQ_LDS_BYTES;
        }

        /**
         * The largest pass for a multiprocessor of {@code smBytes} of shared memory (with
         * {@link #SM_RESERVED_BYTES} a group reserved) and {@code smThreads} threads, groups of at
         * most {@code groupMaxBytes} and {@code groupMaxThreads} (the kernel's registers): the most
         * items, in the fewest groups of at most {@code itemsMax} items (0: any).
         */
        public static Sequences fit(int min, int lanes, int itemsMax, int smBytes, int smThreads, int groupMaxBytes,
                                    int groupMaxThreads) {
            int threadCap = Math.min(1024, groupMaxThreads) / 32 * lanes;
            int bestItems = 0, bestGroups = 1, bestPer = 1;
            for (int groups = 1; groups <= 32; groups++) {
                int per = Math.min(threadCap, (smBytes / groups - SM_RESERVED_BYTES - SEQ_CODES_BYTES) / SEQ_LDS_BYTES);
                if (itemsMax > 0) per = Math.min(per, itemsMax);
                if (per < 1 || SEQ_CODES_BYTES + per * SEQ_LDS_BYTES > groupMaxBytes) continue;
                if (groups * threadsPerGroup(per, lanes) > smThreads) continue;
                if (groups * per > bestItems) {
                    bestItems = groups * per;
                    bestGroups = groups;
                    bestPer = per;
                }
            }
            if (bestItems == 0) {
                throw new IllegalArgumentException("no multi-pass sequence pass of " + lanes + " lanes a warp fits "
                        + smBytes + " bytes of shared memory a multiprocessor (" + SEQ_LDS_BYTES + " an item)");
            }
            return new Sequences(min, lanes, bestPer, bestGroups);
        }
    }

    /**
     * Groups of the entropy pass launched, in multiples of those resident at once; default 4. The
     * kernel strides over the block slots, so with one multiple each group decoded its fixed share
     * (~4 slots on the sharded ERA5 frames) however long its blocks were, and the pass waited for
     * the unluckiest group; with more, the device starts a waiting group wherever one finishes.
     * Measured on the H200, GB/s at 1 / 2 / 4 / 8: sharded ERA5 frames 45.2 / 46.8 / 47.5 / 47.5;
     * 1 MiB frames at levels 1 / 3 / 9: 97.2 / 53.2 / 43.6 at 1, 105.8 / 60.0 / 45.8 at 4.
     */
    public static final String ENTROPY_WAVES_PROPERTY = "zarrdirect.cuda.zstdMultiPassEntropyWaves";

    /**
     * Groups of the execute pass per frame of the batch at most; default 2. A frame's blocks mostly
     * run one after another (a block waits for the earlier blocks its matches read), so groups past
     * a few a frame spin on flags while holding a multiprocessor (a window group takes all of its
     * shared memory): a batch of 16 sharded ERA5 frames held all 132 SMs of an H200 for the 5 ms of
     * its chains, and the batches decoding beside it on other streams could not start. Measured on
     * the H200: the plain ERA5 layout read as two batches of 16 chunks decoding at once, 10.5 GB/s
     * without the cap, 16.0 / 16.1 with 1 / 2 a frame; the kernel alone on 33 of those 66 MB
     * frames (one launch), execute pass 76.1 ms without the cap, 79.0 / 76.2 with 1 / 2 a frame.
     * Batches of 128 sharded frames are capped at the 132 resident groups either way.
     */
    public static final String EXEC_GROUPS_PER_FRAME_PROPERTY = "zarrdirect.cuda.zstdMultiPassExecGroupsPerFrame";

    /**
     * Batches whose largest frame has at least this many blocks (decoded bytes / 128 KiB) execute
     * deferred (0: never); default {@link #DEFAULT_DEFER_BLOCKS}. The execute pass then runs every
     * block at once: a match byte whose chain of sources leaves its block is not waited for but
     * recorded (a u32 per decoded byte of device scratch), and {@code zd_zstd_mp_resolve} copies
     * those bytes, each frame's blocks in order, one gather a byte. Otherwise a frame's blocks
     * execute one after another, since each reads the one before (a 66 MB ERA5 frame: 512 blocks,
     * 70% of whose bytes come from an earlier block through some chain; `tools/gpu/taint.c`).
     * Needs the window and {@link #DEFER_SHARED_BYTES} of shared memory a group. Measured on the
     * H200 (`tools/gpu/prop-sweep.sh`): the kernel on 33 of those frames 21.3 GB/s waiting, 35.1
     * deferred (execute 76.4 ms against 29.0 + 6.5 to resolve); the read of that store 17.28
     * against 23.16 GB/s. On the sharded layout's 4 MB frames (32 blocks) deferring loses: kernel
     * 52.5 against 39.4 GB/s, read 37.92 against 30.43, since the deferred execute pass does more
     * work a byte and the waiting one's chains are short there.
     */
    public static final String DEFER_PROPERTY = "zarrdirect.cuda.zstdMultiPassDefer";

    public static final long DEFAULT_DEFER_BLOCKS = 64;

    /** sizeof(zd_mp_entropy_lds): one block's tables in the entropy pass. */
    static final int ENTROPY_LDS_BYTES = 6072;

    /** sizeof(zd_mp_seq_lds): one item's three tables of compact cells in the sequence pass. */
    public static final int SEQ_LDS_BYTES = 2820;

    /** ZD_MP_SEQ_CODES_BYTES: the code table a sequence-pass group shares, before its items' tables. */
    public static final int SEQ_CODES_BYTES = 368;

    /** Shared memory the driver reserves per resident group (1 KiB on sm_80 to sm_100). */
    public static final int SM_RESERVED_BYTES = 1024;

    /**
     * Blocks of at least this many sequences go to the sequence pass (0: none, the entropy pass
     * decodes every block's sequences); default {@link #DEFAULT_SEQ_MIN}. Measured on the H200
     * (kernel GB/s, `tools/gpu/prop-sweep.sh gen`, 8 lanes): 1 MiB frames at levels 1 / 3 / 9
     * 105.0 / 59.8 / 45.4 without the pass, 102.6 / 58.4 / 45.7 from 1024 sequences, 104.5 / 59.0 /
     * 46.5 from 64; 4 MiB at level 9 30.3, 30.6, 32.0. The sharded ERA5 frames' blocks (~15,000
     * sequences) go either way: 46.8 GB/s without the pass, 53.0 with it.
     */
    public static final String SEQ_MIN_PROPERTY = "zarrdirect.cuda.zstdMultiPassSeqMin";

    /**
     * Items a warp of the sequence pass ({@link Sequences#lanes}); default {@link #DEFAULT_SEQ_LANES}.
     * Measured on the H200, the pass on the sharded ERA5 frames (ms, as many items as fit, ~80 a
     * multiprocessor): 1 lane 42.1, 2 25.4, 4 17.9, 8 17.5, 16 19.4, 32 23.2; 8 lanes in groups of
     * 16 items 17.3 (the entropy pass beside it, literals only: 2.7 ms, against 25.3 for both).
     */
    public static final String SEQ_LANES_PROPERTY = "zarrdirect.cuda.zstdMultiPassSeqLanes";

    /**
     * Items a group of the sequence pass at most (0: as many as fit); default
     * {@link #DEFAULT_SEQ_ITEMS}: small groups give a multiprocessor's shared memory back as they
     * finish, to the batches decoding beside them.
     */
    public static final String SEQ_ITEMS_PROPERTY = "zarrdirect.cuda.zstdMultiPassSeqItems";

    /**
     * The sequence pass runs for batches of more than this many blocks (their frames' decoded
     * sizes over 128 KiB); default: the chains the entropy pass keeps resident (4488 on an H200,
     * in pairs), 0: always. Measured on the H200, sharded ERA5 frames: the kernel alone on 518
     * frames (16,576 blocks) 46.8 GB/s without the pass, 53.0 with it; the end-to-end read in
     * batches of 128 frames (4096 blocks) 36.3 against 35.8 GB/s, and the batches' decode spans
     * longer with it (two batches at once: 24.6 against 27.5 ms).
     */
    public static final String SEQ_ABOVE_PROPERTY = "zarrdirect.cuda.zstdMultiPassSeqAbove";

    /**
     * Whether the sequence pass launches only the groups a batch's blocks need (default true) or
     * as many as the device holds.
     */
    public static final String SEQ_SIZED_PROPERTY = "zarrdirect.cuda.zstdMultiPassSeqSized";

    /** The blocks a frame of {@code decodedBytes} has at least: a zstd block holds at most 128 KiB. */
    public static long minBlocks(long decodedBytes) {
        return Math.max(1, (decodedBytes + (128 << 10) - 1) >> 17);
    }

    public static final int DEFAULT_SEQ_MIN = 64, DEFAULT_SEQ_LANES = 8, DEFAULT_SEQ_ITEMS = 16;

    /** ZD_MPX_F_SAME_ROUND, ZD_MPX_F_CG, ZD_MPX_F_JUMP in zd_zstd_mp.h. */
    private static final int F_SAME_ROUND = 1, F_CG = 2, F_JUMP = 4;

    /** Dynamic shared memory of {@code zd_zstd_mp_exec_win}: ZD_MPX_WIN_SHARED_BYTES in zd_zstd_mp.cu. */
    public static final int WIN_SHARED_BYTES = 25 * 1024 + 128 * 1024 + 64 * 1024;

    /**
     * Dynamic shared memory of {@code zd_zstd_mp_exec_defer}: ZD_MPX_DEFER_SHARED_BYTES (the
     * window kernel's, with pointers for 14 KiB batches, then a taint bit per window byte).
     */
    public static final int DEFER_SHARED_BYTES = 25 * 1024 + 128 * 1024 + 4 * 14336 + 16 * 1024;

    /**
     * Default threads per group of the execute pass, with and without the window. Measured on the
     * H200 (execute pass on the sharded ERA5 frames, 2.15 GB, window): 256 -> 102.5 ms, 512 -> 60.9 ms,
     * 1024 -> 37.8 ms; the in-place kernel needs 80 registers a thread, so 1024 cannot launch.
     */
    public static final int DEFAULT_WINDOW_THREADS = 1024, DEFAULT_IN_PLACE_THREADS = 512;

    /** Threads of a {@code zd_zstd_mp_resolve} group (persistent, one a multiprocessor, taking slices by ticket). */
    static final int RESOLVE_THREADS = 1024;

    /**
     * Slices of a block in {@code zd_zstd_mp_resolve} (each a ticket, for any group): enough that a
     * batch's frames keep the multiprocessors busy, at most {@link #RESOLVE_PARTS_PROPERTY}. A
     * frame's blocks resolve one after another, so a batch of few frames would leave most
     * multiprocessors idle with one slice a block.
     */
    static int resolveParts(int n, int multiprocessors) {
        return resolveParts(n, multiprocessors, DEFAULT_RESOLVE_PARTS);
    }

    /** {@link #resolveParts(int, int)} with at most {@code max} slices. */
    static int resolveParts(int n, int multiprocessors, int max) {
        return Math.clamp(multiprocessors / Math.max(1, n), 1, Math.max(1, max));
    }

    /**
     * Slices of a block in {@code zd_zstd_mp_resolve} at most; default {@link #DEFAULT_RESOLVE_PARTS}.
     * Measured on the H200, 33 frames of 66 MB: resolve 14.5 ms with one slice a block, 6.5 with 4.
     * The plain ERA5 store's read, in batches of 16 of those frames (so 8 slices a block rather than
     * 4), four alternating pairs of calls: 30.35 / 31.18 / 30.60 / 30.92 GB/s against 30.48 / 29.53
     * / 29.65 / 29.93 (`PASSES=5 bash tools/gpu/prop-sweep.sh read-plain ...`).
     */
    public static final String RESOLVE_PARTS_PROPERTY = "zarrdirect.cuda.zstdMultiPassResolveParts";

    public static final int DEFAULT_RESOLVE_PARTS = 8;

    /**
     * The order in which a batch's frames go to {@link #enqueue}: by encoded size, so that the
     * frames whose blocks share a group of the pairs entropy pass (neighbouring frames) are alike.
     * The two threads of a pair run their serial sequence loops in the same warp instructions, so
     * a pair costs the instructions of its longer block; the ERA5 layouts' neighbouring chunks are
     * different variables (ratios 1.8 to 8.9 side by side). Stable.
     */
    public static int[] frameOrder(long[] encodedSizes) {
        return frameOrder(encodedSizes, true);
    }

    /**
     * {@link #frameOrder(long[])} when {@code sort}, else the identity (the policy's
     * {@link ZstdKernelPolicy#sortFrames()}, {@link CudaZstdCodec#MP_SORT_PROPERTY}{@code =false}).
     */
    public static int[] frameOrder(long[] encodedSizes, boolean sort) {
        Integer[] order = new Integer[encodedSizes.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        if (sort) {
            java.util.Arrays.sort(order, java.util.Comparator.comparingLong(i -> encodedSizes[i]));
        }
        int[] out = new int[order.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = order[i];
        }
        return out;
    }

    /** Queues one kernel launch: {@code grid} groups of {@code threads} with {@code sharedBytes} of dynamic shared memory. */
    @FunctionalInterface
    public interface Launcher {
        void launch(String kernel, int grid, int threads, int sharedBytes, KernelArgs args);
    }

    public MultiPassLaunch {
        if (execThreads < 32 || execThreads > 1024 || execThreads % 32 != 0) {
            throw new IllegalArgumentException("threads of the multi-pass execute launch must be a multiple of 32 in"
                    + " [32, 1024], got " + execThreads + " (" + CudaZstdCodec.MP_THREADS_PROPERTY + ")");
        }
        java.util.Objects.requireNonNull(sequences, "sequences");
        if (multiprocessors < 1 || deferBlocks < 0 || entropyWaves < 1 || execGroupsPerFrame < 1 || seqAbove < -1
                || resolveParts < 1) {
            throw new IllegalArgumentException("multi-pass launch: multiprocessors " + multiprocessors + ", defer "
                    + deferBlocks + ", entropy waves " + entropyWaves + ", execute groups a frame " + execGroupsPerFrame
                    + ", sequence pass above " + seqAbove + ", resolve parts " + resolveParts);
        }
    }

    /**
     * The launches for {@code device} with the settings of system properties, environment and
     * defaults: {@link ZstdKernelPolicy#forDevice}. For tools (the kernel bench); the backend makes
     * its policy once per device when it starts and the codec uses that.
     *
     * @throws dev.zarrdirect.api.InvalidSettingException when a setting asks for a launch the device cannot run
     */
    public static MultiPassLaunch of(CudaDevice device) {
        return ZstdKernelPolicy.forDevice(ZstdKernelPolicy.DeviceProperties.of(device),
                ZstdKernelPolicy.Overrides.from(dev.zarrdirect.api.settings.SettingResolver.system())).multiPass();
    }

    /**
     * Whether a batch whose largest frame decodes to {@code maxDecodedBytes} executes deferred; then
     * {@link #enqueue} needs {@link #refBytes} of device scratch for the frames' refs. Frames of
     * 4 GiB and more never do (a ref is a u32 position in its frame).
     */
    public boolean defers(long maxDecodedBytes) {
        return deferBlocks > 0 && minBlocks(maxDecodedBytes) >= deferBlocks && maxDecodedBytes < 0xFFFF_FFFFL;
    }

    /** Device scratch for the refs of deferred execution: a u32 per decoded byte. */
    public static long refBytes(long totalDecodedBytes) {
        return 4 * totalDecodedBytes;
    }

    /**
     * Queues the launches. Addresses are device addresses: {@code srcOffsets}, {@code srcSizes},
     * {@code dstOffsets}, {@code dstSizes} and {@code scratchOffsets} point at {@code n} u64 each,
     * {@code slotBase} at {@code n + 1} (running sums of {@link CudaZstdCodec#mpSlots}), {@code status}
     * at {@code n} u32 that receive the frames' statuses; {@code maxSlots} is the largest
     * {@link CudaZstdCodec#mpSlots} of the frames, {@code minBlocks} the blocks the frames have at
     * least ({@link #minBlocks}). With {@code refs} not 0 (where {@link #defers} said so) the execute
     * pass is deferred: {@code refs} holds {@link #refBytes} of the frames' decoded bytes, frame c's
     * from byte 4 * refOffsets[c] ({@code refOffsets}: n u64).
     */
    public void enqueue(Launcher l, long src, long srcOffsets, long srcSizes, long dst, long dstOffsets, long dstSizes,
                        long scratch, long scratchOffsets, long slotBase, long status, int n, long totalSlots,
                        long maxSlots, long minBlocks, long refs, long refOffsets) {
        l.launch("zd_zstd_mp_scan", n, 32, 0, new KernelArgs().u64(src).u64(srcOffsets).u64(srcSizes).u64(dstSizes)
                .u64(scratch).u64(scratchOffsets).u32(n));
        // pass 2 strides over n x maxSlots block slots, block index major (most of a large frame's
        // slots are empty bounds); its groups are small, so 32 fit on a multiprocessor
        // (pairs: two blocks' tables a group, so shared memory holds 17 groups a multiprocessor:
        // 228 KiB, 1 KiB of it reserved per group)
        int entropyPerSm = entropyPairs ? Math.min(32, 228 * 1024 / (2 * ENTROPY_LDS_BYTES + 1024)) : 32;
        long work = entropyPairs ? (totalSlots + 1) / 2 : totalSlots;
        // the sequence pass only where the entropy pass's resident chains would take more than one
        // round: a chain is longer there (~1150 cycles a sequence on the H200 against ~870), so it
        // wins on throughput, not on the latency of a batch whose blocks all start at once
        long chains = (long) entropyPerSm * multiprocessors * (entropyPairs ? 2 : 1);
        boolean seqPass = sequences.on() && minBlocks > (seqAbove >= 0 ? seqAbove : chains);
        int seqMin = seqPass ? sequences.min() : 0;
        long waves = entropyWaves;
        int entropyGrid = (int) Math.max(1, Math.min(work, waves * entropyPerSm * multiprocessors));
        l.launch(entropyPairs ? "zd_zstd_mp_entropy_pairs" : "zd_zstd_mp_entropy", entropyGrid, 32, 0,
                new KernelArgs().u64(src).u64(srcOffsets).u64(srcSizes).u64(dstSizes).u64(scratch)
                        .u64(scratchOffsets).u64(slotBase).u32(n).u64(maxSlots).u32(seqMin));
        if (seqPass) {
            // persistent: each item takes whole blocks by ticket, in groups that fill the multiprocessors'
            // shared memory with their items' tables; but no more groups than the batch's blocks
            // need, so that a small batch leaves shared memory to the batches decoding beside it
            // (a group holds its share until its last item's block is done)
            long groups = (long) multiprocessors * sequences.groupsPerSm();
            if (seqSized) {
                groups = Math.clamp((minBlocks + sequences.itemsPerGroup() - 1) / sequences.itemsPerGroup(), 1, groups);
            }
            l.launch("zd_zstd_mp_sequences", (int) groups, sequences.threads(),
                    sequences.sharedBytes(), new KernelArgs().u64(src).u64(srcOffsets).u64(srcSizes).u64(dstSizes)
                            .u64(scratch).u64(scratchOffsets).u32(n).u32(seqMin).u32(sequences.lanes())
                            .u32(sequences.itemsPerGroup()));
        }
        l.launch("zd_zstd_mp_link", n, 32, 0, new KernelArgs().u64(dstSizes).u64(scratch).u64(scratchOffsets).u32(n));
        // persistent: as many groups as can be resident (more would only find the tickets gone; a
        // window takes most of a multiprocessor's shared memory: one group each), and no more than
        // the frames' chains keep busy
        int perSm = window ? 1 : Math.max(1, 2048 / execThreads);
        long perFrame = execGroupsPerFrame;
        int flags = F_CG | (sameRound ? F_SAME_ROUND : 0) | (jump ? F_JUMP : 0);
        if (refs != 0) {
            // deferred: no block waits for another, so every multiprocessor has blocks to run
            int grid = (int) Math.max(1, Math.min(totalSlots, multiprocessors));
            l.launch("zd_zstd_mp_exec_defer", grid, execThreads, DEFER_SHARED_BYTES, new KernelArgs().u64(src)
                    .u64(srcOffsets).u64(srcSizes).u64(dst).u64(dstOffsets).u64(dstSizes).u64(scratch)
                    .u64(scratchOffsets).u32(n).u32(flags).u64(refs).u64(refOffsets));
            // persistent, slices of blocks by ticket: a group a multiprocessor (1024 threads)
            int parts = resolveParts(n, multiprocessors, resolveParts);
            l.launch("zd_zstd_mp_resolve", multiprocessors, RESOLVE_THREADS, 0, new KernelArgs().u64(dst).u64(dstOffsets)
                    .u64(scratch).u64(scratchOffsets).u64(refs).u64(refOffsets).u32(n).u32(parts));
        } else {
            int execGrid = (int) Math.max(1, Math.min(Math.min(totalSlots, (long) multiprocessors * perSm), n * perFrame));
            l.launch(window ? "zd_zstd_mp_exec_win" : "zd_zstd_mp_exec", execGrid, execThreads,
                    window ? WIN_SHARED_BYTES : 0, new KernelArgs().u64(src).u64(srcOffsets).u64(srcSizes)
                    .u64(dst).u64(dstOffsets).u64(dstSizes).u64(scratch).u64(scratchOffsets).u32(n).u32(flags));
        }
        l.launch("zd_zstd_mp_finish", n, 32, 0, new KernelArgs().u64(src).u64(srcOffsets).u64(srcSizes).u64(dst)
                .u64(dstOffsets).u64(dstSizes).u64(scratch).u64(scratchOffsets).u64(status).u32(n));
    }
}
