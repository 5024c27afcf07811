// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A real Spark standalone cluster on 127.0.0.1 for tests: a master and two workers, each a JVM of
 * its own started from the Spark jars of this test's class path, with small heaps and one core a
 * worker. The jars sit in a {@code SPARK_HOME/jars} of links, as a Spark distribution has them, so
 * that workers can start executors. This module's code and zarr-direct's are not there: they are
 * packed into application jars that the driver ships ({@code spark.jars}), as spark-submit would.
 * Starting fails within {@link #START_SECONDS} with the daemons' logs in the message; closing kills
 * the daemons and the executors they started.
 */
final class SparkCluster implements AutoCloseable {

    static final int START_SECONDS = 90;

    private final Path work;
    private final Path sparkHome;
    private final List<Process> daemons = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();
    private final List<Path> appJars = new ArrayList<>();
    private final int masterPort;

    SparkCluster(Path work) throws IOException {
        this.work = work;
        this.sparkHome = work.resolve("spark-home");
        Files.createDirectories(sparkHome.resolve("jars"));
        Files.createDirectories(work.resolve("app"));
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (entry.endsWith(".jar") && Files.isRegularFile(p)) {
                Path link = sparkHome.resolve("jars").resolve(p.getFileName());
                if (!Files.exists(link)) {
                    Files.createSymbolicLink(link, p.toAbsolutePath());
                }
            } else if (Files.isDirectory(p) && p.getFileName().toString().equals("classes")) {
                appJars.add(jar(p, work.resolve("app").resolve(p.getParent().getParent().getFileName() + ".jar")));
            }
        }
        masterPort = freePort();
        boolean started = false;
        try {
            start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                    String.valueOf(masterPort), "--webui-port", String.valueOf(freePort()));
            awaitPort(masterPort);
            for (int i = 1; i <= 2; i++) {
                start("worker-" + i, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1",
                        "--memory", "640m", "--webui-port", String.valueOf(freePort()), "--work-dir",
                        work.resolve("worker-" + i).toString(), masterUrl());
            }
            awaitLog(logs.getFirst(), "Registering worker", 2);
            started = true;
        } finally {
            if (!started) {
                close();
            }
        }
    }

    String masterUrl() {
        return "spark://127.0.0.1:" + masterPort;
    }

    /** The application jars, comma-separated, for {@code spark.jars}. */
    String appJars() {
        return String.join(",", appJars.stream().map(Path::toString).toList());
    }

    /** The executor JVMs running now (children of the workers). */
    List<ProcessHandle> executors() {
        List<ProcessHandle> out = new ArrayList<>();
        for (Process d : daemons.subList(1, daemons.size())) {
            d.toHandle().descendants().filter(h -> h.info().commandLine().orElse("")
                    .contains("CoarseGrainedExecutorBackend")).forEach(out::add);
        }
        return out;
    }

    private void start(String name, String mainClass, String... args) throws IOException {
        Path log = work.resolve(name + ".log");
        logs.add(log);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", sparkHome.resolve("jars") + "/*",
                mainClass));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("SPARK_HOME", sparkHome.toString());
        pb.environment().put("SPARK_SCALA_VERSION", "2.13");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        daemons.add(pb.start());
    }

    private void awaitPort(int port) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (System.nanoTime() < deadline) {
            checkAlive();
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException e) {
                sleep();
            }
        }
        throw new IllegalStateException("the Spark master did not listen on 127.0.0.1:" + port + " within "
                + START_SECONDS + " s" + logTails());
    }

    private void awaitLog(Path log, String line, int times) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (System.nanoTime() < deadline) {
            checkAlive();
            try {
                if (Files.exists(log) && Files.readAllLines(log).stream().filter(l -> l.contains(line)).count() >= times) {
                    return;
                }
            } catch (IOException | UncheckedIOException e) {
                // the daemon is writing it; read again
            }
            sleep();
        }
        throw new IllegalStateException("the Spark master did not log \"" + line + "\" " + times + " times within "
                + START_SECONDS + " s" + logTails());
    }

    private void checkAlive() {
        for (int i = 0; i < daemons.size(); i++) {
            if (!daemons.get(i).isAlive()) {
                throw new IllegalStateException(logs.get(i).getFileName() + " exited with code "
                        + daemons.get(i).exitValue() + logTails());
            }
        }
    }

    /** The last lines of every daemon's log, for a failure's message. */
    String logTails() {
        StringBuilder b = new StringBuilder();
        for (Path log : logs) {
            try {
                List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
                b.append("\n--- ").append(log.getFileName()).append(" ---\n")
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())));
            } catch (IOException | UncheckedIOException e) {
                b.append("\n--- ").append(log.getFileName()).append(": ").append(e);
            }
        }
        return b.toString();
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the Spark cluster started", e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static Path jar(Path classes, Path out) throws IOException {
        try (OutputStream os = Files.newOutputStream(out); JarOutputStream jar = new JarOutputStream(os);
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                jar.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, jar);
                jar.closeEntry();
            }
        }
        return out;
    }

    /** Kills the workers (and with them their executors) and the master, and waits for them to go. */
    @Override
    public void close() {
        for (int i = daemons.size() - 1; i >= 0; i--) {
            Process p = daemons.get(i);
            p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (Process p : daemons) {
            try {
                p.waitFor(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
