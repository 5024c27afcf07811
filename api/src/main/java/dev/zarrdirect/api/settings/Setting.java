// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.settings;

import dev.zarrdirect.api.InvalidSettingException;

import java.util.Objects;

/**
 * One setting: its name ({@code zarrdirect.cuda.batchBytes}), environment variable
 * ({@code ZARRDIRECT_CUDA_BATCH_BYTES}), type with its range or values, default and a one-line
 * meaning. Descriptors are constants of the record that holds the parsed values (such as
 * {@code ReadSettings} or {@code CudaSettings}); the reference table {@code docs/settings.md} is
 * generated from them.
 *
 * <p>A default may be null when it is derived (from the device, from other settings):
 * {@link #defaultText()} then says how. Descriptors are immutable and safe to share.
 *
 * {@snippet :
 * static final Setting<Integer> DEPTH = Setting.of("zarrdirect.decodeDepth", SettingType.intRange(1, 64), 3,
 *         "core", "device batches of one read that decode at once");
 * int depth = SettingResolver.system().get(DEPTH);  // -D, then ZARRDIRECT_DECODE_DEPTH, then 3
 * }
 *
 * @param name         the full name, also the system property
 * @param env          the environment variable
 * @param type         the parser
 * @param defaultValue the value when nobody sets it, or null when derived
 * @param defaultText  the default as the reference table prints it
 * @param doc          one line: what it changes
 * @param scope        where it applies: {@code core}, {@code cli}, {@code cpu}, {@code cuda}, {@code opencl}
 * @param <T>          the value's type
 */
public record Setting<T>(String name, String env, SettingType<T> type, T defaultValue, String defaultText, String doc,
                         String scope) {

    /** The prefix every setting's name starts with. */
    public static final String PREFIX = "zarrdirect.";

    /**
     * Checks the components.
     *
     * @throws NullPointerException     when a component other than {@code defaultValue} is null
     * @throws IllegalArgumentException when {@code name} does not start with {@code zarrdirect.}
     */
    public Setting {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(defaultText, "defaultText");
        Objects.requireNonNull(doc, "doc");
        Objects.requireNonNull(scope, "scope");
        if (!name.startsWith(PREFIX)) {
            throw new IllegalArgumentException("setting names start with " + PREFIX + ": " + name);
        }
    }

    /**
     * A setting with a fixed default; the environment variable is {@link #envName} of the name.
     *
     * @param name         the full name, starting with {@code zarrdirect.}
     * @param type         the parser
     * @param defaultValue the default; not null
     * @param scope        where it applies: {@code core}, {@code cli}, {@code cpu}, {@code cuda}, {@code opencl}
     * @param doc          one line: what it changes
     * @param <T>          the value's type
     * @return the descriptor; its default text is {@code type.format(defaultValue)}
     * @throws NullPointerException     when an argument is null
     * @throws IllegalArgumentException when {@code name} does not start with {@code zarrdirect.}
     */
    public static <T> Setting<T> of(String name, SettingType<T> type, T defaultValue, String scope, String doc) {
        return new Setting<>(name, envName(name), type, Objects.requireNonNull(defaultValue, "defaultValue"),
                type.format(defaultValue), doc, scope);
    }

    /**
     * A setting whose default is derived at start (null when not set), described by {@code defaultText}.
     *
     * @param name        the full name, starting with {@code zarrdirect.}
     * @param type        the parser
     * @param defaultText how the default is found, as the reference table prints it ({@code "4 per GPU"})
     * @param scope       where it applies
     * @param doc         one line: what it changes
     * @param <T>         the value's type
     * @return the descriptor, with a null {@link #defaultValue()}
     * @throws NullPointerException     when an argument is null
     * @throws IllegalArgumentException when {@code name} does not start with {@code zarrdirect.}
     */
    public static <T> Setting<T> derived(String name, SettingType<T> type, String defaultText, String scope, String doc) {
        return new Setting<>(name, envName(name), type, null, defaultText, doc, scope);
    }

    /**
     * The same setting read from another environment variable (one that existed before this naming).
     *
     * @param variable the environment variable to read instead of {@link #envName} of the name
     * @return a new descriptor; this one is unchanged
     * @throws NullPointerException when {@code variable} is null
     */
    public Setting<T> withEnv(String variable) {
        return new Setting<>(name, variable, type, defaultValue, defaultText, doc, scope);
    }

    /**
     * The environment variable of a setting name: {@code zarrdirect.cuda.batchBytes} is
     * {@code ZARRDIRECT_CUDA_BATCH_BYTES} (dots and other punctuation become {@code _}, a capital
     * starts a word).
     *
     * @param name a setting name ({@code zarrdirect.cuda.batchBytes})
     * @return the environment variable's name
     */
    public static String envName(String name) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isUpperCase(c) && i > 0 && Character.isLetterOrDigit(name.charAt(i - 1))
                    && !Character.isUpperCase(name.charAt(i - 1))) {
                sb.append('_');
            }
            sb.append(Character.isLetterOrDigit(c) ? Character.toUpperCase(c) : '_');
        }
        return sb.toString();
    }

    /**
     * {@code zarrdirect.cuda.batchBytes} as {@code cuda.batchBytes}, as {@code doctor} prints it.
     *
     * @return the name without the {@code zarrdirect.} prefix
     */
    public String shortName() {
        return name.substring(PREFIX.length());
    }

    /**
     * What {@link #type()} accepts: {@code an integer 1..64}.
     *
     * @return the type's description of accepted values
     */
    public String expected() {
        return type.expected();
    }

    /**
     * Parses {@code text}, given through {@code source}.
     *
     * @param text   the text as given (the type trims it)
     * @param source where the text came from; named in the message for the environment and system properties
     * @return the parsed value
     * @throws InvalidSettingException {@code zarrdirect.decodeDepth = "banana": expected an integer 1..64}
     *                                 (and where it came from, when not given explicitly)
     */
    public T parse(String text, SettingSource source) {
        try {
            return type.parse(text);
        } catch (IllegalArgumentException e) {
            String from = switch (source) {
                case ENVIRONMENT -> " (from the environment variable " + env + ")";
                case SYSTEM_PROPERTY -> " (from the system property -D" + name + ")";
                default -> "";
            };
            throw new InvalidSettingException(name, text, name + " = \"" + text + "\": expected " + e.getMessage() + from);
        }
    }

    /**
     * {@link #parse} of an explicit value.
     *
     * @param text the text as given
     * @return the parsed value
     * @throws InvalidSettingException when the text does not parse or is out of range
     */
    public T parse(String text) {
        return parse(text, SettingSource.EXPLICIT);
    }

    /**
     * The value as a user would write it; the default text for null.
     *
     * @param value a value of this setting, or null
     * @return the text {@link #parse} reads back, or {@link #defaultText()} for null
     */
    public String format(T value) {
        return value == null ? defaultText : type.format(value);
    }
}
