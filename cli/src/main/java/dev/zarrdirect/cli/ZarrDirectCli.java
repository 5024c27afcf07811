// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.settings.SettingValues;
import dev.zarrdirect.core.ZarrContext;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The {@code zarr-direct} command. Exit codes: 0 success, 1 failure (the message on stderr as
 * {@code zarr-direct: <message>}), 2 bad usage (message, synopsis and a pointer to {@code --help}).
 */
@Command(name = "zarr-direct", mixinStandardHelpOptions = true, versionProvider = ZarrDirectCli.Version.class,
        description = "Reads and writes Zarr arrays (format v3 and v2) straight into device memory.",
        subcommands = {InfoCommand.class, ChecksumCommand.class, CatCommand.class, ConvertCommand.class, DemoCommand.class, BenchCommand.class,
                StatsCommand.class, DoctorCommand.class, LoaderServeCommand.class, VersionCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Settings: --set NAME=VALUE on any command (e.g. --set threads=8 --set cuda.batchBytes=512m), "
                + "or -Dzarrdirect.NAME=VALUE, or the environment (ZARRDIRECT_THREADS=8); in that order of precedence. "
                + "'zarr-direct doctor' shows each in force and where it came from; all are listed in docs/settings.md."})
public final class ZarrDirectCli implements Runnable {

    static final int EXIT_OK = 0;
    static final int EXIT_FAILURE = 1;
    static final int EXIT_USAGE = 2;

    @Option(names = "--stacktrace", scope = ScopeType.INHERIT,
            description = "Print the stack trace of a failure (also -Dzarrdirect.debug=true).")
    boolean stacktrace;

    @Option(names = "--set", paramLabel = "NAME=VALUE", scope = ScopeType.INHERIT,
            description = "Set a setting for this run (repeatable), with or without the zarrdirect. prefix: "
                    + "--set decodeDepth=4 --set zarrdirect.cuda.batchBytes=512m. Wins over -D and the environment; "
                    + "see docs/settings.md.")
    Map<String, String> settings = new LinkedHashMap<>();

    /** The {@code --set} values of the command running, parsed (set before it runs). */
    private static volatile SettingValues explicit = SettingValues.none();

