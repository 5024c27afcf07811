// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.backend;

import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingValues;

import java.util.List;

/**
 * Finds one family of devices; discovered with {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/dev.zarrdirect.api.backend.BackendProvider}).
 *
 * <p>{@link #probe()} must never throw and must be cheap enough to call at start-up: a missing
 * driver or library is reported in its result, not as an exception or a crash.
 */
public interface BackendProvider {

    /** A short, unique name users choose with {@code --backend}: {@code cpu}, {@code opencl}, {@code cuda}. */
    String name();

    /** Higher is preferred when the user names no backend ({@code cpu} is 0, GPU backends higher). */
    int priority();

    ProbeResult probe();

    /**
     * Starts the backend with its settings from system properties, environment and defaults;
     * the same as {@code open(SettingValues.none())}.
     *
     * @throws dev.zarrdirect.api.MissingBackendException when {@link #probe()} says it is unavailable
     * @throws dev.zarrdirect.api.InvalidSettingException when one of its {@link #settings()} has a bad value
     */
    Backend open();

    /**
     * Starts the backend; {@code explicit} values win over system properties and environment.
     * The backend parses its {@link #settings()} here, once, and fails with
     * {@link dev.zarrdirect.api.InvalidSettingException} on a bad value. Explicit names that are
     * not this backend's settings are ignored here (the context rejects unknown names). By
     * default, for providers without settings, {@link #open()}.
     *
     * @throws dev.zarrdirect.api.MissingBackendException when {@link #probe()} says it is unavailable
     */
    default Backend open(SettingValues explicit) {
        return open();
    }

    /**
     * The settings this backend reads when it starts ({@code zarrdirect.cuda.*}), for the
     * reference table, {@code doctor} and the check of explicit names. By default none.
     */
    default List<Setting<?>> settings() {
        return List.of();
    }
}
