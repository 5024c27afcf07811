// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.jobs;

import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/**
 * The entry point of the distributed jobs, for {@code spark-submit --class
 * dev.zarrdirect.spark.jobs.ZarrDirectSpark zarr-direct-spark.jar COMMAND ...}: {@code stats} and
 * {@code convert}, with the options of the {@code zarr-direct} commands of the same names. The
 * master and resources come from {@code spark-submit}. Exit codes as the CLI's: 0 success, 1 failure,
 * 2 bad usage.
 */
@Command(name = "zarr-direct-spark", mixinStandardHelpOptions = true,
        description = "zarr-direct's jobs on a Spark cluster: stats and convert.")
public final class ZarrDirectSpark implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private ZarrDirectSpark() {
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command: stats or convert");
    }

    /**
     * Runs {@code args} on the session of {@code spark-submit} and exits with the command's code.
     *
     * @param args the command and its options
     */
    public static void main(String[] args) {
        int code;
        SparkSession session = SparkSession.builder().appName("zarr-direct " + (args.length > 0 ? args[0] : ""))
                .getOrCreate();
        try {
            code = run(session, new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
        } finally {
            session.stop();
        }
        System.exit(code);
    }

    /**
     * Runs a command on {@code session}, which the caller keeps (and stops).
     *
     * @param session where the work runs
     * @param out     the command's output
     * @param err     messages of failures and usage errors
     * @param args    the command and its options
     * @return the exit code: 0 success, 1 failure, 2 bad usage
     */
    public static int run(SparkSession session, PrintWriter out, PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new ZarrDirectSpark())
                .addSubcommand(new SparkStatsCommand(session))
                .addSubcommand(new SparkConvertCommand(session))
                .setOut(out).setErr(err)
                .setExecutionExceptionHandler((e, line, parsed) -> {
                    line.getErr().println("zarr-direct-spark " + line.getCommandName() + ": " + e);
                    return 1;
                });
        return cli.execute(args);
    }
}
