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
 *
 * <p>A registry is a snapshot taken by {@link #discover}: immutable and safe for use by many
 * threads. It starts nothing until {@link #open} is called, and owns none of the backends it
 * starts: each {@link #open} starts a new {@link Backend}, which the caller closes. Most users
 * never call it: a {@link dev.zarrdirect.core.ZarrContext} opens its backend through it.
 *
 * {@snippet :
 * BackendRegistry backends = BackendRegistry.discover();
 * for (BackendRegistry.Entry e : backends.entries()) {       // preferred first
 *     System.out.println(e.name() + " (priority " + e.priority() + "): "
 *             + (e.probe().available() ? "available, " + e.probe().devices() : e.probe().reason()));
 * }
 * try (Backend b = backends.open("auto")) {                   // or "cpu", "cuda", ...
 *     System.out.println(b.defaultDevice());
 * }
 * }
 */
public final class BackendRegistry {

    /** The system property that names the default backend: {@code zarrdirect.backend}. */
    public static final String BACKEND_PROPERTY = "zarrdirect.backend";
    /** The environment variable that names the default backend, read when the property is unset. */
    public static final String BACKEND_ENV = "ZARRDIRECT_BACKEND";

    /**
     * The backend a context starts on when the caller names none: {@code auto} (the default: the
     * available backend of highest priority) or a backend's name, compared without case.
     */
    public static final Setting<String> BACKEND = Setting.of(BACKEND_PROPERTY,
            SettingType.text("auto or a backend's name (cpu, opencl, cuda)"), "auto", "core",
            "the backend a context starts on: auto (the available one of highest priority) or a name");

    /**
     * One provider and what its probe said. Providers that could not be loaded or created are
     * entries too, unavailable, so that listings say why a backend is missing.
     *
     * @param name     the provider's {@link BackendProvider#name()}; for a provider that could not
     *                 be created, its class name, and {@code "?"} for one that could not be loaded
     * @param priority the provider's {@link BackendProvider#priority()}, higher preferred;
     *                 {@link Integer#MIN_VALUE} for one that could not be loaded or created
     * @param probe    what {@link BackendProvider#probe()} said (an unavailable result with the
     *                 failure when it threw, or when the provider could not be loaded or created)
     * @param provider the provider, or null when it could not be loaded or created
     */
    public record Entry(String name, int priority, ProbeResult probe, BackendProvider provider) {
    }

    private final List<Entry> entries;

    private BackendRegistry(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /**
     * Loads and probes every provider that {@code loader} sees ({@link ServiceLoader#load(Class,
     * ClassLoader)}: the module path and the class path). Probing may load native libraries and
     * look for devices, so it can take a moment; no backend is started.
     *
     * @param loader where providers are looked for; null for the system class loader
     * @return the providers found, sorted by descending priority, then by name
     */
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
            // A plugin's name() or priority() may throw too: discovery lists it as unavailable instead.
            String name;
            int priority;
            try {
                name = provider.name();
                priority = provider.priority();
            } catch (Throwable t) {
                found.add(new Entry(p.type().getName(), Integer.MIN_VALUE, ProbeResult.unavailable(
                        p.type().getSimpleName() + " could not say its name and priority: " + t), null));
                continue;
            }
            ProbeResult probe;
            try {
                probe = provider.probe();
            } catch (Throwable t) {
                probe = ProbeResult.unavailable(name + ": probe failed: " + t);
            }
            found.add(new Entry(name, priority, probe, provider));
        }
        found.sort(Comparator.comparingInt(Entry::priority).reversed().thenComparing(Entry::name));
        return new BackendRegistry(found);
    }

    /**
     * As {@link #discover(ClassLoader)}, with the current thread's context class loader, else this
     * class's loader.
     *
     * @return the providers found, preferred first
     */
    public static BackendRegistry discover() {
        return discover(Thread.currentThread().getContextClassLoader() != null
                ? Thread.currentThread().getContextClassLoader() : BackendRegistry.class.getClassLoader());
    }

    /**
     * Every provider found, available or not, preferred first.
     *
     * @return an unmodifiable list, empty when no provider is on the path
     */
    public List<Entry> entries() {
        return entries;
    }

    /**
     * The names of the available backends, preferred first.
     *
     * @return an unmodifiable list, empty when none is available
     */
    public List<String> availableNames() {
        return entries.stream().filter(e -> e.probe().available()).map(Entry::name).toList();
    }

    /**
     * The backend the user asked for through the property or environment, else the best available.
     * Read from the system each time it is called.
     *
     * @return a name in lower case; a name the user set is returned whether or not such a backend
     *         exists
     * @throws MissingBackendException when {@link #BACKEND} is {@code auto} (or unset) and no backend
     *                                 is available, listing what was found and why each is unusable
     */
    public String defaultName() {
        return resolveName(SettingResolver.system().get(BACKEND));
    }

    /**
     * {@code chosen} as a backend name: trimmed and in lower case, or the best available one for
     * {@code auto}. A name is not checked against the backends found.
     *
     * @param chosen a backend's name, or {@code auto}, blank or null for the best available
     * @return the name
     * @throws MissingBackendException when the best available is asked for and none is available
     */
    public String resolveName(String chosen) {
        if (chosen != null && !chosen.isBlank() && !chosen.equalsIgnoreCase("auto")) {
            return chosen.trim().toLowerCase(Locale.ROOT);
        }
        return entries.stream().filter(e -> e.probe().available()).map(Entry::name).findFirst()
                .orElseThrow(() -> new MissingBackendException("no backend is available: " + describeAll()));
    }

    /**
     * Starts the backend named {@code name} ({@code "auto"} or null for {@link #defaultName()}),
     * its settings from system properties and environment.
     *
     * @param name a backend's name, compared without case, or {@code "auto"}, blank or null
     * @return a new, started backend owned by the caller, who closes it
     * @throws MissingBackendException naming the backends found and why the requested one is unusable
     * @throws dev.zarrdirect.api.InvalidSettingException when one of the backend's settings has a bad value
     */
    public Backend open(String name) {
        return open(name, SettingValues.none());
    }

    /**
     * Starts the backend named {@code name} ({@code "auto"} or null for {@link #defaultName()}),
     * passing {@code explicit} to its provider's {@link BackendProvider#open(SettingValues)}.
     *
     * @param name     a backend's name, compared without case, or {@code "auto"}, blank or null
     * @param explicit setting values that win over system properties and environment; names that are
     *                 not the backend's settings are ignored
     * @return a new, started backend owned by the caller, who closes it
     * @throws MissingBackendException naming the backends found and why the requested one is unusable
     * @throws dev.zarrdirect.api.InvalidSettingException when one of the backend's settings has a bad value
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
     * Providers that cannot be created are skipped silently.
     *
     * @param loader where providers are looked for; null for the system class loader
     * @return an unmodifiable list, one setting per name (the first provider's, when two declare one
     *         name)
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

    /**
     * The settings of every backend provider found (loaded or not available), for the reference and
     * checks. Providers whose {@code settings()} throws are skipped.
     *
     * @return an unmodifiable list in provider order
     */
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
