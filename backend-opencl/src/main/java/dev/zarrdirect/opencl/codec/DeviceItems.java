// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl.codec;

import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.opencl.ClMemory;
import dev.zarrdirect.opencl.OpenClBackend;
import dev.zarrdirect.opencl.OpenClBuffer;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The items of one codec batch as {@code (cl_mem, offset)} pairs for a kernel, and the launches
 * they need: one per distinct pair of input and output {@code cl_mem} (a pipeline that slices a
 * batch's inputs out of one buffer and its outputs out of another gets exactly one).
 *
 * <h2>Host memory</h2>
 * Inputs in host memory (pinned or not) are packed into one pinned staging buffer and uploaded with
 * one write; outputs in host memory get room in one device staging buffer that {@link #finish} reads
 * back once through pinned staging, copying to each host output only the bytes its item wrote. The
 * staging comes from the backend's pools (pinned blocks, launch scratch). Device buffers are used
 * in place, which is the fast path.
 *
 * <p>An item whose buffers this backend cannot reach (another backend's, a closed one) fails alone,
 * with the codec and the item's label in the message. Close releases the staging memory.
 */
public final class DeviceItems implements AutoCloseable {

    /** Where a kernel finds one buffer: a {@code cl_mem} and a byte offset into it. */
    public record Ref(long mem, long offset) {
    }

    /** A group of items that share their input and output {@code cl_mem}s: one launch. */
    public record Group(long inMem, long outMem, List<Integer> items) {
    }

    private final OpenClBackend backend;
    private final CodecBatch batch;
    private final Ref[] in;
    private final Ref[] out;
    private final long[] hostOutAt;
    private ClMemory.Scratch up;
    private ClMemory.Scratch down;
    private long downBytes;

    private DeviceItems(OpenClBackend backend, CodecBatch batch) {
        this.backend = backend;
        this.batch = batch;
        this.in = new Ref[batch.size()];
        this.out = new Ref[batch.size()];
        this.hostOutAt = new long[batch.size()];
        java.util.Arrays.fill(hostOutAt, -1);
    }

    /**
     * The backend that runs {@code batch}: {@code bound} when the codec came from a backend's own
     * provider, else the backend of the batch's first OpenCL buffer, else null.
     */
    public static OpenClBackend backendOf(OpenClBackend bound, CodecBatch batch) {
        if (bound != null) {
            return bound;
        }
        for (int i = 0; i < batch.size(); i++) {
            if (batch.input(i) instanceof OpenClBuffer b) {
                return b.backend();
            }
            if (batch.output(i) instanceof OpenClBuffer b) {
                return b.backend();
            }
        }
        return null;
    }

    /**
     * Fails every item of {@code batch} when no backend can run it (a codec made by the
     * ServiceLoader-created provider, given only host buffers); returns true when it did.
     */
    public static boolean failWithoutBackend(OpenClBackend backend, String codec, String direction, CodecBatch batch) {
        if (backend != null) {
            return false;
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.fail(i, new CodecException(codec, "the opencl " + codec + " codec cannot " + direction + " "
                    + batch.label(i) + ": it was not created by an OpenCL backend and the batch holds no OpenCL buffer"
                    + " to find one from; use the codecs() of an opened OpenClBackend"));
        }
        return true;
    }

    /**
     * Resolves the items marked {@code active} (the codec's own size checks have already failed the
     * others) and uploads host inputs; items whose buffers cannot be reached fail and are deactivated.
     */
    public static DeviceItems resolve(OpenClBackend backend, String codec, String direction, CodecBatch batch,
                                      boolean[] active) {
        DeviceItems d = new DeviceItems(backend, batch);
        boolean ok = false;
        try {
            d.resolveAll(codec, direction, active);
            ok = true;
            return d;
        } finally {
            if (!ok) {
                d.close();
            }
        }
    }

    private void resolveAll(String codec, String direction, boolean[] active) {
        List<Integer> hostIn = new ArrayList<>();
        long upBytes = 0;
        for (int i = 0; i < batch.size(); i++) {
            if (!active[i]) {
                continue;
            }
            try {
                OpenClBuffer bi = backend.device(batch.input(i), "input");
                OpenClBuffer bo = backend.device(batch.output(i), "output");
                if (bi != null) {
                    in[i] = new Ref(bi.mem(), bi.offset());
                } else {
                    hostIn.add(i);
                    upBytes += align(batch.input(i).byteSize());
                }
                if (bo != null) {
                    out[i] = new Ref(bo.mem(), bo.offset());
                } else {
                    hostOutAt[i] = downBytes;
                    downBytes += align(batch.output(i).byteSize());
                }
            } catch (ZarrDirectException e) {
                batch.fail(i, e);
                active[i] = false;
            } catch (RuntimeException e) {
                batch.fail(i, new CodecException(codec, "opencl " + codec + " " + direction + " of " + batch.label(i)
                        + " failed: " + e.getMessage(), e));
                active[i] = false;
                hostIn.remove((Integer) i);
                hostOutAt[i] = -1;
            }
        }
        if (!hostIn.isEmpty()) {
            // packed into pooled pinned staging (the driver copies pageable memory slowly), one write
            try (Buffer staging = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST_PINNED, Math.max(1, upBytes))) {
                long at = 0;
                for (int i : hostIn) {
                    Buffer b = batch.input(i);
                    MemorySegment.copy(b.segment(), 0, staging.segment(), at, b.byteSize());
                    in[i] = new Ref(-1, at);
                    at += align(b.byteSize());
                }
                up = backend.memory().scratch(Math.max(1, at), "host inputs of a " + codec + " batch");
                backend.memory().write(up.mem(), 0, staging.segment(), 0, at);
            }
            for (int i : hostIn) {
                in[i] = new Ref(up.mem(), in[i].offset());
            }
        }
        boolean hostOut = false;
        for (int i = 0; i < batch.size(); i++) {
            hostOut |= hostOutAt[i] >= 0 && active[i];
        }
        if (hostOut) {
            down = backend.memory().scratch(downBytes, "host outputs of a " + codec + " batch");
            for (int i = 0; i < batch.size(); i++) {
                if (hostOutAt[i] >= 0 && active[i]) {
                    out[i] = new Ref(down.mem(), hostOutAt[i]);
                }
            }
        }
    }

    private static long align(long n) {
        return (n + 63) & -64L;
    }

    public Ref in(int i) {
        return in[i];
    }

    public Ref out(int i) {
        return out[i];
    }

    /** The active items grouped by their pair of {@code cl_mem}s, in batch order. */
    public List<Group> groups(boolean[] active) {
        record Key(long in, long out) {
        }
        Map<Key, List<Integer>> g = new LinkedHashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            if (active[i]) {
                g.computeIfAbsent(new Key(in[i].mem(), out[i].mem()), k -> new ArrayList<>()).add(i);
            }
        }
        List<Group> groups = new ArrayList<>();
        g.forEach((k, v) -> groups.add(new Group(k.in(), k.out(), List.copyOf(v))));
        return groups;
    }

    /** Copies host outputs back: {@code written[i]} bytes of each item that has a host output and succeeded. */
    public void finish(long[] written) {
        if (down == null || downBytes == 0) {
            return;
        }
        try (Buffer staging = backend.allocateUninitialized(Device.CPU, MemoryKind.HOST_PINNED, downBytes)) {
            backend.memory().read(down.mem(), 0, staging.segment(), 0, downBytes);
            for (int i = 0; i < batch.size(); i++) {
                if (hostOutAt[i] >= 0 && written[i] > 0) {
                    MemorySegment.copy(staging.segment(), hostOutAt[i], batch.output(i).segment(), 0, written[i]);
                }
            }
        }
    }

    @Override
    public void close() {
        if (up != null) {
            up.close();
        }
        if (down != null) {
            down.close();
        }
        up = null;
        down = null;
    }
}
