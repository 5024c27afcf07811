// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.settings;

/**
 * A setting in force: its value and where the value came from, for {@code doctor}. Immutable (as
 * long as the value is); made by {@link SettingResolver#resolve}. The constructor checks nothing.
 *
 * @param setting the descriptor
 * @param value   the parsed value (null for a derived default not yet known)
 * @param source  where it came from
 * @param <T>     the value's type
 */
public record ResolvedSetting<T>(Setting<T> setting, T value, SettingSource source) {

    /**
     * The setting's full name.
     *
     * @return {@code setting().name()}, e.g. {@code zarrdirect.decodeDepth}
     */
    public String name() {
        return setting.name();
    }

    /**
     * The value as a user would write it.
     *
     * @return the value formatted by the setting's type, or the setting's default text when the value is null
     */
    public String valueText() {
        return setting.format(value);
    }

    /**
     * {@code decodeDepth = 3 (default)}, {@code threads = 8 (ZARRDIRECT_THREADS)}.
     *
     * @return one line for {@code doctor}: short name, value and source
     */
    public String describe() {
        return setting.shortName() + " = " + valueText() + " (" + source.describe(setting) + ")";
    }

    /**
     * The same setting with a value found later (a default derived from the device).
     *
     * @param derived the value now known
     * @return a new resolved setting with the same descriptor and source; this one is unchanged
     */
    public ResolvedSetting<T> withValue(T derived) {
        return new ResolvedSetting<>(setting, derived, source);
    }
}
