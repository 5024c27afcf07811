// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.backend;

import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingType;

/**
 * Settings that several backends read under one name, so that one switch turns a feature on for
 * whichever backend starts. Constants only.
 */
public final class CommonBackendSettings {

    /**
     * {@code zarrdirect.trackBuffers} ({@code ZARRDIRECT_TRACK_BUFFERS}), default false: record the
     * allocation stack of each buffer for leak reports (and guard stale segments on the CPU); costs a
     * stack trace per allocation, so it is for tests.
     */
    public static final Setting<Boolean> TRACK_BUFFERS = Setting.of("zarrdirect.trackBuffers", SettingType.bool(), false,
            "cpu, cuda, opencl", "record where each buffer was allocated, for leak reports (slow; for tests)");

    private CommonBackendSettings() {
    }
}
