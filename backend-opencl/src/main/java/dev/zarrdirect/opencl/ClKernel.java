// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;

import static org.lwjgl.opencl.CL10.*;

/**
 * One kernel of a built program. Setting arguments and enqueueing happen under this object's lock,
 * because {@code clSetKernelArg} is not thread-safe on a shared {@code cl_kernel}; the enqueue
 * captures the arguments, so the lock is held only for the time of the calls.
 */
public final class ClKernel {

    /** A kernel argument. */
    public sealed interface Arg permits Mem, U32, U64, Local {
    }

    /** A {@code global} buffer argument. */
    public record Mem(long mem) implements Arg {
    }

    /** A {@code uint} argument. */
    public record U32(int value) implements Arg {
    }

    /** A {@code ulong} argument. */
    public record U64(long value) implements Arg {
    }

    /** A {@code local} buffer of {@code bytes}. */
    public record Local(long bytes) implements Arg {
    }

    private final String name;
    private final long kernel;
    private final ClCounters counters;

    ClKernel(String name, long kernel, ClCounters counters) {
        this.name = name;
        this.kernel = kernel;
        this.counters = counters;
    }

    public String name() {
        return name;
    }

    long handle() {
        return kernel;
    }

    /** The most work-items per group this kernel allows on {@code device} ({@code CL_KERNEL_WORK_GROUP_SIZE}). */
    public long maxWorkGroupSize(long device) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            PointerBuffer v = stack.callocPointer(1);
            ClErrors.check(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, v, null),
                    "clGetKernelWorkGroupInfo", "CL_KERNEL_WORK_GROUP_SIZE of kernel " + name);
            return v.get(0);
        }
    }

    /**
     * A {@code cl_ulong} fact of this kernel on {@code device}, such as {@code CL_KERNEL_PRIVATE_MEM_SIZE}
     * or {@code CL_KERNEL_LOCAL_MEM_SIZE}: for diagnosis.
     */
    public long workGroupInfoLong(long device, int param) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            java.nio.LongBuffer v = stack.callocLong(1);
            ClErrors.check(clGetKernelWorkGroupInfo(kernel, device, param, v, null), "clGetKernelWorkGroupInfo",
                    "parameter " + param + " of kernel " + name);
            return v.get(0);
        }
    }

    /**
     * As {@link #enqueue}, with no event: for a launch that a later command of the same in-order
     * queue follows (the caller waits on that one), so the host does not wait between the two.
     */
    public synchronized void enqueueUnawaited(long queue, long[] global, long[] local, Arg... args) {
        long ev = enqueue(queue, global, local, args);
        clReleaseEvent(ev);
    }

    /**
     * Sets {@code args} and enqueues the kernel on {@code queue} over {@code global} work-items in
     * groups of {@code local} (one entry per dimension; {@code local} may be null).
     *
     * @return the event of the launch; the caller waits on it and releases it
     */
    public synchronized long enqueue(long queue, long[] global, long[] local, Arg... args) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            for (int i = 0; i < args.length; i++) {
                int err = switch (args[i]) {
                    case Mem m -> clSetKernelArg(kernel, i, stack.pointers(m.mem()));
                    case U32 u -> clSetKernelArg(kernel, i, stack.ints(u.value()));
                    case U64 u -> clSetKernelArg(kernel, i, stack.longs(u.value()));
                    case Local l -> clSetKernelArg(kernel, i, l.bytes());
                };
                ClErrors.check(err, "clSetKernelArg", "argument " + i + " (" + args[i] + ") of kernel " + name);
            }
            PointerBuffer g = stack.mallocPointer(global.length);
            for (int i = 0; i < global.length; i++) {
                g.put(i, global[i]);
            }
            PointerBuffer l = null;
            if (local != null) {
                l = stack.mallocPointer(local.length);
                for (int i = 0; i < local.length; i++) {
                    l.put(i, local[i]);
                }
            }
            PointerBuffer event = stack.mallocPointer(1);
            ClErrors.check(clEnqueueNDRangeKernel(queue, kernel, global.length, null, g, l, null, event),
                    "clEnqueueNDRangeKernel", "of kernel " + name + " over " + java.util.Arrays.toString(global)
                            + " in groups of " + (local == null ? "any size" : java.util.Arrays.toString(local)));
            counters.launches.incrementAndGet();
            return event.get(0);
        }
    }
}
