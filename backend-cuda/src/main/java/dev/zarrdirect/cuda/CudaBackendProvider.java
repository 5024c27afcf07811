// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.MissingBackendException;
import dev.zarrdirect.api.backend.BackendProvider;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingValues;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;
import dev.zarrdirect.cuda.kernels.KernelImage;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code cuda} backend (priority 30). Its probe never throws and answers in one sentence:
 * no driver ({@code libcuda.so.1} missing), {@code cuInit} failing, no device, or no kernels (the
 * fatbin missing from the class path or not loadable on a device) — each with the reason — or the
 * devices with name, compute capability and memory.
 *
 * <h2>Cost</h2>
 * The first probe loads the driver, retains each device's primary context and loads the fatbin
 * once into it (to prove it has code for the device), then unloads it; primary contexts stay
 * retained for the process (see {@link CudaDevice}), so a later {@link #open()} costs no second
 * context creation. The result is cached: later probes are free.
 */
public final class CudaBackendProvider implements BackendProvider {

    private static volatile ProbeResult cached;

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public int priority() {
        return 30;
    }

    @Override
    public ProbeResult probe() {
        ProbeResult r = cached;
        if (r == null) {
            synchronized (CudaBackendProvider.class) {
                if (cached == null) {
                    cached = probeNow();
                }
                r = cached;
            }
        }
        return r;
    }

    static ProbeResult probeNow() {
        try {
            var driver = CudaDriver.load();
            if (driver.isEmpty()) {
                return ProbeResult.unavailable("CUDA: " + CudaDriver.failure());
            }
            CudaDriver d = driver.get();
            int n = d.deviceCount();
            if (n == 0) {
                return ProbeResult.unavailable("CUDA: the driver (" + version(d.driverVersion()) + ") found no device");
            }
            MemorySegment fatbin = KernelImage.image();
            if (fatbin == null) {
                return ProbeResult.unavailable("CUDA: no kernels: " + KernelImage.failure());
            }
            List<Device> devices = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                try (CudaDevice dev = new CudaDevice(d, i, fatbin)) {
                    devices.add(new Device(DeviceType.CUDA, i));
                    names.add("cuda:" + i + " " + dev.describe());
                } catch (RuntimeException e) {
                    return ProbeResult.unavailable("CUDA: no kernels for device " + i + ": the fatbin "
                            + KernelImage.RESOURCE + " does not load (" + e.getMessage() + ")");
                }
            }
            return ProbeResult.available("CUDA " + version(d.driverVersion()) + ": " + String.join("; ", names), devices);
        } catch (Throwable t) {
            return ProbeResult.unavailable("CUDA: probing failed: " + t);
        }
    }

    static String version(int v) {
        return "driver " + v / 1000 + "." + v % 1000 / 10;
    }

    @Override
    public CudaBackend open() {
        return open(SettingValues.none());
    }

    /**
     * Starts the backend with {@link CudaSettings} resolved over {@code explicit}; each device's
     * {@link dev.zarrdirect.cuda.codec.ZstdKernelPolicy} is chosen here.
     *
     * @throws dev.zarrdirect.api.InvalidSettingException when a CUDA setting has a bad value
     */
    @Override
    public CudaBackend open(SettingValues explicit) {
        SettingResolver r = SettingResolver.system(explicit);
        CudaSettings.from(r); // bad values fail here, before the probe's cost
        ProbeResult p = probe();
        if (!p.available()) {
            throw new MissingBackendException(p.reason());
        }
        // the probe loaded the image of system properties or environment; an explicit one replaces it
        MemorySegment image = explicit.get(CudaSettings.KERNEL_IMAGE.name()).isPresent()
                ? KernelImage.file(CudaSettings.from(r).kernelImage()) : KernelImage.image();
        return new CudaBackend(CudaDriver.load().orElseThrow(), image, r);
    }

    @Override
    public List<Setting<?>> settings() {
        return CudaSettings.SETTINGS;
    }

    @Override
    public String toString() {
        return "CudaBackendProvider";
    }
}
