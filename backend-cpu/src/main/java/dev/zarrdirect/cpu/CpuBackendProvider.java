// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.BackendProvider;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.cpu.codec.bytestobytes.LibDeflate;
import dev.zarrdirect.cpu.codec.bytestobytes.ZstdNatives;

import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingValues;

import java.util.List;

/**
 * The {@code cpu} backend: always available, lowest priority. Its probe says how many cores it
 * has and whether zstd-jni's natives loaded; without them the backend still starts, and only the
 * {@code zstd} codec is missing.
 */
public final class CpuBackendProvider implements BackendProvider {

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public ProbeResult probe() {
        int cores = Runtime.getRuntime().availableProcessors();
        String zstd;
        try {
            zstd = ZstdNatives.available()
                    ? "zstd-jni " + ZstdNatives.version()
                    : "zstd-jni " + ZstdNatives.version() + " natives failed to load (" + ZstdNatives.failure()
                    + "), so no zstd codec";
        } catch (Throwable t) { // zstd-jni missing from the class path altogether
            zstd = "zstd-jni missing (" + t + "), so no zstd codec";
        }
        String inflate = LibDeflate.available() ? LibDeflate.library() + " for inflate"
                : "inflate by the JDK's zlib (" + LibDeflate.failure() + ")";
        return ProbeResult.available("CPU: " + cores + (cores == 1 ? " core, " : " cores, ") + zstd + ", " + inflate,
                List.of(Device.CPU));
    }

    @Override
    public CpuBackend open() {
        return open(SettingValues.none());
    }

    /** Starts with {@link CpuSettings} resolved over {@code explicit}. */
    @Override
    public CpuBackend open(SettingValues explicit) {
        return new CpuBackend(SettingResolver.system(explicit));
    }

    @Override
    public List<Setting<?>> settings() {
        return CpuSettings.SETTINGS;
    }
}
