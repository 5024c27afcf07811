// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.backend;

import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingType;

/** Settings that several backends read under one name. */
public final class CommonBackendSettings {

    /** Allocation stacks for leak reports (and stale-segment guards on the CPU); costs a stack trace per allocation. */
    public static final Setting<Boolean> TRACK_BUFFERS = Setting.of("zarrdirect.trackBuffers", SettingType.bool(), false,
            "cpu, cuda, opencl", "record where each buffer was allocated, for leak reports (slow; for tests)");

    private CommonBackendSettings() {
    }
}
