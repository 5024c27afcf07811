// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.nio.file.Files;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * ZdStatus mirrors zstd/zd_status.h exactly: the same names, the same numbers (which it takes from
 * the generated KernelContract), and the contract's formulas give what the C macros give.
 */
class ZdStatusMirrorTest {
    @Test
    void everyStatusWordOfTheHeaderIsInZdStatusAndBack() throws Exception {
        String h = Files.readString(HostKernels.C_SRC.resolve("zstd/zd_status.h"));
        Map<String, Integer> c = new TreeMap<>();
        Matcher m = Pattern.compile("#define ZD_STATUS_(\\w+) (\\d+)u").matcher(h);
        while (m.find()) c.put(m.group(1), Integer.parseInt(m.group(2)));
        Map<String, Integer> java = new TreeMap<>();
        for (ZdStatus s : ZdStatus.values()) java.put(s.name(), s.code());
        assertEquals(c, java);
        assertEquals(c.size(), c.values().stream().distinct().count(), "status numbers must be distinct");
    }

    @Test
    void everyStatusOfTheGeneratedContractIsAStatusOfTheEnum() throws Exception {
        Map<String, Integer> contract = new TreeMap<>();
        for (var f : KernelContract.class.getFields()) {
            if (f.getName().startsWith("ZD_STATUS_")) {
                contract.put(f.getName().substring("ZD_STATUS_".length()), f.getInt(null));
            }
        }
        Map<String, Integer> java = new TreeMap<>();
        for (ZdStatus s : ZdStatus.values()) java.put(s.name(), s.code());
        assertEquals(contract, java);
    }

    @Test
    void bloscScratchSizesMatchTheKernelMacros() {
        for (long block : new long[] {0, 1, 15, 16, 4096, 131_073, 8L << 20}) {
            assertEquals(BloscTestSupport.scratchPerGroup(block, BloscTestSupport.ZSTD), ZdStatus.bloscScratchPerGroup(block, true));
            assertEquals(BloscTestSupport.scratchPerGroup(block, 0), ZdStatus.bloscScratchPerGroup(block, false));
        }
        // the zstd scratch the backends allocate per frame is the kernels' (it was once copied as 128 KiB)
        assertEquals(256L << 10, ZdStatus.ZSTD_SCRATCH_PER_FRAME);
    }
}
