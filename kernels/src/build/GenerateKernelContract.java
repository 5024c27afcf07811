// SPDX-License-Identifier: Apache-2.0

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes dev.zarrdirect.kernels.KernelContract, the Java side of the contract between the kernels'
 * C headers and the backends, from the headers themselves (kernels/pom.xml runs it in
 * generate-sources, with the JDK's single-file source launcher: no compiler other than the JDK):
 *
 * <ul>
 *   <li>every object-like {@code #define ZD_NAME expr} whose expression is integer arithmetic over
 *       literals and names defined before becomes {@code public static final int|long ZD_NAME},
 *       evaluated here (status words, sizes, flags, scratch sizes);</li>
 *   <li>every function-like {@code #define ZD_NAME(a, b) expr} of the same kind becomes a static
 *       method (the scratch formulas).</li>
 * </ul>
 *
 * C casts to the zd_ integer types and the u/l suffixes are dropped; the values are small enough
 * that C's unsigned and Java's signed arithmetic agree on them. A macro using anything else
 * (sizeof, ?:, another macro call such as ZD_U64(...)) is left out, as is one defined inside a
 * conditional block other than #ifndef (an include guard or an overridable default, whose default is
 * taken). A name defined twice with different values fails the build.
 *
 * <p>Usage: {@code java GenerateKernelContract.java OUT_JAVA C_SRC_DIR HEADER...}
 */
public class GenerateKernelContract {

    private static final Pattern DEFINE = Pattern.compile("^\\s*#\\s*define\\s+(ZD_[A-Z0-9_]+)(\\(([^)]*)\\))?\\s*(.*)$");
    private static final Pattern CAST = Pattern.compile("\\(\\s*zd_[ui](8|16|32|64)\\s*\\)");
    private static final Pattern SUFFIX = Pattern.compile("\\b(0[xX][0-9A-Fa-f]+|\\d+)[uUlL]+\\b");
    private static final Pattern TOKEN = Pattern.compile("\\s*(0[xX][0-9A-Fa-f]+|\\d+|[A-Za-z_][A-Za-z0-9_]*|<<|>>|[-+*/%&|^~(),])");

    record Constant(String name, long value, String expr, String from) {
    }

    record Function(String name, List<String> params, String body, String expr, String from) {
    }

    private final Map<String, Constant> constants = new LinkedHashMap<>();
    private final Map<String, Function> functions = new LinkedHashMap<>();

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            throw new IllegalArgumentException("usage: GenerateKernelContract OUT_JAVA C_SRC_DIR HEADER...");
        }
        GenerateKernelContract g = new GenerateKernelContract();
        for (int i = 2; i < args.length; i++) {
            g.read(Path.of(args[1]), args[i]);
        }
        Path out = Path.of(args[0]);
        String text = g.java(List.of(args).subList(2, args.length));
        Files.createDirectories(out.getParent());
        if (!Files.exists(out) || !Files.readString(out).equals(text)) {
            Files.writeString(out, text); // unchanged output keeps its time stamp: no recompilation
        }
    }

    private void read(Path dir, String header) throws IOException {
        String src = Files.readString(dir.resolve(header));
        src = src.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", "").replaceAll("\\\\\\r?\\n", " ");
        Deque<Boolean> blocks = new ArrayDeque<>(); // true: an #ifndef block, whose defines count
        for (String line : src.split("\\n")) {
            String t = line.strip();
            if (t.matches("#\\s*ifndef\\b.*")) {
                blocks.push(true);
            } else if (t.matches("#\\s*(if|ifdef)\\b.*")) {
                blocks.push(false);
            } else if (t.matches("#\\s*(else|elif)\\b.*")) {
                blocks.pop();
                blocks.push(false);
            } else if (t.matches("#\\s*endif\\b.*")) {
                blocks.pop();
            } else if (!blocks.contains(false)) {
                Matcher m = DEFINE.matcher(t);
                if (m.matches() && !m.group(4).isBlank()) {
                    define(m.group(1), m.group(3), m.group(4).strip(), header);
                }
            }
        }
    }

    private void define(String name, String params, String expr, String from) {
        String java = SUFFIX.matcher(CAST.matcher(expr).replaceAll("")).replaceAll("$1");
        List<String> tokens = tokens(java);
        if (tokens == null) {
            return;
        }
        if (params != null) {
            List<String> ps = new ArrayList<>();
            for (String p : params.split(",")) {
                ps.add(p.strip());
            }
            for (int i = 0; i < tokens.size(); i++) {
                String tok = tokens.get(i);
                boolean call = i + 1 < tokens.size() && tokens.get(i + 1).equals("(");
                if (Character.isJavaIdentifierStart(tok.charAt(0)) && !ps.contains(tok) && !constants.containsKey(tok)
                        && !(call && functions.containsKey(tok))) {
                    return;
                }
            }
            functions.put(name, new Function(name, ps, String.join(" ", tokens), expr, from));
            return;
        }
        Long v;
        try {
            v = new Eval(tokens, constants).all();
        } catch (IllegalStateException e) {
            return;
        }
        Constant old = constants.get(name);
        if (old != null && old.value() != v) {
            throw new IllegalStateException(name + " is defined as " + old.expr() + " in " + old.from() + " and as "
                    + expr + " in " + from);
        }
        constants.put(name, new Constant(name, v, expr, from));
    }

    private static List<String> tokens(String s) {
        List<String> out = new ArrayList<>();
        Matcher m = TOKEN.matcher(s);
        int at = 0;
        while (at < s.length()) {
            if (s.substring(at).isBlank()) {
                break;
            }
            if (!m.find(at) || m.start() != at) {
                return null;
            }
            out.add(m.group(1));
            at = m.end();
        }
        return out.isEmpty() ? null : out;
    }

    /** C integer constant expressions over longs, with C's precedence. */
    private static final class Eval {
        private final List<String> t;
        private final Map<String, Constant> known;
        private int i;

        Eval(List<String> t, Map<String, Constant> known) {
            this.t = t;
            this.known = known;
        }

        long all() {
            long v = or();
            if (i != t.size()) {
                throw new IllegalStateException("trailing " + t.get(i));
            }
            return v;
        }

        private boolean at(String s) {
            if (i < t.size() && t.get(i).equals(s)) {
                i++;
                return true;
            }
            return false;
        }

        private long or() {
            long v = xor();
            while (at("|")) {
                v |= xor();
            }
            return v;
        }

        private long xor() {
            long v = and();
            while (at("^")) {
                v ^= and();
            }
            return v;
        }

        private long and() {
            long v = shift();
            while (at("&")) {
                v &= shift();
            }
            return v;
        }

        private long shift() {
            long v = sum();
            while (true) {
                if (at("<<")) {
                    v <<= sum();
                } else if (at(">>")) {
                    v >>>= sum();
                } else {
                    return v;
                }
            }
        }

        private long sum() {
            long v = product();
            while (true) {
                if (at("+")) {
                    v += product();
                } else if (at("-")) {
                    v -= product();
                } else {
                    return v;
                }
            }
        }

        private long product() {
            long v = unary();
            while (true) {
                if (at("*")) {
                    v *= unary();
                } else if (at("/")) {
                    v = Long.divideUnsigned(v, unary());
                } else if (at("%")) {
                    v = Long.remainderUnsigned(v, unary());
                } else {
                    return v;
                }
            }
        }

        private long unary() {
            if (at("-")) {
                return -unary();
            }
            if (at("~")) {
                return ~unary();
            }
            if (at("(")) {
                long v = or();
                if (!at(")")) {
                    throw new IllegalStateException("unbalanced");
                }
                return v;
            }
            if (i >= t.size()) {
                throw new IllegalStateException("ends early");
            }
            String tok = t.get(i++);
            if (tok.startsWith("0x") || tok.startsWith("0X")) {
                return Long.parseUnsignedLong(tok.substring(2), 16);
            }
            if (Character.isDigit(tok.charAt(0))) {
                return Long.parseLong(tok);
            }
            Constant c = known.get(tok);
            if (c == null) {
                throw new IllegalStateException("unknown " + tok);
            }
            return c.value();
        }
    }

    private String java(List<String> headers) {
        StringBuilder b = new StringBuilder();
        b.append("// SPDX-License-Identifier: Apache-2.0\n");
        b.append("// Generated by kernels/src/build/GenerateKernelContract.java from the kernels' C headers: do not edit.\n");
        b.append("package dev.zarrdirect.kernels;\n\n");
        b.append("/**\n * The integer macros of the kernels' C headers (").append(String.join(", ", headers))
                .append("),\n * generated from them at build time: status words, flags, sizes and scratch formulas. The\n")
                .append(" * backends use these instead of copies of the numbers. Each member names the C expression it\n")
                .append(" * comes from.\n */\n");
        b.append("public final class KernelContract {\n\n    private KernelContract() {\n    }\n");
        for (Constant c : constants.values()) {
            boolean small = c.value() >= Integer.MIN_VALUE && c.value() <= Integer.MAX_VALUE;
            b.append("\n    /** {@code ").append(escape(c.expr())).append("} (").append(c.from()).append("). */\n");
            b.append("    public static final ").append(small ? "int " : "long ").append(c.name()).append(" = ")
                    .append(small ? Long.toString(c.value()) : c.value() + "L").append(";\n");
        }
        for (Function f : functions.values()) {
            b.append("\n    /**\n     * {@code ").append(escape(f.expr())).append("} (").append(f.from()).append(").\n     *\n");
            for (String p : f.params()) {
                b.append("     * @param ").append(p).append(" the macro's argument {@code ").append(p).append("}\n");
            }
            b.append("     * @return its value\n     */\n");
            b.append("    public static long ").append(f.name()).append("(");
            for (int i = 0; i < f.params().size(); i++) {
                b.append(i == 0 ? "" : ", ").append("long ").append(f.params().get(i));
            }
            b.append(") {\n        return ").append(f.body()).append(";\n    }\n");
        }
        b.append("}\n");
        return b.toString();
    }

    private static String escape(String s) {
        return s.replace("*/", "*&#47;").replace("@", "&#64;").replace("{", "&#123;").replace("}", "&#125;");
    }
}
