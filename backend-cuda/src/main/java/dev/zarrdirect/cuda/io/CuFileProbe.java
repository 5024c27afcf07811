// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.CudaBackendProvider;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Where does cuFile work on this machine? For each directory given (default {@code /tmp}, the
 * current directory, {@code /dev/shm}, {@code /var/tmp}): writes a 64 MiB file, names its file
 * system, opens it {@code O_RDONLY|O_DIRECT} and {@code O_RDONLY}, registers each descriptor with
 * {@code cuFileHandleRegister} and, where that works, {@code cuFileRead}s the whole file (aligned)
 * and an unaligned range into device memory from the backend's pool and from {@code cuMemAlloc},
 * compares what arrived with the file, and times the whole-file read (best of
 * {@value #REPS}, the file's pages dropped from the page cache before each). Prints the GDS driver
 * properties, then one table row per directory, flags and memory, then the full error texts.
 *
 * <p>{@code bash .device/run main dev.zarrdirect.cuda.io.CuFileProbe [dirs...]}. Exit status 0
 * when every probe ran (whatever it found), 1 when cuFile or CUDA is missing.
 */
public final class CuFileProbe {

    static final long FILE_BYTES = 64L << 20;
    static final long ALIGN = CuFileReader.ALIGN;
    static final long UNALIGNED_OFFSET = 12_345;
    static final long UNALIGNED_LENGTH = 3_000_001;
    static final long UNALIGNED_BUF_OFFSET = 777;
    static final int REPS = 3;
    private static final int POSIX_FADV_DONTNEED = 4;

    /** One line of the table. */
    record Row(String dir, String fs, String flags, String register, String memory, String bufRegister,
               String aligned, String gbps, String unaligned) {
    }

    /** Where the destination memory comes from. */
    enum Memory { POOL, CU_MEM_ALLOC }

    private final CuFile cf;
    private final CudaBackend backend;
    private final CudaDevice dev;
    private final byte[] content;
    private final List<String> notes = new ArrayList<>();
    private final MethodHandle fadvise;
    private int lastErrno; // of the last failed cuFileRead

    private CuFileProbe(CuFile cf, CudaBackend backend, byte[] content) {
        this.cf = cf;
        this.backend = backend;
        this.dev = backend.cudaDevices().getFirst();
        this.content = content;
        Linker linker = Linker.nativeLinker();
        this.fadvise = linker.defaultLookup().find("posix_fadvise")
                .map(s -> linker.downcallHandle(s, FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT)))
                .orElse(null);
    }

    public static void main(String[] args) {
        Set<Path> dirs = new LinkedHashSet<>();
        if (args.length == 0) {
            for (String d : List.of("/tmp", System.getProperty("user.dir"), "/dev/shm", "/var/tmp")) {
                dirs.add(Path.of(d).toAbsolutePath().normalize());
            }
        } else {
            for (String a : args) {
                dirs.add(Path.of(a).toAbsolutePath().normalize());
            }
        }
        Optional<CuFile> loaded = CuFile.load();
        if (loaded.isEmpty()) {
            System.out.println("cuFile: " + CuFile.failure());
            print(CuFileReader.properties(null));
            System.exit(1);
        }
        CuFile cf = loaded.get();
        ProbeResult p = new CudaBackendProvider().probe();
        System.out.println("CUDA: " + p.reason());
        if (!p.available()) {
            System.exit(1);
        }
        try (CudaBackend backend = new CudaBackendProvider().open()) {
            CudaDevice dev = backend.cudaDevices().getFirst();
            dev.makeCurrent();
            System.out.println("device: " + dev.describe());
            String opened = cf.driverOpen();
            System.out.println("cuFileDriverOpen: " + (opened == null ? "ok" : opened));
            System.out.println("GDS properties:");
            print(CuFileReader.properties(cf));
            if (opened != null) {
                System.exit(1);
            }
            try {
                byte[] content = new byte[(int) FILE_BYTES];
                new Random(20_240_601).nextBytes(content);
                CuFileProbe probe = new CuFileProbe(cf, backend, content);
                List<Row> rows = new ArrayList<>();
                for (Path d : dirs) {
                    rows.addAll(probe.directory(d));
                }
                System.out.println();
                System.out.println("64 MiB file per directory; aligned = the whole file at 0 into a 4 KiB-aligned address; unaligned = "
                        + UNALIGNED_LENGTH + " bytes at " + UNALIGNED_OFFSET + " into address+" + UNALIGNED_BUF_OFFSET
                        + "; GB/s = best of " + REPS + " aligned reads, page cache dropped before each");
                table(rows).forEach(System.out::println);
                if (!probe.notes.isEmpty()) {
                    System.out.println();
                    probe.notes.forEach(System.out::println);
                }
            } finally {
                String closed = cf.driverClose();
                if (closed != null) {
                    System.out.println("cuFileDriverClose: " + closed);
                }
            }
        }
    }

    private static void print(Map<String, String> m) {
        m.forEach((k, v) -> System.out.println("  " + k + " = " + v));
    }

    static List<String> table(List<Row> rows) {
        String fmt = "%-22s %-26s %-17s %-34s %-12s %-30s %-30s %7s %-30s";
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, fmt, "dir", "fs", "flags", "register", "memory", "cuFileBufRegister",
                "aligned read", "GB/s", "unaligned read"));
        for (Row r : rows) {
            out.add(String.format(Locale.ROOT, fmt, r.dir(), r.fs(), r.flags(), r.register(), r.memory(), r.bufRegister(),
                    r.aligned(), r.gbps(), r.unaligned()));
        }
        return out;
    }

    /** A short cell for a long message; the message goes to the notes as [n]. */
    private String note(String shortText, String full) {
        notes.add("[" + (notes.size() + 1) + "] " + full);
        return shortText + " [" + notes.size() + "]";
    }

    /** {@code HANDLE_NOT_REGISTERED 5027}: a table cell's worth of a {@code CUfileOpError}. */
    static String shortName(int err) {
        CuFileErrors.Code c = CuFileErrors.opError(err);
        return (c == null ? "CUfileOpError" : c.name().replace("CU_FILE_", "")) + " " + err;
    }

    List<Row> directory(Path dir) {
        List<Row> rows = new ArrayList<>();
        String d = dir.toString();
        if (!Files.isDirectory(dir)) {
            rows.add(new Row(d, "-", "-", "no such directory", "-", "-", "-", "-", "-"));
            return rows;
        }
        Path file;
        try {
            file = Files.createTempFile(dir, "zd-cufile-probe-", ".bin");
        } catch (IOException | RuntimeException e) {
            rows.add(new Row(d, Mounts.of(dir).type(), "-", note("cannot create a file", d + ": " + e), "-", "-", "-", "-", "-"));
            return rows;
        }
        try {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ByteBuffer bb = ByteBuffer.wrap(content);
                while (bb.hasRemaining()) {
                    ch.write(bb);
                }
                ch.force(true);
            }
            Mounts.Mount m = Mounts.of(file);
            String fs = m.type() + " " + m.mountPoint();
            for (int flags : new int[]{CuFile.O_RDONLY | CuFile.O_DIRECT, CuFile.O_RDONLY}) {
                String flagName = (flags & CuFile.O_DIRECT) != 0 ? "O_RDONLY|O_DIRECT" : "O_RDONLY";
                int fd = cf.open(file.toString(), flags);
                if (fd < 0) {
                    rows.add(new Row(d, fs, flagName, note("open: errno " + -fd, file + " " + flagName + ": open failed with "
                            + CuFileErrors.errno(-fd)), "-", "-", "-", "-", "-"));
                    continue;
                }
                try {
                    long fh;
                    try {
                        fh = cf.handleRegister(fd, file + ", " + flagName);
                    } catch (CuFile.CuFileException e) {
                        rows.add(new Row(d, fs, flagName, note(shortName(e.err()), e.getMessage() + " on " + m), "-", "-", "-", "-", "-"));
                        continue;
                    }
                    try {
                        for (Memory mem : Memory.values()) {
                            rows.add(reads(d, fs, flagName, fd, fh, mem));
                        }
                    } finally {
                        cf.handleDeregister(fh);
                    }
                } finally {
                    cf.close(fd);
                }
            }
        } catch (IOException | RuntimeException e) {
            rows.add(new Row(d, "?", "-", note("probe failed", d + ": " + e), "-", "-", "-", "-", "-"));
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a probe file left behind is named by its prefix
            }
        }
        return rows;
    }

    private Row reads(String d, String fs, String flagName, int fd, long fh, Memory mem) {
        CudaDriver drv = backend.driver();
        dev.makeCurrent();
        long bytes = FILE_BYTES + 2 * ALIGN;
        Buffer poolBuffer = null;
        long raw;
        if (mem == Memory.POOL) {
            poolBuffer = backend.allocateUninitialized(dev.device(), MemoryKind.DEVICE, bytes);
            raw = poolBuffer.address();
        } else {
            raw = drv.memAlloc(bytes);
        }
        long base = AlignedReads.alignUp(raw, ALIGN);
        long stream = dev.acquireStream();
        try (Buffer host = backend.allocate(dev.device(), MemoryKind.HOST_PINNED, FILE_BYTES)) {
            String br = cf.bufRegister(base, FILE_BYTES);
            String bufRegister = br == null ? "ok" : note("failed", "cuFileBufRegister(" + Long.toHexString(base) + ", 64 MiB) on "
                    + mem + " memory: " + br);
            if (br == null) {
                cf.bufDeregister(base); // the reads below use unregistered memory, as most destinations are
            }
            String aligned = null;
            double best = 0;
            for (int rep = 0; rep < REPS && aligned == null; rep++) {
                drv.memsetD8Async(base, (byte) 0, FILE_BYTES, stream);
                drv.streamSynchronize(stream, "clearing the probe buffer");
                dropCache(fd);
                long t0 = System.nanoTime();
                long r = readFully(fh, base, FILE_BYTES, 0, 0);
                long t1 = System.nanoTime();
                if (r != FILE_BYTES) {
                    aligned = failure(r, FILE_BYTES, d + " " + flagName + " " + mem + " aligned cuFileRead");
                } else {
                    best = Math.max(best, FILE_BYTES / ((t1 - t0) / 1e9) / 1e9);
                }
            }
            if (aligned == null) {
                aligned = compare(drv, stream, host, base, 0, FILE_BYTES);
            }
            drv.memsetD8Async(base, (byte) 0, FILE_BYTES, stream);
            drv.streamSynchronize(stream, "clearing the probe buffer");
            dropCache(fd);
            long r = readFully(fh, base, UNALIGNED_LENGTH, UNALIGNED_OFFSET, UNALIGNED_BUF_OFFSET);
            String unaligned = r != UNALIGNED_LENGTH
                    ? failure(r, UNALIGNED_LENGTH, d + " " + flagName + " " + mem + " unaligned cuFileRead")
                    : compare(drv, stream, host, base + UNALIGNED_BUF_OFFSET, UNALIGNED_OFFSET, UNALIGNED_LENGTH);
            String gbps = best > 0 ? String.format(Locale.ROOT, "%.2f", best) : "-";
            return new Row(d, fs, flagName, "ok", mem.name().toLowerCase(Locale.ROOT), bufRegister, aligned, gbps, unaligned);
        } catch (RuntimeException e) {
            return new Row(d, fs, flagName, "ok", mem.name().toLowerCase(Locale.ROOT), "-",
                    note("failed", d + " " + flagName + " " + mem + ": " + e), "-", "-");
        } finally {
            dev.releaseStream(stream);
            if (poolBuffer != null) {
                poolBuffer.close();
            } else {
                drv.memFree(raw);
            }
        }
    }

    /** Reads {@code n} bytes, continuing after short reads: the total, or the first negative result. */
    private long readFully(long fh, long base, long n, long fileOffset, long bufOffset) {
        int[] errno = new int[1];
        long done = 0;
        while (done < n) {
            long r = cf.read(fh, base, n - done, fileOffset + done, bufOffset + done, errno);
            if (r < 0) {
                lastErrno = errno[0];
                return r;
            }
            if (r == 0) {
                break;
            }
            done += r;
        }
        return done;
    }

    private String failure(long r, long wanted, String what) {
        if (r >= 0) {
            return note("short: " + r, what + " returned " + r + " of " + wanted + " bytes");
        }
        String why = CuFileErrors.readResult(r, lastErrno);
        String cell = r == -1 ? "errno " + lastErrno : shortName((int) -r);
        return note(cell, what + " failed: " + why);
    }

    private String compare(CudaDriver drv, long stream, Buffer host, long src, long fileOffset, long n) {
        drv.memcpyDtoHAsync(host.address(), src, n, stream);
        drv.streamSynchronize(stream, "copying the probe read back");
        long at = host.segment().asSlice(0, n).mismatch(MemorySegment.ofArray(content).asSlice(fileOffset, n));
        return at < 0 ? "ok" : note("WRONG BYTES", "differs from the file at byte " + at + " of " + n + " (file offset "
                + (fileOffset + at) + ")");
    }

    /** Drops the file's pages from the page cache, so that timed reads come from the device. */
    private void dropCache(int fd) {
        if (fadvise == null) {
            return;
        }
        try {
            int ignored = (int) fadvise.invokeExact(fd, 0L, 0L, POSIX_FADV_DONTNEED);
        } catch (Throwable t) {
            // advice only
        }
    }
}
