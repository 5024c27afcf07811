// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The cuFile structs have the sizes and field offsets of cufile.h on LP64 Linux. */
class CuFileLayoutTest {

    @Test
    void structLayoutsMatchCufileH() {
        assertEquals(8, CuFile.CUFILE_ERROR.byteSize());
        assertEquals(24, CuFile.CUFILE_DESCR.byteSize());
        assertEquals(8, CuFile.CUFILE_DESCR.byteOffset(java.lang.foreign.MemoryLayout.PathElement.groupElement("handle")));
        assertEquals(16, CuFile.CUFILE_DESCR.byteOffset(java.lang.foreign.MemoryLayout.PathElement.groupElement("fs_ops")));
        assertEquals(56, CuFile.CUFILE_DRV_PROPS.byteSize());
        assertEquals(16, CuFile.CUFILE_DRV_PROPS.byteOffset(
                java.lang.foreign.MemoryLayout.PathElement.groupElement("max_direct_io_size")));
        assertEquals(28, CuFile.CUFILE_DRV_PROPS.byteOffset(
                java.lang.foreign.MemoryLayout.PathElement.groupElement("dcontrolflags")));
        assertEquals(32, CuFile.CUFILE_DRV_PROPS.byteOffset(java.lang.foreign.MemoryLayout.PathElement.groupElement("fflags")));
        assertEquals(48, CuFile.CUFILE_DRV_PROPS.byteOffset(
                java.lang.foreign.MemoryLayout.PathElement.groupElement("max_batch_io_size")));
    }

    @Test
    void withoutTheLibraryTheLoaderSaysWhyAndPropertiesStillReport() {
        if (CuFile.load().isPresent()) {
            return;
        }
        assertEquals("libcufile.so.0 not found (GPUDirect Storage is not installed)", CuFile.failure());
        Map<String, String> p = CuFileReader.properties(null);
        assertTrue(p.get("library").startsWith("missing"), p.toString());
        assertNotNull(p.get("nvidia_fs_loaded"));
        assertNotNull(p.get("compatibility_mode"));
    }

    @Test
    void oDirectIsTheLinuxValue() {
        assertEquals(System.getProperty("os.arch").equals("aarch64") ? 0x10000 : 0x4000, CuFile.O_DIRECT);
    }
}
