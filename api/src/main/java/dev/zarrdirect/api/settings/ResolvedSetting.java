// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.settings;

/**
 * A setting in force: its value and where the value came from, for {@code doctor}.
 *
 * @param setting the descriptor
 * @param value   the parsed value (null for a derived default not yet known)
 * @param source  where it came from
 * @param <T>     the value's type
 */
public record ResolvedSetting<T>(Setting<T> setting, T value, SettingSource source) {

    public String name() {
        return setting.name();
    }

    /** The value as a user would write it. */
    public String valueText() {
        return setting.format(value);
    }

    /** {@code decodeDepth = 3 (default)}, {@code threads = 8 (ZARRDIRECT_THREADS)}. */
    public String describe() {
        return setting.shortName() + " = " + valueText() + " (" + source.describe(setting) + ")";
    }

    /** The same setting with a value found later (a default derived from the device). */
    public ResolvedSetting<T> withValue(T derived) {
        return new ResolvedSetting<>(setting, derived, source);
    }
}
