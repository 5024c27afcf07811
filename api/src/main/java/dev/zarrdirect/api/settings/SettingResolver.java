// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.settings;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Resolves settings once, when a context or backend starts: the explicit value, else the system
 * property, else the environment variable, else the default. The only place where zarr-direct
 * reads {@code zarrdirect.*} system properties and {@code ZARRDIRECT_*} environment variables.
 * Remembers what it resolved, in order, for {@code doctor} ({@link #resolved()}).
 *
 * <p>Not thread-safe: one start-up uses one resolver.
 *
 * {@snippet :
 * SettingResolver r = SettingResolver.system(SettingValues.builder().set("decodeDepth", "4").build());
 * int depth = r.get(DEPTH);                    // 4, from the explicit value
 * r.resolved().forEach(s -> System.out.println(s.describe()));   // decodeDepth = 4 (explicit)
 * }
 */
public final class SettingResolver {

    private final SettingValues explicit;
    private final Function<String, String> properties;
    private final Function<String, String> environment;
    private final java.util.function.Supplier<java.util.Collection<String>> propertyNames;
    private final Map<String, ResolvedSetting<?>> resolved = new java.util.LinkedHashMap<>();

    /**
     * A resolver over given lookups, for tests and embedding. Its {@link #familyMembers} sees only
     * explicit names, since a lookup function cannot list the property names it knows.
     *
     * @param properties  system property by name (null: unset)
     * @param environment environment variable by name (null: unset)
     * @param explicit    values given from Java or the command line; they win over everything else
     * @throws NullPointerException when an argument is null
     */
    public SettingResolver(SettingValues explicit, Function<String, String> properties,
                           Function<String, String> environment) {
        this(explicit, properties, environment, List::of);
    }

    private SettingResolver(SettingValues explicit, Function<String, String> properties,
                            Function<String, String> environment,
                            java.util.function.Supplier<java.util.Collection<String>> propertyNames) {
        this.explicit = Objects.requireNonNull(explicit, "explicit");
        this.properties = Objects.requireNonNull(properties, "properties");
        this.environment = Objects.requireNonNull(environment, "environment");
        this.propertyNames = propertyNames;
    }

    /**
     * {@code explicit} over this process's system properties and environment.
     *
     * @param explicit values given from Java or the command line; they win over everything else
     * @return a new resolver
     */
    public static SettingResolver system(SettingValues explicit) {
        return new SettingResolver(explicit, System::getProperty, System::getenv,
                () -> System.getProperties().stringPropertyNames());
    }

    /**
     * This process's system properties and environment, nothing explicit.
     *
     * @return a new resolver
     */
    public static SettingResolver system() {
        return system(SettingValues.none());
    }

    /**
     * The explicit values this resolver was made with.
     *
     * @return the explicit values, never null
     */
    public SettingValues explicit() {
        return explicit;
    }

    /**
     * The value of {@code setting} and its source.
     *
     * @param setting the descriptor
     * @param <T>     the value's type
     * @return the value (null for a derived default not yet known) and its source; also recorded for
     *         {@link #resolved()}, replacing an earlier entry of the same name
     * @throws dev.zarrdirect.api.InvalidSettingException when the text found does not parse
     */
    public <T> ResolvedSetting<T> resolve(Setting<T> setting) {
        ResolvedSetting<T> r;
        String text = explicit.get(setting.name()).orElse(null);
        if (text != null) {
            r = new ResolvedSetting<>(setting, setting.parse(text, SettingSource.EXPLICIT), SettingSource.EXPLICIT);
        } else if ((text = properties.apply(setting.name())) != null) {
            r = new ResolvedSetting<>(setting, setting.parse(text, SettingSource.SYSTEM_PROPERTY),
                    SettingSource.SYSTEM_PROPERTY);
        } else if ((text = environment.apply(setting.env())) != null) {
            r = new ResolvedSetting<>(setting, setting.parse(text, SettingSource.ENVIRONMENT), SettingSource.ENVIRONMENT);
        } else {
            r = new ResolvedSetting<>(setting, setting.defaultValue(), SettingSource.DEFAULT);
        }
        resolved.put(setting.name(), r);
        return r;
    }

    /**
     * {@link #resolve}'s value.
     *
     * @param setting the descriptor
     * @param <T>     the value's type
     * @return the value; null when the default is derived and nobody set it
     * @throws dev.zarrdirect.api.InvalidSettingException when the text found does not parse
     */
    public <T> T get(Setting<T> setting) {
        return resolve(setting).value();
    }

    /**
     * Records {@code r} in place of what was resolved for its name (a derived default now known).
     *
     * @param r the setting with its final value, keyed by its full name
     */
    public void record(ResolvedSetting<?> r) {
        resolved.put(r.name(), r);
    }

    /**
     * The names of a family of settings ({@code zarrdirect.codec.} with one member per codec) that
     * were given explicitly or as system properties, without the prefix. Members given only as
     * environment variables are found by name through {@link #resolve}.
     *
     * @param prefix the family's prefix, with its final dot ({@code zarrdirect.codec.})
     * @return the member names after the prefix ({@code blosc}), sorted, without duplicates
     */
    public List<String> familyMembers(String prefix) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (String n : explicit.names()) {
            if (n.startsWith(prefix) && n.length() > prefix.length()) out.add(n.substring(prefix.length()));
        }
        for (String n : propertyNames.get()) {
            if (n.startsWith(prefix) && n.length() > prefix.length() && properties.apply(n) != null) {
                out.add(n.substring(prefix.length()));
            }
        }
        return List.copyOf(out);
    }

    /**
     * What was resolved so far, in order.
     *
     * @return a copy, in the order each name was first resolved or recorded
     */
    public List<ResolvedSetting<?>> resolved() {
        return List.copyOf(resolved.values());
    }

    /**
     * {@code settings} resolved, by name, for callers that want a table.
     *
     * @param settings resolved settings, such as {@link #resolved()}
     * @return an unmodifiable map sorted by full name; for a repeated name the later one wins
     */
    public static Map<String, ResolvedSetting<?>> byName(List<ResolvedSetting<?>> settings) {
        Map<String, ResolvedSetting<?>> m = new TreeMap<>();
        settings.forEach(s -> m.put(s.name(), s));
        return Collections.unmodifiableMap(m);
    }

    /**
     * The resolver and the names it has resolved so far, for debugging.
     *
     * @return the description
     */
    @Override
    public String toString() {
        return "SettingResolver" + new ArrayList<>(resolved.keySet());
    }
}