    @Option(names = "-D", paramLabel = "KEY=VALUE", mapFallbackValue = "true",
            description = "Set a system property before running, e.g. -Dzarrdirect.threads=2.")
    Map<String, String> properties = new LinkedHashMap<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed: one of " + String.join(", ", spec.subcommands().keySet()));
    }

    public static void main(String[] args) {
        int code = newCommandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true)).execute(args);
        System.exit(code);
    }

    /** The configured command line writing to {@code out} and {@code err}; {@code execute} returns the exit code. */
    public static CommandLine newCommandLine(PrintWriter out, PrintWriter err) {
        ZarrDirectCli root = new ZarrDirectCli();
        CommandLine cl = new CommandLine(root);
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionStrategy(parseResult -> {
            root.properties.forEach(System::setProperty);
            try {
                explicit = CliSettings.parse(root.settings);
            } catch (InvalidSettingException e) {
                CommandLine.ParseResult sub = parseResult;
                while (sub.hasSubcommand()) {
                    sub = sub.subcommand();
                }
                return usageError(new CommandLine.ParameterException(sub.commandSpec().commandLine(), e.getMessage()),
                        new String[0]);
            }
            return new CommandLine.RunLast().execute(parseResult);
        });
        cl.setParameterExceptionHandler(ZarrDirectCli::usageError);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> failure(root, ex, commandLine));
        return cl;
    }

    private static int usageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("zarr-direct: " + Text.escape(ex.getMessage()));
        CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
        err.print("Usage: " + cmd.getHelp().synopsis(0));
        err.println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information on usage.");
        err.flush();
        return EXIT_USAGE;
    }

    /**
     * Starts a context on {@code backend} ({@code auto} or null: the settings decide) with the
     * {@code --set} values of the command running.
     */
    static ZarrContext openContext(String backend) {
        return contextBuilder(backend).open();
    }

    /** As {@link #openContext(String)}, with {@code threads} worker threads. */
    static ZarrContext openContext(String backend, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        return contextBuilder(backend).threads(threads).open();
    }

    /** A context builder with the {@code --set} values of the command running, then {@code backend} unless auto. */
    static ZarrContext.Builder contextBuilder(String backend) {
        ZarrContext.Builder b = ZarrContext.builder().settings(CliSettings.forContexts(explicit));
        if (backend != null && !backend.isBlank() && !backend.trim().equalsIgnoreCase("auto")) {
            b.backend(backend);
        }
        return b;
    }

    /** The {@code --set} values of the command running. */
    static SettingValues explicitSettings() {
        return explicit;
    }

    private static int failure(ZarrDirectCli root, Exception ex, CommandLine cmd) {
        PrintWriter err = cmd.getErr();
        if (ex instanceof InvalidSettingException) {
            // a bad setting (a value, or a codec provider no jar offers) is bad usage
            return usageError(new CommandLine.ParameterException(cmd, ex.getMessage()), new String[0]);
        }
        boolean trace = root.stacktrace || CliSettings.debug(explicit);
        boolean expected = ex instanceof ZarrDirectException || ex instanceof IOException
                || ex instanceof UncheckedIOException || ex instanceof CliFailure;
        String msg = ex.getMessage() == null ? ex.toString() : ex.getMessage();
        // A message quotes keys, names and values from the store: escaped, so they cannot drive the terminal.
        if (expected) {
            err.println("zarr-direct: " + Text.escape(msg));
        } else {
            err.println("zarr-direct: " + ex.getClass().getSimpleName() + ": " + Text.escape(msg));
        }
        if (trace) {
            ex.printStackTrace(err);
        } else if (!expected) {
            err.println("(an unexpected error: run again with --stacktrace and report it with the trace)");
        }
        err.flush();
        return EXIT_FAILURE;
    }

    /**
     * The most threads, or tasks in flight, an option such as {@code --threads} or {@code --parallel}
     * may ask for: 4 x the available processors, and never less than {@value #MIN_CONCURRENCY_BOUND}
     * (so that I/O-bound work on a small machine may still overlap). More only costs memory and
     * start-up time, and a careless {@code --parallel 100000} would start 100,000 threads.
     */
    static int maxConcurrency() {
        return Math.max(MIN_CONCURRENCY_BOUND, 4 * Runtime.getRuntime().availableProcessors());
    }

    /** The least {@link #maxConcurrency()} is. */
    static final int MIN_CONCURRENCY_BOUND = 64;

    /** What the help of a concurrency option says of its bound. */
    static final String CONCURRENCY_BOUND_HELP = "1 to 4 x the processors (at least " + MIN_CONCURRENCY_BOUND + ")";

    /**
     * Checks a concurrency option's value against 1..{@link #maxConcurrency()}; a bad one is a usage
     * error that names the option, the value and the bound.
     */
    static void checkConcurrency(CommandLine cmd, String option, long value) {
        int max = maxConcurrency();
        if (value < 1 || value > max) {
            throw new CommandLine.ParameterException(cmd, option + " " + value + " is out of range: give 1 to " + max
                    + " (4 x the " + Runtime.getRuntime().availableProcessors() + " available processors, at least "
                    + MIN_CONCURRENCY_BOUND + ")");
        }
    }

    /** A failure the CLI itself detects, reported as {@code zarr-direct: <message>} with exit code 1. */
    static final class CliFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CliFailure(String message) {
            super(message);
        }
    }

    /** The project version, from {@code version.properties} written by the build. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{"zarr-direct " + projectVersion(),
                    "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
                            + System.getProperty("java.home") + ")",
                    System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                            + System.getProperty("os.arch")};
        }
    }

    static String projectVersion() {
        try (InputStream in = ZarrDirectCli.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "(unknown version: version.properties missing from the class path)";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "(unknown version)");
        } catch (IOException e) {
            return "(unknown version: " + e.getMessage() + ")";
        }
    }
}
