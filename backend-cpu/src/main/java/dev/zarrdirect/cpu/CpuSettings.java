// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cpu;

import dev.zarrdirect.api.backend.CommonBackendSettings;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingType;

import java.util.List;

/**
 * The CPU backend's settings, parsed once when it starts ({@link CpuBackendProvider#open}).
 *
 * @param poolRetainedBytes bytes of free host blocks kept for reuse (default 512 MiB)
 * @param trackBuffers      record each allocation's stack for leak reports
 */
public record CpuSettings(long poolRetainedBytes, boolean trackBuffers) {

    public static final Setting<Long> POOL_RETAINED = Setting.of(CpuBackend.POOL_RETAINED_PROPERTY,
            SettingType.byteSize(0, Long.MAX_VALUE), CpuBackend.DEFAULT_RETAINED, "cpu",
            "bytes of free host blocks the CPU backend keeps for reuse");

    /** Every setting of this record. */
    public static final List<Setting<?>> SETTINGS = List.of(POOL_RETAINED, CommonBackendSettings.TRACK_BUFFERS);

    public CpuSettings {
        if (poolRetainedBytes < 0) {
            throw new IllegalArgumentException("poolRetainedBytes must be >= 0, got " + poolRetainedBytes);
        }
    }

    /** The defaults. */
    public static CpuSettings defaults() {
        return new CpuSettings(CpuBackend.DEFAULT_RETAINED, false);
    }

    /** Resolved by {@code r}: explicit, system property, environment, default. */
    public static CpuSettings from(SettingResolver r) {
        return new CpuSettings(r.get(POOL_RETAINED), r.get(CommonBackendSettings.TRACK_BUFFERS));
    }
}
