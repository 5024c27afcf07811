// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import org.lwjgl.PointerBuffer;
import org.lwjgl.opencl.CL;
import org.lwjgl.system.Configuration;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.system.MemoryUtil;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.lwjgl.opencl.CL10.*;

/**
 * Finds the OpenCL platforms and devices and chooses the device the backend opens.
 *
 * <h2>Library</h2>
 * LWJGL loads {@code libOpenCL.so.1} (the ICD loader of {@code ocl-icd-libopencl1}) unless
 * {@code -Dorg.lwjgl.opencl.libname} names another; the unversioned {@code libOpenCL.so} that
 * LWJGL looks for by default exists only with the development package.
 *
 * <h2>Device indices</h2>
 * Devices are numbered across platforms in the order the ICD loader lists them:
 * {@code opencl:0} is the first device of the first platform. The numbering is the one
 * {@code clinfo -l} shows, flattened.
 *
 * <h2>Choice</h2>
 * {@value #DEVICE_PROPERTY} (or the environment variable {@value #DEVICE_ENV}) holds an index or a
 * case-insensitive substring of "platform device" names; without it the first GPU is chosen, else
 * the first device.
 */
final class ClDevices {

    static final String DEVICE_PROPERTY = "zarrdirect.opencl.device";
    static final String DEVICE_ENV = "ZARRDIRECT_OPENCL_DEVICE";
    static final String LIBRARY = "libOpenCL.so.1";

    /** One device as the platform describes it. */
    record Info(int index, long platform, long id, String platformName, String name, long type, String version,
                long globalMemBytes, long maxAllocBytes, long maxWorkGroupSize, long localMemBytes) {

        Device device() {
            return new Device(DeviceType.OPENCL, index);
        }

        boolean isGpu() {
            return (type & CL_DEVICE_TYPE_GPU) != 0;
        }

        String typeName() {
            if ((type & CL_DEVICE_TYPE_GPU) != 0) {
                return "GPU";
            }
            if ((type & CL_DEVICE_TYPE_CPU) != 0) {
                return "CPU";
            }
            if ((type & CL_DEVICE_TYPE_ACCELERATOR) != 0) {
                return "accelerator";
            }
            return "other";
        }

        @Override
        public String toString() {
            return device() + " " + name + " (" + typeName() + ", " + platformName + ", " + version + ")";
        }
    }

    /** The devices found and the chosen one, or why there are none. */
    record Found(List<Info> devices, Info chosen, String problem) {
    }

    private ClDevices() {
    }

    /** Points LWJGL at {@value #LIBRARY} unless the user named a library; before LWJGL's CL class loads. */
    static void configureLibrary() {
        if (System.getProperty("org.lwjgl.opencl.libname") == null && Configuration.OPENCL_LIBRARY_NAME.get() == null) {
            Configuration.OPENCL_LIBRARY_NAME.set(LIBRARY);
        }
    }

    /**
     * Looks for platforms and devices; never throws: a failure comes back as {@link Found#problem()}.
     * Loading the drivers may replace the JVM's signal handlers: they are put back.
     */
    static Found find() {
        return SignalHandlers.keep(ClDevices::findUnguarded);
    }

    private static Found findUnguarded() {
        try {
            configureLibrary();
        } catch (Throwable t) {
            return problem("OpenCL: LWJGL is missing or broken on the class path (" + t + ")");
        }
        try {
            MemoryStack.stackPush().close(); // LWJGL's own natives (liblwjgl.so from lwjgl-natives-linux)
        } catch (Throwable t) {
            return problem("OpenCL: LWJGL's natives failed to load (" + t.getClass().getSimpleName() + ": "
                    + t.getMessage() + "); put org.lwjgl:lwjgl:natives-linux on the class path");
        }
        String missing = missingLibrary(libraryName());
        if (missing != null) {
            // checked before LWJGL looks: its failed load prints a "[LWJGL] Failed to load a library" block on stderr
            return problem("OpenCL: " + missing + " (install ocl-icd-libopencl1 and a driver, e.g. pocl-opencl-icd)");
        }
        try {
            CL.getICD();
        } catch (Throwable t) {
            String lib = System.getProperty("org.lwjgl.opencl.libname", LIBRARY);
            return problem("OpenCL: " + lib + " not found (install ocl-icd-libopencl1 and a driver, e.g."
                    + " pocl-opencl-icd)");
        }
        try {
            return enumerate();
        } catch (Throwable t) {
            return problem("OpenCL: listing platforms and devices failed: " + t);
        }
    }

