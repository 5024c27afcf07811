// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingValues;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The zstd kernel policy chosen from given device properties: no GPU needed. */
class ZstdKernelPolicyTest {

    /** An H200 (sm_90): 132 SMs, 227 KiB a group, 228 KiB a multiprocessor, 2048 threads; the kernels' limits. */
    static final ZstdKernelPolicy.DeviceProperties H200 = new ZstdKernelPolicy.DeviceProperties("cuda:0 (H200)", 9, 0,
            132, 232_448, 233_472, 2048, k -> k.equals("zd_zstd_mp_exec") ? 768 : 1024);
    /** An H100 SXM: as the H200 with the same SM count and limits. */
    static final ZstdKernelPolicy.DeviceProperties H100 = new ZstdKernelPolicy.DeviceProperties("cuda:0 (H100)", 9, 0,
            132, 232_448, 233_472, 2048, k -> k.equals("zd_zstd_mp_exec") ? 768 : 1024);
    /** An A100 (sm_80): 108 SMs, 163 KiB a group, 164 KiB a multiprocessor. */
    static final ZstdKernelPolicy.DeviceProperties A100 = new ZstdKernelPolicy.DeviceProperties("cuda:0 (A100)", 8, 0,
            108, 166_912, 167_936, 2048, k -> k.equals("zd_zstd_mp_exec") ? 768 : 1024);

    private static ZstdKernelPolicy.Overrides overrides(Map<String, String> explicit) {
        return ZstdKernelPolicy.Overrides.from(new SettingResolver(SettingValues.of(explicit), n -> null, n -> null));
    }

    @Test
    void theH200AndH100DefaultsAreTheMeasuredValues() {
        for (var d : new ZstdKernelPolicy.DeviceProperties[]{H200, H100}) {
            ZstdKernelPolicy p = ZstdKernelPolicy.defaults(d);
            assertEquals(32, p.singlePassThreads());
            assertEquals((256L << 10) - 1, p.multiPassMin());
            assertTrue(p.sortFrames());
            assertFalse(p.multiPass(256L << 10 - 1));
            assertTrue(p.multiPass(256L << 10));
            // window, 1024 threads, no same-round marks, jumping, pairs, sequence pass from 64
            // sequences of 8 lanes in groups of 16 (five a multiprocessor), deferred from 64 blocks
            assertEquals(new MultiPassLaunch(132, 1024, true, false, true, true,
                    new MultiPassLaunch.Sequences(64, 8, 16, 5), 64, 4, 2, -1, true, 8), p.multiPass());
        }
    }

    @Test
    void theExplicitOverridesAreTheSameAsNoneWhenTheyRepeatTheDefaults() {
        ZstdKernelPolicy p = ZstdKernelPolicy.forDevice(H200, overrides(Map.ofEntries(
                Map.entry("zarrdirect.cuda.zstdThreads", "32"), Map.entry("zarrdirect.cuda.zstdMultiPassThreads", "1024"),
                Map.entry("zarrdirect.cuda.zstdMultiPassWindow", "true"),
                Map.entry("zarrdirect.cuda.zstdMultiPassSeqLanes", "8"),
                Map.entry("zarrdirect.cuda.zstdMultiPassSeqItems", "16"),
                Map.entry("zarrdirect.cuda.zstdMultiPassDefer", "64"),
                Map.entry("zarrdirect.cuda.zstdMultiPassEntropyWaves", "4"),
                Map.entry("zarrdirect.cuda.zstdMultiPassExecGroupsPerFrame", "2"),
                Map.entry("zarrdirect.cuda.zstdMultiPassResolveParts", "8"))));
        assertEquals(ZstdKernelPolicy.defaults(H200), p);
    }

    @Test
    void withoutRoomForTheWindowTheExecutePassRunsInPlaceAndNeverDefers() {
        ZstdKernelPolicy p = ZstdKernelPolicy.defaults(A100);
        assertFalse(p.multiPass().window());
        assertEquals(512, p.multiPass().execThreads());
        assertEquals(0, p.multiPass().deferBlocks());
        assertEquals(108, p.multiPass().multiprocessors());
        // the sequence pass still fits, as many items as the smaller shared memory holds
        assertEquals(MultiPassLaunch.Sequences.fit(64, 8, 16, 167_936, 2048, 166_912, 1024), p.multiPass().sequences());
        assertTrue(p.multiPass().sequences().on());
    }

