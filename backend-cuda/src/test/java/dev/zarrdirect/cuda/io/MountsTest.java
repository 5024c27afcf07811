// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** mountinfo lines parse, and a path's mount is the longest, latest mount point containing it. */
class MountsTest {

    static final String MOUNTINFO = """
            22 1 0:21 / / rw,relatime shared:1 - overlay overlay rw,lowerdir=/a,upperdir=/b,workdir=/c
            23 22 0:22 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
            24 22 0:23 / /dev/shm rw,nosuid,nodev - tmpfs shm rw,size=65536k
            25 22 259:1 /data /data rw,relatime shared:5 master:1 - ext4 /dev/nvme0n1p1 rw
            26 22 0:24 / /tmp rw - tmpfs tmpfs rw
            27 26 259:2 / /tmp rw - xfs /dev/nvme1n1 rw
            28 22 0:25 / /mnt/with\\040space rw - nfs4 server:/export rw
            garbage line
            """;

    @Test
    void linesParseWithOptionalFieldsAndEscapes() {
        List<Mounts.Mount> m = Mounts.parse(MOUNTINFO);
        assertEquals(7, m.size());
        assertEquals(new Mounts.Mount("/", "overlay", "overlay"), m.get(0));
        assertEquals(new Mounts.Mount("/data", "ext4", "/dev/nvme0n1p1"), m.get(3));
        assertEquals(new Mounts.Mount("/mnt/with space", "nfs4", "server:/export"), m.get(6));
        assertEquals("tmpfs at /dev/shm (shm)", m.get(2).toString());
    }

    @Test
    void theLongestContainingMountPointWinsAndTheLaterOfTwoEqualOnes() {
        List<Mounts.Mount> m = Mounts.parse(MOUNTINFO);
        assertEquals("tmpfs", Mounts.find(m, Path.of("/dev/shm/x.bin")).type());
        assertEquals("ext4", Mounts.find(m, Path.of("/data/a/b.zarr/c/0")).type());
        assertEquals("overlay", Mounts.find(m, Path.of("/database/x")).type(), "a prefix of the name is not a parent");
        assertEquals("xfs", Mounts.find(m, Path.of("/tmp/junit/data.bin")).type(), "the mount over the mount");
        assertEquals("nfs4", Mounts.find(m, Path.of("/mnt/with space/f")).type());
        assertEquals(Mounts.UNKNOWN, Mounts.find(List.of(), Path.of("/x")));
    }

    @Test
    void unescapeLeavesNonOctalBackslashesAlone() {
        assertEquals("a b\\x\\04", Mounts.unescape("a\\040b\\x\\04"));
    }

    @Test
    void thisMachinesTmpHasANamedFileSystem() {
        if (!java.nio.file.Files.isReadable(Path.of("/proc/self/mountinfo"))) {
            return;
        }
        Mounts.Mount m = Mounts.of(Path.of(System.getProperty("java.io.tmpdir"), "does-not-exist", "x.bin"));
        assertNotEquals(Mounts.UNKNOWN, m);
        assertFalse(m.type().isBlank());
    }
}
