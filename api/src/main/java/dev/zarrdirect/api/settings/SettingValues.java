// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.settings;

import dev.zarrdirect.api.InvalidSettingException;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Settings given explicitly, from Java or a CLI flag, by full name: they win over system
 * properties, which win over environment variables, which win over defaults. Immutable; values
 * are kept as text and parsed by the setting's owner when it starts.
 *
 * {@snippet :
 * SettingValues s = SettingValues.builder().set("zarrdirect.cuda.batchBytes", "512m").set("decodeDepth", "4").build();
 * }
 */
public final class SettingValues {

    private static final SettingValues NONE = new SettingValues(Map.of());

    private final Map<String, String> values;

    private SettingValues(Map<String, String> values) {
        this.values = values;
    }

    /** No explicit settings. */
    public static SettingValues none() {
        return NONE;
    }

    /** {@code name -> value}; names with or without the {@code zarrdirect.} prefix. */
    public static SettingValues of(Map<String, String> values) {
        Builder b = builder();
        values.forEach(b::set);
        return b.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code decodeDepth} as {@code zarrdirect.decodeDepth}; a full name as it is. */
    public static String fullName(String name) {
        String n = name.trim();
        return n.startsWith(Setting.PREFIX) ? n : Setting.PREFIX + n;
    }

    /** The explicit text of the setting {@code name} (full name). */
    public Optional<String> get(String name) {
        return Optional.ofNullable(values.get(name));
    }

    /** The full names given, in the order first given. */
    public Set<String> names() {
        return values.keySet();
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    /** These values, then {@code later}'s over them. */
    public SettingValues with(SettingValues later) {
        Builder b = toBuilder();
        later.values.forEach(b::set);
        return b.build();
    }

    public Builder toBuilder() {
        Builder b = builder();
        values.forEach(b::set);
        return b;
    }

    /**
     * Rejects any name that is none of {@code known} and starts with none of {@code families}
     * ({@code zarrdirect.codec.}).
     *
     * @throws InvalidSettingException naming the unknown setting and listing the known ones
     */
    public void requireKnown(Collection<Setting<?>> known, Collection<String> families) {
        Set<String> names = new TreeSet<>();
        known.forEach(s -> names.add(s.name()));
        for (String n : values.keySet()) {
            if (names.contains(n) || families.stream().anyMatch(n::startsWith)) {
                continue;
            }
            StringBuilder list = new StringBuilder();
            for (String k : names) {
                list.append(list.isEmpty() ? "" : ", ").append(k);
            }
            for (String f : families) {
                list.append(list.isEmpty() ? "" : ", ").append(f).append("<name>");
            }
            throw new InvalidSettingException(n, values.get(n), "unknown setting " + n + " = \"" + values.get(n)
                    + "\"; the settings are: " + list + ". See docs/settings.md.");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SettingValues v && v.values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return values.toString();
    }

    /** Collects values; a later {@link #set} of a name replaces the earlier. */
    public static final class Builder {
        private final Map<String, String> values = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * Sets {@code name} ({@code zarrdirect.decodeDepth} or {@code decodeDepth}) to {@code value}.
         *
         * @throws IllegalArgumentException when the name is blank or the value null
         */
        public Builder set(String name, String value) {
            if (name == null || name.isBlank() || name.trim().equals(Setting.PREFIX.substring(0, Setting.PREFIX.length() - 1))) {
                throw new IllegalArgumentException("a setting needs a name, got \"" + name + "\"");
            }
            if (value == null) {
                throw new IllegalArgumentException("setting " + name + " needs a value, got null");
            }
            values.put(fullName(name), value);
            return this;
        }

        /** Sets {@code setting} to {@code value}, formatted as its type writes it. */
        public <T> Builder set(Setting<T> setting, T value) {
            return set(setting.name(), setting.type().format(value));
        }

        /** Forgets {@code name}. */
        public Builder remove(String name) {
            values.remove(fullName(name));
            return this;
        }

        public SettingValues build() {
            return values.isEmpty() ? NONE : new SettingValues(java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values)));
        }
    }
}