    /** The OpenCL library LWJGL will load: {@code org.lwjgl.opencl.libname}, else {@value #LIBRARY}. */
    static String libraryName() {
        String name = System.getProperty("org.lwjgl.opencl.libname");
        if (name == null) {
            Object configured = Configuration.OPENCL_LIBRARY_NAME.get();
            name = configured == null ? LIBRARY : configured.toString();
        }
        return name;
    }

    /**
     * Null when {@code name} can be loaded where LWJGL looks for it (an absolute path, a directory of
     * {@code org.lwjgl.librarypath} or {@code java.library.path}, else the system's dynamic loader),
     * else why not. Prints nothing.
     */
    static String missingLibrary(String name) {
        Path file = Path.of(name);
        if (file.isAbsolute()) {
            return Files.isRegularFile(file) ? null : name + " not found";
        }
        for (String prop : new String[]{"org.lwjgl.librarypath", "java.library.path"}) {
            String dirs = System.getProperty(prop);
            if (dirs == null) {
                continue;
            }
            for (String dir : dirs.split(java.io.File.pathSeparator)) {
                if (!dir.isBlank() && Files.isRegularFile(Path.of(dir, name))) {
                    return null;
                }
            }
        }
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup.libraryLookup(name, arena);
            return null;
        } catch (IllegalArgumentException e) {
            return name + " not found";
        } catch (Throwable t) {
            return name + " could not be loaded (" + t + ")";
        }
    }

    private static Found problem(String why) {
        return new Found(List.of(), null, why);
    }

    private static Found enumerate() {
        List<Info> all = new ArrayList<>();
        try (MemoryStack stack = MemoryStack.stackPush()) {
            IntBuffer n = stack.mallocInt(1);
            int err = clGetPlatformIDs(null, n);
            if (err == -1001 || err == 0 && n.get(0) == 0) {
                return problem("OpenCL: no platform found (" + System.getProperty("org.lwjgl.opencl.libname", LIBRARY)
                        + " loaded, but no driver is registered in /etc/OpenCL/vendors; install one, e.g."
                        + " pocl-opencl-icd)");
            }
            if (err != 0) {
                return problem("OpenCL: clGetPlatformIDs failed: " + err + " " + ClErrors.name(err));
            }
            PointerBuffer platforms = stack.mallocPointer(n.get(0));
            ClErrors.check(clGetPlatformIDs(platforms, (IntBuffer) null), "clGetPlatformIDs", "listing platforms");
            List<String> empty = new ArrayList<>();
            for (int p = 0; p < platforms.capacity(); p++) {
                long platform = platforms.get(p);
                String pname = platformString(platform, CL_PLATFORM_NAME);
                IntBuffer nd = stack.mallocInt(1);
                int derr = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, null, nd);
                if (derr == CL_DEVICE_NOT_FOUND || derr == 0 && nd.get(0) == 0) {
                    empty.add(pname);
                    continue;
                }
                ClErrors.check(derr, "clGetDeviceIDs", "on platform " + pname);
                PointerBuffer ids = stack.mallocPointer(nd.get(0));
                ClErrors.check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, ids, (IntBuffer) null), "clGetDeviceIDs",
                        "on platform " + pname);
                for (int d = 0; d < ids.capacity(); d++) {
                    long id = ids.get(d);
                    all.add(new Info(all.size(), platform, id, pname, deviceString(id, CL_DEVICE_NAME),
                            deviceLong(id, CL_DEVICE_TYPE), deviceString(id, CL_DEVICE_VERSION),
                            deviceLong(id, CL_DEVICE_GLOBAL_MEM_SIZE), deviceLong(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE),
                            devicePointer(id, CL_DEVICE_MAX_WORK_GROUP_SIZE), deviceLong(id, CL_DEVICE_LOCAL_MEM_SIZE)));
                }
            }
            if (all.isEmpty()) {
                return problem("OpenCL: no device found on the " + empty.size()
                        + (empty.size() == 1 ? " platform " : " platforms ") + empty
                        + " (the driver is installed but sees no hardware it supports)");
            }
        }
        return choose(all, selection());
    }

    /** The user's device selection from system properties or environment ({@link OpenClSettings#DEVICE}), or null. */
    static String selection() {
        try {
            return dev.zarrdirect.api.settings.SettingResolver.system().get(OpenClSettings.DEVICE);
        } catch (dev.zarrdirect.api.InvalidSettingException e) {
            return null; // a blank value: no selection (the backend's start reports it)
        }
    }

    /** Applies {@code selection} (index or name substring, or null) to {@code all}. */
    static Found choose(List<Info> all, String selection) {
        if (selection == null) {
            Info pick = all.stream().filter(Info::isGpu).findFirst().orElse(all.getFirst());
            return new Found(List.copyOf(all), pick, null);
        }
        if (selection.matches("\\d+")) {
            int i = Integer.parseInt(selection);
            if (i < all.size()) {
                return new Found(List.copyOf(all), all.get(i), null);
            }
            return new Found(List.copyOf(all), null, "OpenCL: " + DEVICE_PROPERTY + "=" + selection
                    + " is out of range; there " + (all.size() == 1 ? "is 1 device: " : "are " + all.size()
                    + " devices: ") + all);
        }
        String want = selection.toLowerCase(Locale.ROOT);
        for (Info d : all) {
            if ((d.platformName() + " " + d.name()).toLowerCase(Locale.ROOT).contains(want)) {
                return new Found(List.copyOf(all), d, null);
            }
        }
        return new Found(List.copyOf(all), null, "OpenCL: " + DEVICE_PROPERTY + "=\"" + selection
                + "\" matches no platform or device name; devices: " + all);
    }

    private static String platformString(long platform, int param) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            PointerBuffer size = stack.mallocPointer(1);
            ClErrors.check(clGetPlatformInfo(platform, param, (ByteBuffer) null, size), "clGetPlatformInfo",
                    "param 0x" + Integer.toHexString(param));
            ByteBuffer b = MemoryUtil.memAlloc((int) size.get(0));
            try {
                ClErrors.check(clGetPlatformInfo(platform, param, b, null), "clGetPlatformInfo",
                        "param 0x" + Integer.toHexString(param));
                return MemoryUtil.memUTF8(b, Math.max(0, (int) size.get(0) - 1)).trim();
            } finally {
                MemoryUtil.memFree(b);
            }
        }
    }

    static String deviceString(long device, int param) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            PointerBuffer size = stack.mallocPointer(1);
            ClErrors.check(clGetDeviceInfo(device, param, (ByteBuffer) null, size), "clGetDeviceInfo",
                    "param 0x" + Integer.toHexString(param));
            ByteBuffer b = MemoryUtil.memAlloc((int) size.get(0));
            try {
                ClErrors.check(clGetDeviceInfo(device, param, b, null), "clGetDeviceInfo",
                        "param 0x" + Integer.toHexString(param));
                return MemoryUtil.memUTF8(b, Math.max(0, (int) size.get(0) - 1)).trim();
            } finally {
                MemoryUtil.memFree(b);
            }
        }
    }

    static long deviceLong(long device, int param) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            java.nio.LongBuffer v = stack.callocLong(1);
            ClErrors.check(clGetDeviceInfo(device, param, v, null), "clGetDeviceInfo",
                    "param 0x" + Integer.toHexString(param));
            return v.get(0);
        }
    }

    static long devicePointer(long device, int param) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            PointerBuffer v = stack.callocPointer(1);
            ClErrors.check(clGetDeviceInfo(device, param, v, null), "clGetDeviceInfo",
                    "param 0x" + Integer.toHexString(param));
            return v.get(0);
        }
    }
}
