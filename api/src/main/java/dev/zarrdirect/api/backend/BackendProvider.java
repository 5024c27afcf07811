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
 *
 * <p>A provider needs a public no-argument constructor, as {@link java.util.ServiceLoader} requires.
 * Each {@link #open} starts a new {@link Backend} that the caller owns and closes.
 *
 * {@snippet :
 * for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
 *     ProbeResult r = p.probe();
 *     System.out.println(p.name() + ": " + (r.available() ? r.devices() : r.reason()));
 * }
 * }
 */
public interface BackendProvider {

    /**
     * A short, unique name users choose with {@code --backend}: {@code cpu}, {@code opencl}, {@code cuda}.
     *
     * @return the name, lower case, never null
     */
    String name();

    /**
     * The rank among available backends when the user names none: higher is preferred.
     *
     * @return the priority; {@code cpu} is 0, GPU backends higher
     */
    int priority();

    /**
     * Looks for this family's devices without starting a backend (for a GPU family: finds the driver
     * library and counts devices). Never throws; every problem becomes {@link ProbeResult#unavailable}.
     *
     * @return the devices found, or the reason there are none
     */
    ProbeResult probe();

    /**
     * Starts the backend with its settings from system properties, environment and defaults;
     * the same as {@code open(SettingValues.none())}.
     *
     * @return a started backend, which the caller owns and closes
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
     * @param explicit settings given from Java or the command line, by full name; never null
     *                 ({@link SettingValues#none()} for none)
     * @return a started backend, which the caller owns and closes
     * @throws dev.zarrdirect.api.MissingBackendException when {@link #probe()} says it is unavailable
     * @throws dev.zarrdirect.api.InvalidSettingException when one of its {@link #settings()} has a bad value
     */
    default Backend open(SettingValues explicit) {
        return open();
    }

    /**
     * The settings this backend reads when it starts ({@code zarrdirect.cuda.*}), for the
     * reference table, {@code doctor} and the check of explicit names. By default none.
     *
     * @return the setting descriptors
     */
    default List<Setting<?>> settings() {
        return List.of();
    }
}