    @Test
    void turningTheWindowOffOnAnH200TakesTheInPlaceDefaults() {
        ZstdKernelPolicy p = ZstdKernelPolicy.forDevice(H200, overrides(Map.of("zarrdirect.cuda.zstdMultiPassWindow", "false")));
        assertFalse(p.multiPass().window());
        assertEquals(512, p.multiPass().execThreads());
        assertEquals(0, p.multiPass().deferBlocks(), "deferring needs the window");
    }

    @Test
    void moreExecuteThreadsThanTheKernelCanRunFailWhenTheBackendStarts() {
        var e = assertThrows(InvalidSettingException.class, () -> ZstdKernelPolicy.forDevice(H200,
                overrides(Map.of("zarrdirect.cuda.zstdMultiPassWindow", "false",
                        "zarrdirect.cuda.zstdMultiPassThreads", "1024"))));
        assertTrue(e.getMessage().startsWith("zarrdirect.cuda.zstdMultiPassThreads = \"1024\": expected at most the 768"
                + " threads zd_zstd_mp_exec can run"), e.getMessage());
    }

    @Test
    void aSequencePassThatCannotFitIsReportedOnlyWhenSomeoneAskedForIt() {
        var tiny = new ZstdKernelPolicy.DeviceProperties("cuda:0 (tiny)", 7, 5, 40, 4096, 4096, 1024, k -> 1024);
        assertEquals(MultiPassLaunch.Sequences.OFF, ZstdKernelPolicy.defaults(tiny).multiPass().sequences());
        assertThrows(InvalidSettingException.class, () -> ZstdKernelPolicy.forDevice(tiny,
                overrides(Map.of("zarrdirect.cuda.zstdMultiPassSeqItems", "64"))));
        assertEquals(MultiPassLaunch.Sequences.OFF, ZstdKernelPolicy.forDevice(H200,
                overrides(Map.of("zarrdirect.cuda.zstdMultiPassSeqMin", "0"))).multiPass().sequences());
    }

    @Test
    void kernelKnobsRejectValuesTheKernelsCannotTake() {
        for (var bad : Map.of("zarrdirect.cuda.zstdMultiPassThreads", "100", "zarrdirect.cuda.zstdMultiPassSeqLanes", "3",
                "zarrdirect.cuda.zstdMultiPassEntropyWaves", "0", "zarrdirect.cuda.zstdMultiPassMin", "-2",
                "zarrdirect.cuda.zstdMultiPassJump", "yes").entrySet()) {
            var e = assertThrows(InvalidSettingException.class, () -> overrides(Map.of(bad.getKey(), bad.getValue())),
                    bad.toString());
            assertTrue(e.getMessage().startsWith(bad.getKey() + " = \"" + bad.getValue() + "\": expected "), e.getMessage());
        }
    }

    @Test
    void launchKnobsReachTheLaunches() {
        ZstdKernelPolicy p = ZstdKernelPolicy.forDevice(H200, overrides(Map.of(
                "zarrdirect.cuda.zstdMultiPassExecGroupsPerFrame", "3", "zarrdirect.cuda.zstdMultiPassSeqAbove", "0",
                "zarrdirect.cuda.zstdMultiPassResolveParts", "2", "zarrdirect.cuda.zstdMultiPassSortFrames", "false")));
        assertEquals(3, p.multiPass().execGroupsPerFrame());
        assertEquals(0, p.multiPass().seqAbove());
        assertEquals(2, p.multiPass().resolveParts());
        assertFalse(p.sortFrames());
        java.util.Map<String, Integer> grid = new java.util.HashMap<>();
        p.multiPass().enqueue((kernel, g, threads, shared, args) -> grid.put(kernel, g), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                16, 2043L * 16, 2043, 32L * 16, 0, 0);
        assertEquals(48, grid.get("zd_zstd_mp_exec_win"));
        assertTrue(grid.containsKey("zd_zstd_mp_sequences"), "seqAbove 0: always a sequence pass");
    }
}
