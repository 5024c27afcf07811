// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.kernels;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** ZdStatus and the tests' ZdStatusCodes say what zstd/zd_status.h says, code for code. */
class ZdStatusTest {
    @Test
    void everyStatusOfTheHeaderIsMirroredWithItsName() throws IOException, IllegalAccessException {
        String h = Files.readString(HostKernels.C_SRC.resolve("zstd/zd_status.h"));
        Matcher m = Pattern.compile("#define ZD_STATUS_(\\w+) (\\d+)u").matcher(h);
        Map<String, Integer> header = new HashMap<>();
        while (m.find()) header.put(m.group(1), Integer.parseInt(m.group(2)));
        assertTrue(header.size() >= 20, "read " + header.size() + " statuses");
        for (var e : header.entrySet()) {
            assertEquals(e.getKey(), ZdStatus.of(e.getValue()).name(), "ZdStatus for " + e.getValue());
        }
        assertEquals(header.size(), ZdStatus.values().length, "ZdStatus has statuses the header lacks");
        for (Field f : ZdStatusCodes.class.getDeclaredFields()) {
            if (f.getType() != int.class) continue;
            String name = f.getName();
            Integer code = header.containsKey(name) ? header.get(name) : header.get("CORRUPT_" + name);
            assertNotNull(code, "ZdStatusCodes." + name + " is not in zd_status.h");
            assertEquals(code.intValue(), f.getInt(null), "ZdStatusCodes." + name);
        }
    }
}
