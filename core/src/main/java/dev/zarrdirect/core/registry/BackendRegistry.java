// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.registry;

import dev.zarrdirect.api.MissingBackendException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.BackendProvider;
import dev.zarrdirect.api.backend.ProbeResult;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingType;
import dev.zarrdirect.api.settings.SettingValues;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;

/**
 * The backends on the class path, found with {@link ServiceLoader}. Discovery never throws: a
 * provider that fails to load or whose probe throws is listed as unavailable with the reason.
 *
 * <p>The backend used when none is named: the setting {@link #BACKEND} (system property
 * {@value #BACKEND_PROPERTY}, environment variable {@value #BACKEND_ENV}), else the available
 * backend of highest priority.
 */
public final class BackendRegistry {

    public static final String BACKEND_PROPERTY = "zarrdirect.backend";
    public static final String BACKEND_ENV = "ZARRDIRECT_BACKEND";

    /** The backend a context starts on when the caller names none. */
    public static final Setting<String> BACKEND = Setting.of(BACKEND_PROPERTY,
            SettingType.text("auto or a backend's name (cpu, opencl, cuda)"), "auto", "core",
            "the backend a context starts on: auto (the available one of highest priority) or a name");

    /** One provider and what its probe said. */
    public record Entry(String name, int priority, ProbeResult probe, BackendProvider provider) {
    }

    private final List<Entry> entries;

    private BackendRegistry(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** Loads and probes every provider on the class path of {@code loader}. */
    public static BackendRegistry discover(ClassLoader loader) {
        List<Entry> found = new ArrayList<>();
        ServiceLoader<BackendProvider> sl = ServiceLoader.load(BackendProvider.class, loader);
        var it = sl.stream().iterator();
        while (true) {
            ServiceLoader.Provider<BackendProvider> p;
            try {
                if (!it.hasNext()) {
                    break;
                }
                p = it.next();
            } catch (java.util.ServiceConfigurationError e) {
                found.add(new Entry("?", Integer.MIN_VALUE, ProbeResult.unavailable(
                        "a backend provider could not be loaded: " + e.getMessage()), null));
                continue;
            }
            BackendProvider provider;
            try {
                provider = p.get();
            } catch (Throwable t) {
                found.add(new Entry(p.type().getName(), Integer.MIN_VALUE, ProbeResult.unavailable(
                        p.type().getSimpleName() + " could not be created: " + t), null));
                continue;
            }
            ProbeResult probe;
            try {
                probe = provider.probe();
            } catch (Throwable t) {
                probe = ProbeResult.unavailable(provider.name() + ": probe failed: " + t);
            }
            found.add(new Entry(provider.name(), provider.priority(), probe, provider));
        }
        found.sort(Comparator.comparingInt(Entry::priority).reversed().thenComparing(Entry::name));
        return new BackendRegistry(found);
    }

    public static BackendRegistry discover() {
        return discover(Thread.currentThread().getContextClassLoader() != null
                ? Thread.currentThread().getContextClassLoader() : BackendRegistry.class.getClassLoader());
    }

    /** Every provider found, preferred first. */
    public List<Entry> entries() {
        return entries;
    }

    /** The names of the available backends, preferred first. */
    public List<String> availableNames() {
        return entries.stream().filter(e -> e.probe().available()).map(Entry::name).toList();
    }

    /** The backend the user asked for through the property or environment, else the best available. */
    public String defaultName() {
        return resolveName(SettingResolver.system().get(BACKEND));
    }

    /** {@code chosen} ({@code auto} or null: the best available) as a backend name. */
    public String resolveName(String chosen) {
        if (chosen != null && !chosen.isBlank() && !chosen.equalsIgnoreCase("auto")) {
            return chosen.trim().toLowerCase(Locale.ROOT);
        }
        return entries.stream().filter(e -> e.probe().available()).map(Entry::name).findFirst()
                .orElseThrow(() -> new MissingBackendException("no backend is available: " + describeAll()));
    }

    /**
     * Starts the backend named {@code name} ({@code "auto"} or null for {@link #defaultName()}).
     *
     * @throws MissingBackendException naming the backends found and why the requested one is unusable
     */
    public Backend open(String name) {
        return open(name, SettingValues.none());
    }

    /**
     * Starts the backend named {@code name} ({@code "auto"} or null for {@link #defaultName()}),
     * passing {@code explicit} to its provider's {@link BackendProvider#open(SettingValues)}.
     *
     * @throws MissingBackendException naming the backends found and why the requested one is unusable
     */
    public Backend open(String name, SettingValues explicit) {
        String n = (name == null || name.isBlank() || name.equalsIgnoreCase("auto")) ? defaultName()
                : name.trim().toLowerCase(Locale.ROOT);
        for (Entry e : entries) {
            if (e.name().equals(n)) {
                if (!e.probe().available()) {
                    throw new MissingBackendException("backend \"" + n + "\" is unavailable: " + e.probe().reason());
                }
                return e.provider().open(explicit);
            }
        }
        throw new MissingBackendException("no backend named \"" + n + "\"; found: " + describeAll()
                + ". Put the backend's jar on the class path, or choose one of " + availableNames() + ".");
    }

    /**
     * The settings of every backend provider on the class path of {@code loader}, without probing
     * any (cheap: providers are only instantiated), for the reference table and name checks.
     */
    public static List<Setting<?>> providerSettings(ClassLoader loader) {
        java.util.Map<String, Setting<?>> out = new java.util.LinkedHashMap<>();
        for (var p : ServiceLoader.load(BackendProvider.class, loader).stream().toList()) {
            try {
                p.get().settings().forEach(s -> out.putIfAbsent(s.name(), s));
            } catch (Throwable t) {
                // a provider that cannot be created is reported by discover(); it has no settings to offer
            }
        }
        return List.copyOf(out.values());
    }

    /** The settings of every backend provider found (loaded or not available), for the reference and checks. */
    public List<Setting<?>> backendSettings() {
        List<Setting<?>> out = new ArrayList<>();
        for (Entry e : entries) {
            if (e.provider() != null) {
                try {
                    out.addAll(e.provider().settings());
                } catch (Throwable t) {
                    // a broken provider is reported by its probe; it has no settings to offer
                }
            }
        }
        return List.copyOf(out);
    }

    private String describeAll() {
        if (entries.isEmpty()) {
            return "none (no BackendProvider on the class path)";
        }
        StringBuilder sb = new StringBuilder();
        for (Entry e : entries) {
            if (!sb.isEmpty()) {
                sb.append("; ");
            }
            sb.append(e.name()).append(e.probe().available() ? " (available)" : " (unavailable: "
                    + e.probe().reason() + ")");
        }
        return sb.toString();
    }
}
