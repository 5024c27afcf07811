// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingType;
import dev.zarrdirect.api.settings.SettingValues;
import dev.zarrdirect.core.ZarrContext;
import dev.zarrdirect.core.registry.BackendRegistry;
import dev.zarrdirect.core.registry.CodecRegistry;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings the {@code --set NAME=VALUE} option may name: the core's, every backend's on the
 * class path, and the CLI's own; checked and parsed before a command runs, so that a bad value is
 * a usage error (exit code 2) naming the setting and what it accepts.
 */
final class CliSettings {

    /** Print stack traces of failures, as {@code --stacktrace} does. */
    static final Setting<Boolean> DEBUG = Setting.of("zarrdirect.debug", SettingType.bool(), false, "cli",
            "the CLI prints the stack trace of a failure, as --stacktrace does");

    /** The CLI's own settings (not passed to contexts). */
    static final List<Setting<?>> OWN = List.of(DEBUG);

    private CliSettings() {
    }

    /** Every setting, by name: core, backends (of the class path), CLI. */
    static Map<String, Setting<?>> known() {
        Map<String, Setting<?>> all = new LinkedHashMap<>();
        ZarrContext.coreSettingDescriptors().forEach(s -> all.putIfAbsent(s.name(), s));
        BackendRegistry.providerSettings(CliSettings.class.getClassLoader()).forEach(s -> all.putIfAbsent(s.name(), s));
        OWN.forEach(s -> all.putIfAbsent(s.name(), s));
        return all;
    }

    /**
     * {@code --set} values as explicit settings (names with or without {@code zarrdirect.}), each
     * parsed once here.
     *
     * @throws InvalidSettingException for an unknown name (listing the known ones) or a bad value
     */
    static SettingValues parse(Map<String, String> set) {
        SettingValues.Builder b = SettingValues.builder();
        for (Map.Entry<String, String> e : set.entrySet()) {
            try {
                b.set(e.getKey(), e.getValue());
            } catch (IllegalArgumentException ex) {
                throw new InvalidSettingException(String.valueOf(e.getKey()), e.getValue(),
                        "--set needs NAME=VALUE, got \"" + e.getKey() + "=" + e.getValue() + "\"");
            }
        }
        SettingValues v = b.build();
        Map<String, Setting<?>> known = known();
        List<Setting<?>> list = new ArrayList<>(known.values());
        list.remove(CodecRegistry.CODEC_FAMILY);
        v.requireKnown(list, List.of(CodecRegistry.CODEC_PREFIX));
        for (String n : v.names()) {
            Setting<?> s = known.get(n);
            if (s != null) {
                s.parse(v.get(n).orElseThrow());
            }
        }
        return v;
    }

    /** {@code v} without the CLI's own settings: what contexts receive. */
    static SettingValues forContexts(SettingValues v) {
        SettingValues.Builder b = v.toBuilder();
        OWN.forEach(s -> b.remove(s.name()));
        return b.build();
    }

    /** Whether failures print stack traces: {@link #DEBUG} explicit, property or environment. */
    static boolean debug(SettingValues explicit) {
        try {
            return new SettingResolver(explicit, System::getProperty, System::getenv).get(DEBUG);
        } catch (InvalidSettingException e) {
            return false;
        }
    }
}
