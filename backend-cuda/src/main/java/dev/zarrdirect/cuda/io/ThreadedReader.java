// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Sizes;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads files into device memory with {@code N} threads: each splits the requests into tasks of at
 * most {@code T} bytes, reads a task with a positional {@link FileChannel} read into one of its two
 * pinned bounce buffers, and queues an asynchronous host-to-device copy on its own stream while it
 * reads the next task into the other buffer (an event says when a buffer may be reused). Every
 * stream is synchronised before {@link #read} returns. Destinations in host memory are read into
 * directly.
 *
 * <p>The threads, streams and pinned buffers live as long as the reader; {@link #close()} frees
 * them (closing twice is harmless). Thread-safe: concurrent {@link #read} calls queue on the same
 * threads.
 */
public final class ThreadedReader implements DirectReader {

    /** Threads; default 8. */
    public static final String THREADS_PROPERTY = "zarrdirect.cuda.readerThreads";
    /** System property: print where each read's threads spent their time (pread, buffer waits, copies, final sync). */
    public static final String TRACE_PROPERTY = "zarrdirect.cuda.readerTrace";
    /** Bytes per task and per bounce buffer; default 4 MiB. */
    public static final String TASK_PROPERTY = "zarrdirect.cuda.readerTaskBytes";

    private final CudaBackend backend;
    private final boolean trace;
    private final int threads;
    private final long taskBytes;
    private final ExecutorService pool;
    private final ThreadLocal<Worker> workers = new ThreadLocal<>();
    private final List<Worker> allWorkers = new ArrayList<>();
    private volatile boolean closed;

    public ThreadedReader(CudaBackend backend, int threads, long taskBytes) {
        if (threads < 1 || taskBytes < 4096) {
            throw new IllegalArgumentException("threaded reader needs at least 1 thread and 4 KiB tasks, got " + threads
                    + " threads of " + taskBytes + " bytes");
        }
        this.backend = backend;
        this.trace = backend.cudaSettings().readerTrace();
        this.threads = threads;
        this.taskBytes = taskBytes;
        AtomicInteger id = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "zd-cuda-reader-" + id.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** With the thread count and task size of the backend's settings (default 8 threads, 4 MiB). */
    public static ThreadedReader fromSettings(CudaBackend backend) {
        return new ThreadedReader(backend, backend.cudaSettings().readerThreads(), backend.cudaSettings().readerTaskBytes());
    }

    @Override
    public String describe() {
        return "pread x" + threads + " via " + Sizes.human(taskBytes) + " pinned buffers";
    }

    /** One task: {@code length} bytes of {@code file} at {@code offset} into {@code dst} at {@code dstOffset}. */
    record Task(int request, Path file, long offset, long length, Buffer dst, long dstOffset) {
    }

    /** The tasks for {@code requests}: each request cut into pieces of at most {@code taskBytes}. */
    static List<Task> tasks(List<Request> requests, long taskBytes) {
        List<Task> out = new ArrayList<>();
        for (int r = 0; r < requests.size(); r++) {
            Request q = requests.get(r);
            for (long done = 0; done < q.length(); done += taskBytes) {
                long n = Math.min(taskBytes, q.length() - done);
                out.add(new Task(r, q.file(), q.offset() + done, n, q.destination(), q.destinationOffset() + done));
            }
        }
        return out;
    }

    @Override
    public void read(List<Request> requests) {
        if (closed) {
            throw new IllegalStateException("ThreadedReader is closed");
        }
        for (Request q : requests) {
            if (q.destinationOffset() > q.destination().byteSize() - q.length()) {
                throw new IndexOutOfBoundsException(q.length() + " bytes at " + q.destinationOffset()
                        + " run past the end of " + q.destination() + " (read of " + q.file() + ")");
            }
        }
        List<Task> tasks = tasks(requests, taskBytes);
        if (tasks.isEmpty()) {
            return;
        }
        Map<Path, FileChannel> channels = new HashMap<>();
        try {
            for (Request q : requests) {
                if (!channels.containsKey(q.file())) {
                    channels.put(q.file(), FileChannel.open(q.file(), StandardOpenOption.READ));
                }
            }
            AtomicInteger next = new AtomicInteger();
            int n = Math.min(threads, tasks.size());
            List<Future<long[]>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(pool.submit(() -> {
                    Worker w = worker();
                    w.run(tasks, next, channels);
                    return w.ns.clone();
                }));
            }
            Throwable first = null;
            long t0 = System.nanoTime();
            StringBuilder times = new StringBuilder();
            for (Future<long[]> f : futures) {
                try {
                    long[] ns = f.get();
                    if (trace) {
                        times.append(String.format(java.util.Locale.ROOT, " %.2f/%.2f/%.2f/%.2f", ns[0] / 1e6, ns[1] / 1e6,
                                ns[2] / 1e6, ns[3] / 1e6));
                    }
                } catch (java.util.concurrent.ExecutionException e) {
                    first = first == null ? e.getCause() : first;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    first = first == null ? e : first;
                }
            }
            if (trace) {
                System.err.printf(java.util.Locale.ROOT, "threaded read: %d tasks, %d threads, %.2f ms; per thread "
                        + "pread / buffer wait / copy issue / final sync ms:%s%n", tasks.size(), n,
                        (System.nanoTime() - t0) / 1e6, times);
            }
            if (first instanceof StoreException se) {
                throw se;
            }
            if (first != null) {
                throw new StoreException("local files", requests.getFirst().file().toString(),
                        "threaded read of " + requests.size() + " ranges failed: " + first, first);
            }
        } catch (IOException e) {
            throw new StoreException("local files", requests.getFirst().file().toString(), "cannot open: " + e, e);
        } finally {
            for (FileChannel c : channels.values()) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // read-only channel
                }
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

    /** One thread's pinned buffers, stream and events, made on first use. */
    private final class Worker {
        /** Nanoseconds of the last run: pread, waits for a bounce buffer, issuing copies, the final sync. */
        final long[] ns = new long[4];
        private final Buffer[] bounce = new Buffer[2];
        private final long[] events = new long[2];
        private CudaDevice device;
        private long stream;

        void run(List<Task> tasks, AtomicInteger next, Map<Path, FileChannel> channels) {
            int k = 0;
            java.util.Arrays.fill(ns, 0);
            long tw;
            try {
                for (int i = next.getAndIncrement(); i < tasks.size(); i = next.getAndIncrement()) {
                    Task t = tasks.get(i);
                    try {
                        if (t.dst().kind().hostAccessible()) {
                            readFully(channels.get(t.file()), t.dst().segment().asSlice(t.dstOffset(), t.length()), t);
                            continue;
                        }
                        CudaDevice d = backend.cudaDevice(t.dst().device());
                        prepare(d);
                        int b = k++ & 1;
                        CudaDriver drv = d.driver();
                        tw = System.nanoTime();
                        if (events[b] != 0) {
                            drv.eventSynchronize(events[b]); // the copy from this buffer is done
                        }
                        long t1 = System.nanoTime();
                        MemorySegment seg = bounce[b].segment().asSlice(0, t.length());
                        readFully(channels.get(t.file()), seg, t);
                        long t2 = System.nanoTime();
                        drv.memcpyHtoDAsync(t.dst().address() + t.dstOffset(), seg.address(), t.length(), stream);
                        if (events[b] == 0) {
                            events[b] = drv.eventCreate(CudaDriver.EVENT_DISABLE_TIMING);
                        }
                        drv.eventRecord(events[b], stream);
                        ns[1] += t1 - tw;
                        ns[0] += t2 - t1;
                        ns[2] += System.nanoTime() - t2;
                    } catch (IOException e) {
                        throw new StoreException("local files", t.file().toString(), "read of " + t.length()
                                + " bytes at " + t.offset() + " failed: " + e, e);
                    }
                }
            } finally {
                if (device != null) {
                    long ts = System.nanoTime();
                    device.makeCurrent();
                    device.driver().streamSynchronize(stream, "threaded reads");
                    ns[3] += System.nanoTime() - ts;
                }
            }
        }

        private void prepare(CudaDevice d) {
            if (device == d) {
                d.makeCurrent();
                return;
            }
            if (device != null) {
                device.makeCurrent();
                device.driver().streamSynchronize(stream, "threaded reads");
                free();
            }
            device = d;
            d.makeCurrent();
            stream = d.acquireStream();
            for (int b = 0; b < 2; b++) {
                bounce[b] = backend.allocateInternal(d.device(), MemoryKind.HOST_PINNED, taskBytes);
            }
        }

        private void free() {
            if (device == null) {
                return;
            }
            device.makeCurrent();
            for (int b = 0; b < 2; b++) {
                if (events[b] != 0) {
                    device.driver().eventDestroy(events[b]);
                    events[b] = 0;
                }
                if (bounce[b] != null && bounce[b].isOpen()) {
                    bounce[b].close();
                }
                bounce[b] = null;
            }
            device.releaseStream(stream);
            device = null;
        }
    }

    private static void readFully(FileChannel ch, MemorySegment into, Task t) throws IOException {
        ByteBuffer bb = into.asByteBuffer();
        long pos = t.offset();
        while (bb.hasRemaining()) {
            int r = ch.read(bb, pos);
            if (r < 0) {
                throw new EOFException("read of " + t.length() + " bytes at " + t.offset() + " past end (length "
                        + ch.size() + ") of " + t.file());
            }
            pos += r;
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
            for (Worker w : allWorkers) {
                w.free();
            }
            allWorkers.clear();
        }
    }

    @Override
    public String toString() {
        return "ThreadedReader[" + describe() + "]";
    }
}
