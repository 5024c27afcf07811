// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.system.MemoryUtil;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.lwjgl.opencl.CL10.*;

/**
 * Built programs of one context and device, keyed by the SHA-256 of the source and the build
 * options, so that each distinct program is compiled once per backend (compiling a zstd decoder
 * takes seconds on some drivers). A failed build throws with the compiler's log in the message.
 * Thread-safe; {@link #close()} releases every kernel and program.
 */
public final class ProgramCache implements AutoCloseable {

    private record Built(long program, Map<String, ClKernel> kernels) {
    }

    private final long context;
    private final long device;
    private final String deviceLabel;
    private final Map<String, Built> programs = new ConcurrentHashMap<>();
    private final ClCounters counters;
    private volatile boolean closed;
    private int builds;

    ProgramCache(long context, long device, String deviceLabel, ClCounters counters) {
        this.counters = counters;
        this.context = context;
        this.device = device;
        this.deviceLabel = deviceLabel;
    }

    /** The cache key: SHA-256 of the source, then the options. */
    static String key(String source, String options) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(source.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h) + " " + options;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    /**
     * Kernel {@code kernelName} of the program built from {@code source} with {@code options};
     * builds the program on first use.
     *
     * @param what names the program in errors ({@code "dev/zarrdirect/opencl/zd_backend.cl"})
     * @throws OpenClException with the build log when the program does not compile, or when it has no such kernel
     */
    public ClKernel kernel(String what, String source, String options, String kernelName) {
        if (closed) {
            throw new IllegalStateException("the program cache of " + deviceLabel + " is closed; cannot build " + what);
        }
        Built b = programs.computeIfAbsent(key(source, options), k -> new Built(build(what, source, options),
                new ConcurrentHashMap<>()));
        return b.kernels().computeIfAbsent(kernelName, n -> {
            try (MemoryStack stack = MemoryStack.stackPush()) {
                IntBuffer err = stack.mallocInt(1);
                long k = clCreateKernel(b.program(), n, err);
                ClErrors.check(err.get(0), "clCreateKernel", "\"" + n + "\" of " + what + " on " + deviceLabel);
                return new ClKernel(n, k, counters);
            }
        });
    }

    /**
     * The device binary of the program built from {@code source} with {@code options} (NVIDIA's
     * OpenCL gives PTX text, PoCL its own format), building it on first use: for diagnosis, such as
     * counting the fences a barrier became.
     */
    public byte[] binary(String what, String source, String options) {
        if (closed) {
            throw new IllegalStateException("the program cache of " + deviceLabel + " is closed; cannot build " + what);
        }
        Built b = programs.computeIfAbsent(key(source, options), k -> new Built(build(what, source, options),
                new ConcurrentHashMap<>()));
        try (MemoryStack stack = MemoryStack.stackPush()) {
            PointerBuffer size = stack.mallocPointer(1);
            ClErrors.check(clGetProgramInfo(b.program(), CL_PROGRAM_BINARY_SIZES, size, null), "clGetProgramInfo",
                    "CL_PROGRAM_BINARY_SIZES of " + what + " on " + deviceLabel);
            int n = (int) size.get(0);
            ByteBuffer bin = MemoryUtil.memAlloc(Math.max(1, n));
            try {
                ClErrors.check(clGetProgramInfo(b.program(), CL_PROGRAM_BINARIES, stack.pointers(bin), null),
                        "clGetProgramInfo", "CL_PROGRAM_BINARIES of " + what + " on " + deviceLabel);
                byte[] out = new byte[n];
                bin.get(0, out);
                return out;
            } finally {
                MemoryUtil.memFree(bin);
            }
        }
    }

    /** How many programs are built. */
    public int size() {
        return programs.size();
    }

    /** How many builds ran (a cache hit runs none). */
    public synchronized int builds() {
        return builds;
    }

    private long build(String what, String source, String options) {
        synchronized (this) {
            builds++;
        }
        try (MemoryStack stack = MemoryStack.stackPush()) {
            IntBuffer err = stack.mallocInt(1);
            long program = clCreateProgramWithSource(context, source, err);
            ClErrors.check(err.get(0), "clCreateProgramWithSource", "of " + what + " on " + deviceLabel);
            // the driver's compiler (LLVM in PoCL) may replace the JVM's signal handlers: kept
            int rc = SignalHandlers.keep(() -> clBuildProgram(program, device, options, null, 0));
            if (rc != 0) {
                String log = buildLog(program);
                clReleaseProgram(program);
                throw new OpenClException("building " + what + " with options \"" + options + "\" on " + deviceLabel
                        + " failed: " + rc + " " + ClErrors.name(rc) + "; build log:\n" + log, rc);
            }
            return program;
        }
    }

    private String buildLog(long program) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            PointerBuffer size = stack.mallocPointer(1);
            if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, (ByteBuffer) null, size) != 0) {
                return "(no build log available)";
            }
            ByteBuffer b = MemoryUtil.memAlloc((int) Math.max(1, size.get(0)));
            try {
                clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, b, null);
                return MemoryUtil.memUTF8(b, (int) Math.max(0, size.get(0) - 1)).strip();
            } finally {
                MemoryUtil.memFree(b);
            }
        }
    }

    /** Releases every kernel and program; closing twice is harmless. */
    @Override
    public synchronized void close() {
        closed = true;
        for (Built b : programs.values()) {
            for (ClKernel k : b.kernels().values()) {
                clReleaseKernel(k.handle());
            }
            clReleaseProgram(b.program());
        }
        programs.clear();
    }
}
