// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Sizes;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Reads files into device memory with cuFile (GPUDirect Storage): {@code cuFileRead} straight into
 * the destination when the file offset, length and device address are all 4 KiB aligned; otherwise
 * the aligned superset of the range into a 4 KiB-aligned device bounce region (registered with
 * {@code cuFileBufRegister}), then a device-to-device copy of the wanted bytes
 * ({@link AlignedReads}). Chunks inside shards are rarely aligned, and {@code O_DIRECT} reads must
 * be, in GDS mode and in compatibility mode alike.
 *
 * <h2>Files</h2>
 * Each file of a {@link #read} call is opened {@code O_RDONLY|O_DIRECT} (plain {@code O_RDONLY} when
 * the file system refuses {@code O_DIRECT}, or when cuFile refuses to register the {@code O_DIRECT}
 * descriptor), registered once with {@code cuFileHandleRegister} and closed at the end of the call.
 * Requests run on {@code threads} threads (cuFile is thread-safe), each with its own bounce region
 * and stream.
 *
 * <h2>Files cuFile cannot register</h2>
 * In compatibility mode (no {@code nvidia-fs}) and in GDS mode alike, some file systems cannot be
 * registered (tmpfs, overlayfs, FUSE …; {@code CU_FILE_HANDLE_NOT_REGISTERED} and friends). Such a
 * file is read by a {@link ThreadedReader} instead, made on first need and owned by this reader; the
 * decision is remembered per file (up to {@value #MAX_REMEMBERED} files) so that later calls do not
 * try again, and one warning per file system and error names the file system ({@link Mounts}), the
 * error and the first such file. {@link #counters()} says how many files each path served. With
 * {@code strict} ({@value DirectReaders#CUFILE_STRICT_PROPERTY}{@code =true}) a registration failure
 * is a {@link StoreException} instead: for tests and benches that must prove cuFile itself works.
 *
 * <h2>Driver</h2>
 * {@code cuFileDriverOpen} runs when the reader opens; {@link #close()} closes the driver.
 * {@link #properties()} reports GDS state for {@code doctor}. Closing twice is harmless.
 */
public final class CuFileReader implements DirectReader {

    static final long ALIGN = 4096;
    /** Files whose fallback is remembered; beyond this the memory is cleared and files are tried again. */
    static final int MAX_REMEMBERED = 1 << 16;

    /**
     * How many files each path has served since the reader opened: a file counts once per
     * {@link #read} call that reads from it. {@code fallbackFilesRemembered} is how many distinct
     * files are currently known to need the fallback.
     */
    public record Counters(long filesViaCuFile, long filesViaFallback, long bytesViaCuFile, long bytesViaFallback,
                           int fallbackFilesRemembered) {
    }

    private final CudaBackend backend;
    private final CuFile cufile;
    private final int threads;
    private final long bounceBytes;
    private final ExecutorService pool;
    private final ThreadLocal<Worker> workers = new ThreadLocal<>();
    private final List<Worker> allWorkers = new ArrayList<>();
    private final boolean strict;
    /** Files cuFile would not register, with the reason. */
    private final Map<Path, String> fallbackFiles = new ConcurrentHashMap<>();
    /** "mount point|CUfileOpError" pairs already warned about. */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private final LongAdder filesViaCuFile = new LongAdder();
    private final LongAdder filesViaFallback = new LongAdder();
    private final LongAdder bytesViaCuFile = new LongAdder();
    private final LongAdder bytesViaFallback = new LongAdder();
    private ThreadedReader fallback; // guarded by this
    private volatile boolean closed;

    private CuFileReader(CudaBackend backend, CuFile cufile, int threads, long bounceBytes, boolean strict) {
        this.backend = backend;
        this.cufile = cufile;
        this.threads = threads;
        this.bounceBytes = bounceBytes;
        this.strict = strict;
        AtomicInteger id = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "zd-cufile-" + id.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens the cuFile driver; strict when the backend's {@value DirectReaders#CUFILE_STRICT_PROPERTY} is {@code true}.
     *
     * @throws IllegalStateException when {@code libcufile.so.0} is missing or {@code cuFileDriverOpen} fails
     */
    public static CuFileReader open(CudaBackend backend, int threads, long bounceBytes) {
        return open(backend, threads, bounceBytes, backend.cudaSettings().cufileStrict());
    }

    /**
     * Opens the cuFile driver.
     *
     * @param strict true to fail reads of files cuFile cannot register instead of reading them with
     *               the threaded reader
     * @throws IllegalStateException when {@code libcufile.so.0} is missing or {@code cuFileDriverOpen} fails
     */
    public static CuFileReader open(CudaBackend backend, int threads, long bounceBytes, boolean strict) {
        if (threads < 1) {
            throw new IllegalArgumentException("the cuFile reader needs at least 1 thread, got " + threads);
        }
        CuFile cf = CuFile.load().orElseThrow(() -> new IllegalStateException("cuFile: " + CuFile.failure()));
        backend.cudaDevices().getFirst().makeCurrent();
        String e = cf.driverOpen();
        if (e != null) {
            throw new IllegalStateException("cuFileDriverOpen failed: " + e);
        }
        return new CuFileReader(backend, cf, threads, AlignedReads.alignUp(Math.max(bounceBytes, 3 * ALIGN), ALIGN), strict);
    }

    @Override
    public String describe() {
        Map<String, String> p = properties();
        return "cuFile (" + ("true".equals(p.get("compatibility_mode")) ? "GDS compatibility mode" : "GDS") + ") x"
                + threads + " via " + Sizes.human(bounceBytes) + " device bounce regions for unaligned ranges"
                + (strict ? ", strict" : ", pread fallback for files cuFile cannot register");
    }

    /** Whether registration failures fail reads ({@code true}) or fall back to the threaded reader. */
    public boolean strict() {
        return strict;
    }

    /** Files served by each path so far; for {@code doctor} and the benches. */
    public Counters counters() {
        return new Counters(filesViaCuFile.sum(), filesViaFallback.sum(), bytesViaCuFile.sum(), bytesViaFallback.sum(),
                fallbackFiles.size());
    }

    /** The files currently known to need the fallback, with why (a copy). */
    public Map<Path, String> fallbackFiles() {
        return Map.copyOf(fallbackFiles);
    }

    /**
     * GDS state for {@code doctor}: driver version and flags, whether {@code nvidia-fs} is loaded,
     * whether compatibility mode is (or must be) in use, and the {@code cufile.json} in effect.
     */
    public Map<String, String> properties() {
        return properties(cufile);
    }

    /** {@link #properties()} without opening a reader; {@code cufile} may be absent. */
    public static Map<String, String> properties(CuFile cf) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("library", cf == null ? "missing: " + CuFile.failure() : CuFile.LIBRARY);
        boolean nvfs = Files.exists(Path.of("/proc/driver/nvidia-fs/version")) || Files.exists(Path.of("/sys/module/nvidia_fs"));
        m.put("nvidia_fs_loaded", String.valueOf(nvfs));
        if (nvfs) {
            try {
                m.put("nvidia_fs_version", Files.readString(Path.of("/proc/driver/nvidia-fs/version")).trim().replace('\n', ' '));
            } catch (IOException | RuntimeException ignored) {
                // version file unreadable: the module's presence is what matters
            }
        }
        if (cf != null) {
            int v = cf.version();
            if (v >= 0) {
                m.put("cufile_version", String.valueOf(v));
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment p = cf.driverProperties(a);
                if (p != null) {
                    int control = p.get(ValueLayout.JAVA_INT, 28);
                    m.put("nvfs_driver_version", p.get(ValueLayout.JAVA_INT, 0) + "." + p.get(ValueLayout.JAVA_INT, 4));
                    m.put("max_direct_io_size_bytes", String.valueOf(p.get(ValueLayout.JAVA_LONG, 16)));
                    m.put("dstatusflags", "0x" + Integer.toHexString(p.get(ValueLayout.JAVA_INT, 24)));
                    m.put("allow_compat_mode", String.valueOf((control >> CuFile.CONTROL_ALLOW_COMPAT_MODE & 1) != 0));
                    m.put("poll_mode", String.valueOf((control >> CuFile.CONTROL_USE_POLL_MODE & 1) != 0));
                    m.put("batch_io_supported", String.valueOf((p.get(ValueLayout.JAVA_INT, 32) >> CuFile.FEATURE_BATCH_IO & 1) != 0));
                    m.put("max_batch_io_size", String.valueOf(p.get(ValueLayout.JAVA_INT, 48)));
                }
            }
        }
        m.put("compatibility_mode", String.valueOf(!nvfs));
        String json = System.getenv("CUFILE_ENV_PATH_JSON");
        Path cfg = Path.of(json != null && !json.isBlank() ? json : "/etc/cufile.json");
        if (Files.isReadable(cfg)) {
            m.put("cufile_json", cfg.toString());
            try {
                String text = Files.readString(cfg);
                for (String key : List.of("allow_compat_mode", "force_compat_mode", "max_direct_io_size_kb",
                        "use_poll_mode", "gds_rdma_write_support")) {
                    var mt = java.util.regex.Pattern.compile("\"" + key + "\"\\s*:\\s*([^,}\\s]+)").matcher(text);
                    if (mt.find()) {
                        m.put("cufile_json." + key, mt.group(1));
                    }
                }
            } catch (IOException | RuntimeException ignored) {
                // unreadable after all: the path is reported
            }
        } else {
            m.put("cufile_json", "none readable at " + cfg);
        }
        return m;
    }

    /** One file of a read call: its fd and cuFile handle. */
    private record Handle(int fd, long fh, boolean direct) {
    }

    /**
     * Opens and registers {@code file}: the handle, or null when cuFile will not register it (then
     * the file is remembered for the fallback, unless strict, where that throws).
     */
    private Handle openFile(Path file) {
        String path = file.toString();
        int fd = cufile.open(path, CuFile.O_RDONLY | CuFile.O_DIRECT);
        boolean direct = fd >= 0;
        if (fd < 0) {
            fd = cufile.open(path, CuFile.O_RDONLY);
        }
        if (fd < 0) {
            throw new StoreException("local files", path, "cannot open " + path + " for cuFile: "
                    + CuFileErrors.errno(-fd));
        }
        CuFile.CuFileException refused;
        try {
            return new Handle(fd, cufile.handleRegister(fd, path), direct);
        } catch (CuFile.CuFileException e) {
            cufile.close(fd);
            refused = e;
        } catch (RuntimeException e) {
            cufile.close(fd);
            throw new StoreException("local files", path, e.getMessage(), e);
        }
        String retry = "";
        if (direct) { // compatibility mode may take a buffered descriptor where it refuses an O_DIRECT one
            int buffered = cufile.open(path, CuFile.O_RDONLY);
            if (buffered < 0) {
                retry = "; opening O_RDONLY failed: " + CuFileErrors.errno(-buffered);
            } else {
                try {
                    return new Handle(buffered, cufile.handleRegister(buffered, path + ", O_RDONLY"), false);
                } catch (RuntimeException e) {
                    cufile.close(buffered);
                    retry = "; with O_RDONLY: " + e.getMessage();
                }
            }
        }
        Mounts.Mount mount = Mounts.of(file);
        String why = refused.getMessage() + " (opened " + (direct ? "O_RDONLY|O_DIRECT" : "O_RDONLY, O_DIRECT refused")
                + retry + "; file system " + mount + ")";
        if (strict) {
            throw new StoreException("local files", path, why + "; " + DirectReaders.CUFILE_STRICT_PROPERTY
                    + "=true forbids reading it another way. Put the file on a file system cuFile supports (see "
                    + "dev.zarrdirect.cuda.io.CuFileProbe) or leave strict mode off", refused);
        }
        if (fallbackFiles.size() >= MAX_REMEMBERED) {
            fallbackFiles.clear();
        }
        fallbackFiles.put(file, why);
        if (warned.add(mount.mountPoint() + "|" + refused.err())) {
            System.getLogger(CuFileReader.class.getName()).log(System.Logger.Level.WARNING,
                    "cuFile cannot register files on the " + mount.type() + " file system at " + mount.mountPoint()
                            + " (" + CuFileErrors.describe(refused.err()) + ", first for " + path + "); reading such "
                            + "files with the threaded pread reader instead. Set "
                            + DirectReaders.CUFILE_STRICT_PROPERTY + "=true to fail instead.");
        }
        return null;
    }

    /** The threaded reader for files cuFile cannot register, made on first need. */
    private synchronized ThreadedReader fallback() {
        if (fallback == null) {
            fallback = new ThreadedReader(backend, threads, Math.max(4096, backend.cudaSettings().readerTaskBytes()));
        }
        return fallback;
    }

    @Override
    public void read(List<Request> requests) {
        if (closed) {
            throw new IllegalStateException("CuFileReader is closed");
        }
        if (requests.isEmpty()) {
            return;
        }
        for (Request q : requests) {
            if (q.destinationOffset() > q.destination().byteSize() - q.length()) {
                throw new IndexOutOfBoundsException(q.length() + " bytes at " + q.destinationOffset()
                        + " run past the end of " + q.destination() + " (read of " + q.file() + ")");
            }
            if (q.destination().kind() != MemoryKind.DEVICE) {
                throw new IllegalArgumentException("cuFile reads into DEVICE memory; " + q.destination() + " is "
                        + q.destination().kind());
            }
        }
        Map<Path, Handle> handles = new HashMap<>();
        try {
            Set<Path> viaFallback = new HashSet<>();
            List<Request> cuFileRequests = new ArrayList<>();
            List<Request> fallbackRequests = new ArrayList<>();
            for (Request q : requests) {
                Path f = q.file();
                if (!handles.containsKey(f) && !viaFallback.contains(f)) {
                    Handle h = fallbackFiles.containsKey(f) ? null : openFile(f);
                    if (h == null) {
                        viaFallback.add(f);
                    } else {
                        handles.put(f, h);
                    }
                }
                if (handles.containsKey(f)) {
                    cuFileRequests.add(q);
                    bytesViaCuFile.add(q.length());
                } else {
                    fallbackRequests.add(q);
                    bytesViaFallback.add(q.length());
                }
            }
            filesViaCuFile.add(handles.size());
            filesViaFallback.add(viaFallback.size());
            AtomicInteger next = new AtomicInteger();
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < Math.min(threads, cuFileRequests.size()); i++) {
                futures.add(pool.submit(() -> {
                    worker().run(cuFileRequests, next, handles);
                    return null;
                }));
            }
            RuntimeException first = null;
            if (!fallbackRequests.isEmpty()) {
                try {
                    fallback().read(fallbackRequests); // on its own threads, while the cuFile threads run
                } catch (RuntimeException e) {
                    first = e;
                }
            }
            for (Future<?> f : futures) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    if (first == null) {
                        first = e.getCause() instanceof RuntimeException r ? r
                                : new StoreException("local files", cuFileRequests.getFirst().file().toString(),
                                "cuFile read failed: " + e.getCause(), e.getCause());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StoreException("local files", requests.getFirst().file().toString(), "interrupted", e);
                }
            }
            if (first != null) {
                throw first;
            }
        } finally {
            for (Handle h : handles.values()) {
                cufile.handleDeregister(h.fh());
                cufile.close(h.fd());
            }
        }
    }

    private Worker worker() {
        Worker w = workers.get();
        if (w == null) {
            w = new Worker();
            workers.set(w);
            synchronized (allWorkers) {
                allWorkers.add(w);
            }
        }
        return w;
    }

    /** One thread's bounce region (device memory, 4 KiB aligned, registered with cuFile) and stream. */
    private final class Worker {
        private CudaDevice device;
        private Buffer bounceBuffer;
        private long bounce;
        private long stream;
        private boolean registered;

        void run(List<Request> requests, AtomicInteger next, Map<Path, Handle> handles) {
            for (int i = next.getAndIncrement(); i < requests.size(); i = next.getAndIncrement()) {
                Request q = requests.get(i);
                CudaDevice d = backend.cudaDevice(q.destination().device());
                prepare(d);
                Handle h = handles.get(q.file());
                long base = q.destination().address();
                long dst = base + q.destinationOffset();
                for (AlignedReads.Piece p : AlignedReads.plan(q.offset(), q.length(), dst, ALIGN, bounceBytes)) {
                    if (p.direct() || !h.direct()) {
                        // aligned, or a buffered fd (no O_DIRECT rules): straight into the destination
                        readExactly(q, h, base, p.payload(), q.offset() + p.dstOffset(), q.destinationOffset() + p.dstOffset());
                    } else {
                        long got = 0;
                        while (got < p.skip() + p.payload()) { // short reads: continue where the last one ended
                            long r = readSome(q, h, bounce, p.readLength() - got, p.fileOffset() + got, got);
                            if (r == 0) {
                                throw eof(q, got, p);
                            }
                            got += r;
                        }
                        d.driver().memcpyDtoDAsync(dst + p.dstOffset(), bounce + p.skip(), p.payload(), stream);
                        d.driver().streamSynchronize(stream, "copying from the cuFile bounce region");
                    }
                }
            }
        }

        private StoreException eof(Request q, long got, AlignedReads.Piece p) {
            return new StoreException("local files", q.file().toString(), "read of " + q.length() + " bytes at "
                    + q.offset() + " past end of file: cuFileRead returned " + got + " bytes of " + p.readLength()
                    + " at " + p.fileOffset());
        }

        private void readExactly(Request q, Handle h, long base, long n, long fileOffset, long bufOffset) {
            long done = 0;
            while (done < n) {
                long r = readSome(q, h, base, n - done, fileOffset + done, bufOffset + done);
                if (r == 0) {
                    throw new StoreException("local files", q.file().toString(), "read of " + q.length() + " bytes at "
                            + q.offset() + " past end of file (cuFileRead returned 0 at " + (fileOffset + done) + ")");
                }
                done += r;
            }
        }

        private long readSome(Request q, Handle h, long base, long n, long fileOffset, long bufOffset) {
            int[] errno = new int[1];
            long r = cufile.read(h.fh(), base, n, fileOffset, bufOffset, errno);
            if (r < 0) {
                String why = CuFileErrors.readResult(r, errno[0]);
                throw new StoreException("local files", q.file().toString(), "cuFileRead of " + n + " bytes at "
                        + fileOffset + " into " + q.destination() + " failed: " + why);
            }
            return r;
        }

        private void prepare(CudaDevice d) {
            if (device == d) {
                d.makeCurrent();
                return;
            }
            free();
            device = d;
            d.makeCurrent();
            stream = d.acquireStream();
            bounceBuffer = backend.allocateInternal(d.device(), MemoryKind.DEVICE, bounceBytes + ALIGN);
            bounce = AlignedReads.alignUp(bounceBuffer.address(), ALIGN);
            registered = cufile.bufRegister(bounce, bounceBytes) == null;
        }

        void free() {
            if (device == null) {
                return;
            }
            device.makeCurrent();
            if (registered) {
                cufile.bufDeregister(bounce);
            }
            bounceBuffer.close();
            device.releaseStream(stream);
            device = null;
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        pool.shutdown();
        try {
            pool.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (allWorkers) {
            allWorkers.forEach(Worker::free);
            allWorkers.clear();
        }
        synchronized (this) {
            if (fallback != null) {
                fallback.close();
            }
        }
        cufile.driverClose();
    }

    @Override
    public String toString() {
        return "CuFileReader[" + threads + " threads" + (strict ? ", strict" : "") + ", " + counters() + "]";
    }
}
