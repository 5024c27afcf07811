// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.registry;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.settings.ResolvedSetting;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingSource;
import dev.zarrdirect.api.settings.SettingType;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.MissingCodecException;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecProvider;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Chooses the implementation of each codec. Several providers may implement one codec name
 * ({@code zstd} on the CPU, on a GPU, in a plugin). For a codec on a device the choice is, in order:
 * <ol>
 *   <li>the provider named for that codec in the per-read or per-array choices;</li>
 *   <li>the global setting ({@link #codecSetting}): explicit, else system property
 *       {@code zarrdirect.codec.NAME}, else environment variable {@code ZARRDIRECT_CODEC_NAME}
 *       (upper case, non-alphanumerics as {@code _}), naming a provider; parsed once when the
 *       registry is made, and a provider name that no provider has is rejected then;</li>
 *   <li>a provider native to the device, the backend's own first;</li>
 *   <li>a CPU implementation (the pipeline copies through the host).</li>
 * </ol>
 * At each step a provider that declines the configuration ({@code create} returns empty) is passed
 * over. Providers are kept in the order given, the first of each provider name only.
 *
 * <p>A registry is immutable and safe for use by many threads; it holds providers, not codecs: each
 * {@link #resolve} asks a provider to create one. A {@link dev.zarrdirect.core.ZarrContext} makes one when it
 * starts, with its backend's provider first ({@link dev.zarrdirect.core.ZarrContext#codecs()}).
 */
public final class CodecRegistry {

    /** The prefix of the family of settings {@code zarrdirect.codec.<name>}, dot included. */
    public static final String CODEC_PREFIX = "zarrdirect.codec.";

    private final List<CodecProvider> providers;
    /** Codec name to its global choice (set ones only). */
    private final Map<String, String> choices;
    /** Every codec's setting, set or not, for {@code doctor}. */
    private final List<ResolvedSetting<?>> settings;

    /**
     * A registry of {@code providers}, without global choices (see
     * {@link #CodecRegistry(List, SettingResolver)}). Earlier providers are preferred over later
     * ones of equal standing, so a backend's own provider goes first.
     *
     * @param providers the providers, preferred first; of several with one {@link CodecProvider#name()}
     *                  only the first is kept; copied
     * @throws NullPointerException if {@code providers} or one of its elements is null
     */
    public CodecRegistry(List<CodecProvider> providers) {
        this(providers, null);
    }

    /**
     * With the global choices {@code zarrdirect.codec.<name>} resolved by {@code settings} (null:
     * none) for every codec the providers know and every one set explicitly or as a property.
     * Resolving records each setting in {@code settings}, as {@link #settings()} lists them.
     *
     * @param providers the providers, preferred first; of several with one {@link CodecProvider#name()}
     *                  only the first is kept; copied
     * @param settings  where the choices come from, or null for none
     * @throws InvalidSettingException when a choice names no provider (the message lists the
     *                                 providers, and where the value came from)
     * @throws NullPointerException    if {@code providers} or one of its elements is null
     */
    public CodecRegistry(List<CodecProvider> providers, SettingResolver settings) {
        List<CodecProvider> unique = new ArrayList<>();
        for (CodecProvider p : providers) {
            if (unique.stream().noneMatch(u -> u.name().equals(p.name()))) {
                unique.add(p);
            }
        }
        this.providers = List.copyOf(unique);
        Map<String, String> ch = new LinkedHashMap<>();
        List<ResolvedSetting<?>> all = new ArrayList<>();
        if (settings != null) {
            TreeSet<String> names = new TreeSet<>();
            this.providers.forEach(p -> names.addAll(p.codecNames()));
            names.addAll(settings.familyMembers(CODEC_PREFIX));
            List<String> providerNames = this.providers.stream().map(CodecProvider::name).toList();
            for (String n : names) {
                Setting<String> s = codecSetting(n);
                ResolvedSetting<String> r = settings.resolve(s);
                // "auto" (the default, also when set by hand) leaves the choice to the device
                if (r.source() != SettingSource.DEFAULT && !r.value().equals("auto")) {
                    if (!providerNames.contains(r.value())) {
                        throw new InvalidSettingException(s.name(), r.value(), s.name() + " = \"" + r.value()
                                + "\": expected auto or the name of a codec provider, one of " + providerNames
                                + (r.source() == SettingSource.EXPLICIT ? "" : " (from " + r.source().describe(s) + ")"));
                    }
                    ch.put(n, r.value());
                }
                all.add(r);
            }
        }
        this.choices = Map.copyOf(ch);
        this.settings = List.copyOf(all);
    }

    /**
     * The setting {@code zarrdirect.codec.<codecName>}: the provider that implements codec
     * {@code codecName} everywhere ({@code cpu}, {@code cuda}, a plugin's name). Its environment
     * variable is {@code ZARRDIRECT_CODEC_} and the name in upper case, characters other than
     * letters and digits as {@code _} ({@code ZARRDIRECT_CODEC_ZSTD}); its default is {@code auto}.
     *
     * @param codecName the codec's name in metadata, such as {@code zstd}
     * @return a new setting; settings of one name are equal
     */
    public static Setting<String> codecSetting(String codecName) {
        String env = "ZARRDIRECT_CODEC_" + codecName.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
        return Setting.derived(CODEC_PREFIX + codecName, SettingType.text("a codec provider's name"),
                "auto", "core", "the provider of codec " + codecName + " (auto: the device's own, else the CPU's)")
                .withEnv(env);
    }

    /**
     * The family {@code zarrdirect.codec.<name>}, as the reference table lists it: a placeholder for
     * documentation, never resolved.
     */
    public static final Setting<String> CODEC_FAMILY = Setting.derived(CODEC_PREFIX + "<name>",
            SettingType.text("a codec provider's name"), "auto", "core",
            "the provider of codec <name> (cpu, cuda, opencl, a plugin's): auto is the device's own, else the CPU's")
            .withEnv("ZARRDIRECT_CODEC_<NAME>");

    /**
     * Each known codec's global choice and where it came from (unset ones as {@code auto (default)}).
     *
     * @return an unmodifiable list sorted by codec name; empty for a registry made without settings
     */
    public List<ResolvedSetting<?>> settings() {
        return settings;
    }

    /**
     * The providers on the class path of {@code loader}, after {@code first}; global choices from
     * system properties and environment. A provider that cannot be created is logged as a warning
     * ({@link System.Logger}) and left out: its codecs then report as missing when asked for.
     *
     * @param first  providers that go before the discovered ones (a backend's own); may be empty
     * @param loader where providers are looked for; null for the system class loader
     * @return the registry
     * @throws InvalidSettingException when a choice names no provider
     */
    public static CodecRegistry discover(List<CodecProvider> first, ClassLoader loader) {
        return discover(first, loader, SettingResolver.system());
    }

    /**
     * The providers on the class path of {@code loader}, after {@code first}; global choices by
     * {@code settings}. A provider that cannot be created is logged and left out.
     *
     * @param first    providers that go before the discovered ones (a backend's own); may be empty
     * @param loader   where providers are looked for; null for the system class loader
     * @param settings where the global choices come from, or null for none
     * @return the registry
     * @throws InvalidSettingException when a choice names no provider
     */
    public static CodecRegistry discover(List<CodecProvider> first, ClassLoader loader, SettingResolver settings) {
        List<CodecProvider> all = new ArrayList<>(first);
        for (var p : ServiceLoader.load(CodecProvider.class, loader).stream().toList()) {
            try {
                all.add(p.get());
            } catch (Throwable t) {
                // A broken plugin must not take down reads of arrays that do not use it; it shows up
                // as missing when its codec is asked for.
                System.getLogger(CodecRegistry.class.getName()).log(System.Logger.Level.WARNING,
                        "codec provider " + p.type().getName() + " could not be created: " + t);
            }
        }
        return new CodecRegistry(all, settings);
    }

    /**
     * The providers, preferred first, one per provider name.
     *
     * @return an unmodifiable list
     */
    public List<CodecProvider> providers() {
        return providers;
    }

    /**
     * Whether some provider implements {@code name} on any device. Says nothing about whether a
     * given configuration is accepted.
     *
     * @param name a codec's name in metadata, such as {@code zstd}
     * @return true when a provider lists it in its {@link CodecProvider#codecNames()}
     */
    public boolean knows(String name) {
        return providers.stream().anyMatch(p -> p.codecNames().contains(name));
    }

    /**
     * The implementation of {@code name} for {@code device}, chosen by the rules of this class. The
     * codec returned runs on {@code device}, or on the CPU when only a CPU implementation was found
     * (check its device before handing it device memory). A provider chosen by name that does not
     * offer the codec for {@code device} is asked for a CPU one.
     *
     * @param name          the codec's name in metadata, such as {@code zstd}
     * @param configuration the codec's {@code configuration} from metadata, in the metadata value
     *                      model; empty for a codec without one
     * @param device        where the codec should run
     * @param choices       codec name to provider name, from read or array options (may be empty,
     *                      not null)
     * @param where         what the codec is for, for messages: {@code array "/t2m"}
     * @return the codec, as its provider created it
     * @throws MissingCodecException    when no provider implements it, or the provider chosen by name
     *                                  does not, listing what exists and how to add it
     * @throws IllegalArgumentException when the configuration is invalid (from the provider)
     */
    public Codec resolve(String name, Map<String, Object> configuration, Device device,
                         Map<String, String> choices, String where) {
        String wanted = choices.get(name);
        if (wanted == null) {
            wanted = this.choices.get(name); // the global zarrdirect.codec.<name>
        }
        if (wanted != null) {
            for (CodecProvider p : providers) {
                if (p.name().equals(wanted) && p.codecNames().contains(name)) {
                    Optional<Codec> c = create(p, name, configuration, device);
                    if (c.isEmpty() && !device.equals(Device.CPU)) {
                        c = create(p, name, configuration, Device.CPU);
                    }
                    if (c.isPresent()) {
                        return c.get();
                    }
                }
            }
            throw new MissingCodecException("codec \"" + name + "\" for " + where + " was set to provider \""
                    + wanted + "\", which does not offer it for " + device + "; providers of \"" + name + "\": "
                    + providersOf(name) + ".");
        }
        for (CodecProvider p : providers) {
            if (p.deviceTypes().contains(device.type()) && p.codecNames().contains(name)) {
                Optional<Codec> c = create(p, name, configuration, device);
                if (c.isPresent()) {
                    return c.get();
                }
            }
        }
        if (!device.equals(Device.CPU)) {
            for (CodecProvider p : providers) {
                if (p.deviceTypes().contains(DeviceType.CPU) && p.codecNames().contains(name)) {
                    Optional<Codec> c = create(p, name, configuration, Device.CPU);
                    if (c.isPresent()) {
                        return c.get();
                    }
                }
            }
        }
        throw new MissingCodecException("no codec \"" + name + "\" for " + device + " (needed by " + where
                + "); for " + device + " there are " + namesFor(device.type()) + ", on the CPU "
                + namesFor(DeviceType.CPU) + "; providers found: " + providers.stream().map(CodecProvider::name).toList()
                + ". Add a jar that provides it (a CodecProvider listed in META-INF/services), or set "
                + "zarrdirect.codec." + name + "=<provider>.");
    }

    private static Optional<Codec> create(CodecProvider p, String name, Map<String, Object> config, Device device) {
        return p.create(name, config, device);
    }

    /**
     * Which provider each known codec resolves to on {@code device}, for {@code doctor}, without
     * creating any codec (so a provider that would decline a configuration is still named).
     *
     * @param device the device asked about
     * @return codec name to a description, sorted by codec name: a provider's name, with
     *         {@code (set by zarrdirect.codec.NAME)} or {@code (CPU fallback: copies through the host)}
     *         when that decided it, or {@code none}
     */
    public Map<String, String> describe(Device device) {
        Map<String, String> out = new LinkedHashMap<>();
        TreeSet<String> names = new TreeSet<>();
        providers.forEach(p -> names.addAll(p.codecNames()));
        for (String n : names) {
            String global = choices.get(n);
            String pick = null;
            if (global != null) {
                pick = global + " (set by zarrdirect.codec." + n + ")";
            } else {
                for (CodecProvider p : providers) {
                    if (p.deviceTypes().contains(device.type()) && p.codecNames().contains(n)) {
                        pick = p.name();
                        break;
                    }
                }
                if (pick == null) {
                    for (CodecProvider p : providers) {
                        if (p.deviceTypes().contains(DeviceType.CPU) && p.codecNames().contains(n)) {
                            pick = p.name() + " (CPU fallback: copies through the host)";
                            break;
                        }
                    }
                }
            }
            out.put(n, pick == null ? "none" : pick);
        }
        return out;
    }

    private List<String> namesFor(DeviceType type) {
        TreeSet<String> names = new TreeSet<>();
        providers.stream().filter(p -> p.deviceTypes().contains(type)).forEach(p -> names.addAll(p.codecNames()));
        return List.copyOf(names);
    }

    private List<String> providersOf(String name) {
        return providers.stream().filter(p -> p.codecNames().contains(name)).map(CodecProvider::name).toList();
    }
}
