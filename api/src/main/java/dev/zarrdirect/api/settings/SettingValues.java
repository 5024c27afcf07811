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
 * are kept as text and parsed by the setting's owner when it starts, so a bad value is reported
 * then, not here. Names are stored in full ({@code decodeDepth} becomes {@code zarrdirect.decodeDepth}).
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

    /**
     * No explicit settings.
     *
     * @return the shared empty instance
     */
    public static SettingValues none() {
        return NONE;
    }

    /**
     * {@code name -> value}; names with or without the {@code zarrdirect.} prefix.
     *
     * @param values names (trimmed; the prefix added when missing) to their text (kept as given)
     * @return the values, in the map's iteration order
     * @throws IllegalArgumentException when a name is blank or a value null
     */
    public static SettingValues of(Map<String, String> values) {
        Builder b = builder();
        values.forEach(b::set);
        return b.build();
    }

    /**
     * A new, empty builder.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@code decodeDepth} as {@code zarrdirect.decodeDepth}; a full name as it is.
     *
     * @param name a setting name, with or without the prefix; trimmed
     * @return the full name
     * @throws NullPointerException when {@code name} is null
     */
    public static String fullName(String name) {
        String n = name.trim();
        return n.startsWith(Setting.PREFIX) ? n : Setting.PREFIX + n;
    }

    /**
     * The explicit text of the setting {@code name} (full name).
     *
     * @param name the full name, with the {@code zarrdirect.} prefix; a short name finds nothing (use
     *         {@link #fullName} first)
     * @return the text as given, or empty
     */
    public Optional<String> get(String name) {
        return Optional.ofNullable(values.get(name));
    }

    /**
     * The full names given, in the order first given.
     *
     * @return an unmodifiable view of the names
     */
    public Set<String> names() {
        return values.keySet();
    }

    /**
     * Whether no setting was given.
     *
     * @return true when there are no values
     */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    /**
     * These values, then {@code later}'s over them.
     *
     * @param later the values that win
     * @return the merged values; neither input changes
     */
    public SettingValues with(SettingValues later) {
        Builder b = toBuilder();
        later.values.forEach(b::set);
        return b.build();
    }

    /**
     * A builder holding these values, to add or remove some; this object does not change.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = builder();
        values.forEach(b::set);
        return b;
    }

    /**
     * Rejects any name that is none of {@code known} and starts with none of {@code families}
     * ({@code zarrdirect.codec.}).
     *
     * @param known    the settings that exist
     * @param families prefixes of setting families ({@code zarrdirect.codec.}); any name under one is accepted
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

    /**
     * Equal when the same names map to the same texts, whatever the order.
     *
     * @param o the object to compare with
     * @return true for equal values
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof SettingValues v && v.values.equals(values);
    }

    /**
     * A hash of the name-to-text map, consistent with {@link #equals}.
     *
     * @return the hash code
     */
    @Override
    public int hashCode() {
        return values.hashCode();
    }

    /**
     * The values as a map prints: {@code {zarrdirect.decodeDepth=4}}.
     *
     * @return the description
     */
    @Override
    public String toString() {
        return values.toString();
    }

    /** Collects values; a later {@link #set} of a name replaces the earlier. Not thread-safe. */
    public static final class Builder {
        private final Map<String, String> values = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * Sets {@code name} ({@code zarrdirect.decodeDepth} or {@code decodeDepth}) to {@code value}.
         *
         * @param name  the setting's name, with or without the prefix
         * @param value the text, kept as given (parsed when the setting's owner starts)
         * @return this builder
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

        /**
         * Sets {@code setting} to {@code value}, formatted as its type writes it.
         *
         * @param setting the descriptor
         * @param value   the value; not null (for most types a null is stored as the text {@code "null"},
         *         which then fails to parse)
         * @param <T>     the value's type
         * @return this builder
         */
        public <T> Builder set(Setting<T> setting, T value) {
            return set(setting.name(), setting.type().format(value));
        }

        /**
         * Forgets {@code name}.
         *
         * @param name the setting's name, with or without the prefix
         * @return this builder
         */
        public Builder remove(String name) {
            values.remove(fullName(name));
            return this;
        }

        /**
         * The values set so far; the builder may be used further without changing them.
         *
         * @return immutable values ({@link #none()} when empty)
         */
        public SettingValues build() {
            return values.isEmpty() ? NONE : new SettingValues(java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values)));
        }
    }
}
