package dev.zarrdirect.core.registry;

import dev.zarrdirect.api.Device;
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
 *   <li>the global setting: system property {@code zarrdirect.codec.NAME} or environment variable
 *       {@code ZARRDIRECT_CODEC_NAME} (upper case, non-alphanumerics as {@code _}), naming a provider;</li>
 *   <li>a provider native to the device, the backend's own first;</li>
 *   <li>a CPU implementation (the pipeline copies through the host).</li>
 * </ol>
 */
public final class CodecRegistry {

    private final List<CodecProvider> providers;

    /** {@code first} (a backend's own provider) is preferred over the discovered ones of equal standing. */
    public CodecRegistry(List<CodecProvider> providers) {
        List<CodecProvider> unique = new ArrayList<>();
        for (CodecProvider p : providers) {
            if (unique.stream().noneMatch(u -> u.name().equals(p.name()))) {
                unique.add(p);
            }
        }
        this.providers = List.copyOf(unique);
    }

    /** The providers on the class path of {@code loader}, after {@code first}. */
    public static CodecRegistry discover(List<CodecProvider> first, ClassLoader loader) {
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
        return new CodecRegistry(all);
    }

    public List<CodecProvider> providers() {
        return providers;
    }

    /** True when some provider implements {@code name} on any device. */
    public boolean knows(String name) {
        return providers.stream().anyMatch(p -> p.codecNames().contains(name));
    }

    /**
     * The implementation of {@code name} for {@code device}.
     *
     * @param choices codec name to provider name, from read or array options (may be empty)
     * @param where   what the codec is for, for messages: {@code array "/t2m"}
     * @throws MissingCodecException    when no provider implements it, listing what exists
     * @throws IllegalArgumentException when the configuration is invalid
     */
    public Codec resolve(String name, Map<String, Object> configuration, Device device,
                         Map<String, String> choices, String where) {
        String wanted = choices.get(name);
        if (wanted == null) {
            wanted = globalChoice(name);
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

    /** Which provider each known codec resolves to on {@code device}, for {@code doctor}. */
    public Map<String, String> describe(Device device) {
        Map<String, String> out = new LinkedHashMap<>();
        TreeSet<String> names = new TreeSet<>();
        providers.forEach(p -> names.addAll(p.codecNames()));
        for (String n : names) {
            String global = globalChoice(n);
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

    static String globalChoice(String codecName) {
        String v = System.getProperty("zarrdirect.codec." + codecName);
        if (v == null || v.isBlank()) {
            String env = "ZARRDIRECT_CODEC_" + codecName.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? null : v.trim();
    }
}
