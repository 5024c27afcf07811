// SPDX-License-Identifier: Apache-2.0
/**
 * Typed settings: descriptors, parsers, and where a value in force came from.
 *
 * <h2>Descriptors</h2>
 * A {@link dev.zarrdirect.api.settings.Setting} names one setting ({@code zarrdirect.decodeDepth}),
 * its environment variable ({@code ZARRDIRECT_DECODE_DEPTH}), its
 * {@link dev.zarrdirect.api.settings.SettingType} (integer and byte-size ranges, {@code true/false},
 * a list of values), default and meaning. The records that hold parsed values
 * ({@code ReadSettings}, {@code CudaSettings}...) declare them as constants; {@code docs/settings.md}
 * is generated from them.
 *
 * <h2>Resolution</h2>
 * Parsed once, when a context or backend starts, by a
 * {@link dev.zarrdirect.api.settings.SettingResolver}: an explicit
 * {@link dev.zarrdirect.api.settings.SettingValues} (Java builder, CLI {@code --set}) wins over the
 * system property, which wins over the environment variable, which wins over the default. A value
 * that does not parse throws {@link dev.zarrdirect.api.InvalidSettingException}
 * ({@code zarrdirect.decodeDepth = "banana": expected an integer 1..64}); it never silently
 * becomes the default. Each value in force is kept with its
 * {@link dev.zarrdirect.api.settings.SettingSource} as a
 * {@link dev.zarrdirect.api.settings.ResolvedSetting} for {@code doctor}.
 */
package dev.zarrdirect.api.settings;
