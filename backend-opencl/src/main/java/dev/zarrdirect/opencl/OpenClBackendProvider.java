// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.opencl;

import dev.zarrdirect.api.MissingBackendException;
import dev.zarrdirect.api.backend.BackendProvider;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingValues;

import java.util.List;

/**
 * The {@code opencl} backend: any OpenCL 1.2+ device, through LWJGL and the system's ICD loader.
 *
 * <h2>Priority</h2>
 * {@value #GPU_PRIORITY} when the chosen device is a GPU, so a GPU is used when the user names no
 * backend; {@value #CPU_PRIORITY} when it is a CPU-type device (PoCL's pthread device): available
 * on request ({@code --backend opencl}), but the {@code cpu} backend (0) stays the default.
 *
 * <h2>Probe</h2>
 * Never throws; says in one sentence what is missing (the library, a platform, a device) or lists
 * every device with its name and which one is chosen (see {@link ClDevices} for the choice). The
 * result is computed once per provider instance and cached.
 */
public final class OpenClBackendProvider implements BackendProvider {

    static final int GPU_PRIORITY = 20;
    static final int CPU_PRIORITY = -10;

    private volatile ClDevices.Found found;

    @Override
    public String name() {
        return "opencl";
    }

    @Override
    public int priority() {
        ClDevices.Found f = found();
        return f.chosen() != null && f.chosen().isGpu() ? GPU_PRIORITY : CPU_PRIORITY;
    }

    @Override
    public ProbeResult probe() {
        ClDevices.Found f = found();
        if (f.chosen() == null) {
            return ProbeResult.unavailable(f.problem());
        }
        StringBuilder sb = new StringBuilder("OpenCL: ");
        sb.append(f.devices().size()).append(f.devices().size() == 1 ? " device (" : " devices (");
        for (int i = 0; i < f.devices().size(); i++) {
            sb.append(i == 0 ? "" : "; ").append(f.devices().get(i));
        }
        sb.append("), using ").append(f.chosen().device());
        String sel = ClDevices.selection();
        sb.append(sel == null ? " (first GPU, else first device; set " + ClDevices.DEVICE_PROPERTY + " to choose)"
                : " (" + ClDevices.DEVICE_PROPERTY + "=" + sel + ")");
        return ProbeResult.available(sb.toString(), f.devices().stream().map(ClDevices.Info::device).toList());
    }

    /**
     * Opens the chosen device.
     *
     * @throws MissingBackendException with the probe's reason when OpenCL is unavailable
     */
    @Override
    public OpenClBackend open() {
        return open(SettingValues.none());
    }

    /**
     * Opens the device the settings choose ({@link OpenClSettings#DEVICE}: explicit, else the one
     * the probe chose from system properties or environment).
     *
     * @throws MissingBackendException with the probe's reason when OpenCL is unavailable, or when an
     *                                 explicit device matches none
     * @throws dev.zarrdirect.api.InvalidSettingException when an OpenCL setting has a bad value
     */
    @Override
    public OpenClBackend open(SettingValues explicit) {
        SettingResolver r = SettingResolver.system(explicit);
        OpenClSettings s = OpenClSettings.from(r);
        ClDevices.Found f = found();
        if (f.chosen() == null) {
            throw new MissingBackendException("backend \"opencl\" is unavailable: " + f.problem());
        }
        ClDevices.Info chosen = f.chosen();
        if (explicit.get(OpenClSettings.DEVICE.name()).isPresent()) {
            ClDevices.Found e = ClDevices.choose(f.devices(), s.device());
            if (e.chosen() == null) {
                throw new MissingBackendException("backend \"opencl\" is unavailable: " + e.problem());
            }
            chosen = e.chosen();
        }
        return new OpenClBackend(chosen, r);
    }

    @Override
    public List<Setting<?>> settings() {
        return OpenClSettings.SETTINGS;
    }

    private ClDevices.Found found() {
        ClDevices.Found f = found;
        if (f == null) {
            synchronized (this) {
                f = found;
                if (f == null) {
                    f = ClDevices.find();
                    found = f;
                }
            }
        }
        return f;
    }
}
