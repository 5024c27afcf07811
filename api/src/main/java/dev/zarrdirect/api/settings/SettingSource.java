// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.settings;

/**
 * Where the value of a setting in force came from. The first that has a value wins:
 * {@link #EXPLICIT}, then {@link #SYSTEM_PROPERTY}, then {@link #ENVIRONMENT}, then {@link #DEFAULT}.
 */
public enum SettingSource {
    /** Nobody set it: the setting's default (which may be derived from the device). */
    DEFAULT,
    /** The environment variable ({@code ZARRDIRECT_THREADS}). */
    ENVIRONMENT,
    /** The system property ({@code -Dzarrdirect.threads=8}). */
    SYSTEM_PROPERTY,
    /** Given from Java ({@link SettingValues}, a builder) or a CLI flag ({@code --set}). */
    EXPLICIT;

    /**
     * How {@code doctor} names this source for {@code setting}: {@code default},
     * {@code ZARRDIRECT_THREADS}, {@code -Dzarrdirect.threads}, {@code explicit}.
     *
     * @param setting the setting whose value came from this source (its names fill in the text)
     * @return the source's name for that setting
     */
    public String describe(Setting<?> setting) {
        return switch (this) {
            case DEFAULT -> "default";
            case ENVIRONMENT -> setting.env();
            case SYSTEM_PROPERTY -> "-D" + setting.name();
            case EXPLICIT -> "explicit";
        };
    }
}
