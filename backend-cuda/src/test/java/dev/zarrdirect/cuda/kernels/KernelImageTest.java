// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.kernels;

import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.*;

class KernelImageTest {

    @Test
    void acceptsTheFatbinMagicAndRejectsOtherBytes() {
        byte[] ok = new byte[32];
        ok[0] = 0x50;
        ok[1] = (byte) 0xED;
        ok[2] = 0x55;
        ok[3] = (byte) 0xBA;
        assertDoesNotThrow(() -> KernelImage.check(ok));
        byte[] elf = new byte[32];
        elf[0] = 0x7F;
        elf[1] = 'E';
        var e = assertThrows(IOException.class, () -> KernelImage.check(elf));
        assertTrue(e.getMessage().contains("fatbin magic"), e.getMessage());
        assertThrows(IOException.class, () -> KernelImage.check(new byte[3]));
    }

    @Test
    void theFilePropertyLoadsAnotherFatbinAndNamesWhatIsWrongWithIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws IOException {
        byte[] variant = new byte[40];
        variant[0] = 0x50;
        variant[1] = (byte) 0xED;
        variant[2] = 0x55;
        variant[3] = (byte) 0xBA;
        variant[39] = 0x7E;
        java.nio.file.Path f = java.nio.file.Files.write(dir.resolve("variant.fatbin"), variant);
        java.nio.file.Path bad = java.nio.file.Files.write(dir.resolve("not.fatbin"), new byte[40]);
        String before = System.getProperty(KernelImage.FILE_PROPERTY);
        try {
            System.setProperty(KernelImage.FILE_PROPERTY, f.toString());
            var seg = KernelImage.read(KernelImage.class.getClassLoader());
            assertEquals(41, seg.byteSize()); // the image and a trailing zero
            assertEquals(0x7E, seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 39));
            System.setProperty(KernelImage.FILE_PROPERTY, bad.toString());
            var e = assertThrows(IOException.class, () -> KernelImage.read(KernelImage.class.getClassLoader()));
            assertTrue(e.getMessage().contains("fatbin magic") && e.getMessage().contains("not.fatbin"), e.getMessage());
            System.setProperty(KernelImage.FILE_PROPERTY, dir.resolve("missing.fatbin").toString());
            e = assertThrows(IOException.class, () -> KernelImage.read(KernelImage.class.getClassLoader()));
            assertTrue(e.getMessage().contains("cannot read") && e.getMessage().contains("missing.fatbin"), e.getMessage());
        } finally {
            if (before == null) System.clearProperty(KernelImage.FILE_PROPERTY);
            else System.setProperty(KernelImage.FILE_PROPERTY, before);
        }
    }

    @Test
    void statusNamesFollowZdStatusH() {
        assertEquals("ZD_STATUS_OK", ZdStatus.name(0));
        assertEquals("ZD_STATUS_CORRUPT_TRUNCATED", ZdStatus.name(1));
        assertEquals("ZD_STATUS_CORRUPT_CHECKSUM", ZdStatus.name(12));
        assertEquals("ZD_STATUS_CORRUPT_NO_FRAME", ZdStatus.name(17));
        assertEquals("ZD_STATUS_SCRATCH_TOO_SMALL", ZdStatus.name(32));
        assertEquals("ZD_STATUS_BAD_ARGUMENT", ZdStatus.name(33));
        assertEquals("ZD_STATUS_99", ZdStatus.name(99));
        assertTrue(ZdStatus.corrupt(5));
        assertFalse(ZdStatus.corrupt(32));
    }

    @Test
    void statusNamesMatchTheHeaderWhenTheSourceIsHere() throws IOException {
        java.nio.file.Path h = java.nio.file.Path.of("../kernels/src/main/c/zstd/zd_status.h");
        if (!java.nio.file.Files.exists(h)) {
            return;
        }
        var m = java.util.regex.Pattern.compile("#define (ZD_STATUS_\\w+) (\\d+)u").matcher(java.nio.file.Files.readString(h));
        int seen = 0;
        while (m.find()) {
            assertEquals(m.group(1), ZdStatus.name(Integer.parseInt(m.group(2))));
            seen++;
        }
        assertTrue(seen >= 18, "read " + seen + " statuses from " + h);
    }

    @Test
    void theKernelsJarsFatbinLoadsFromTheClassPathWhenPresent() {
        if (KernelImage.class.getClassLoader().getResource(KernelImage.RESOURCE) == null) {
            return; // built with -Dzd.noKernels
        }
        assertNotNull(KernelImage.image(), KernelImage.failure());
        assertEquals(KernelImage.FATBIN_MAGIC, KernelImage.image().get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0));
    }
}
