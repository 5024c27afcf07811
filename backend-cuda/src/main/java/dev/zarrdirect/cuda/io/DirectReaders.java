// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.cuda.CudaBackend;

import java.util.Locale;

/**
 * Chooses the backend's {@link DirectReader} from {@value #PROPERTY} (parsed into
 * {@link dev.zarrdirect.cuda.CudaSettings} when the backend starts): {@code cufile},
 * {@code threaded} or {@code auto}. {@code auto} is {@link #AUTO}, the threaded reader until the two
 * have been measured against each other on the GPU machine. {@code cufile} falls back to the
 * threaded reader, with a warning, when cuFile cannot start; once started, it reads the files that
 * cuFile cannot register with a threaded reader of its own unless {@value #CUFILE_STRICT_PROPERTY}
 * is {@code true}.
 */
public final class DirectReaders {

    public static final String PROPERTY = "zarrdirect.cuda.reader";
    /** What {@code auto} means. */
    public static final String AUTO = "threaded";
    /** Threads of the cuFile reader; default 8. */
    public static final String CUFILE_THREADS_PROPERTY = "zarrdirect.cuda.cufileThreads";
    /** Bytes of each cuFile bounce region; default 16 MiB. */
    public static final String CUFILE_BOUNCE_PROPERTY = "zarrdirect.cuda.cufileBounceBytes";
    /**
     * {@code true}: a file cuFile cannot register fails the read instead of being read by the
     * threaded reader ({@link CuFileReader}); default {@code false}.
     */
    public static final String CUFILE_STRICT_PROPERTY = "zarrdirect.cuda.cufileStrict";

    private DirectReaders() {
    }

    public static DirectReader open(CudaBackend backend, String choice) {
        String c = choice == null ? "auto" : choice.trim().toLowerCase(Locale.ROOT);
        if (c.equals("auto")) {
            c = AUTO;
        }
        return switch (c) {
            case "threaded" -> ThreadedReader.fromSettings(backend);
            case "cufile" -> {
                try {
                    yield CuFileReader.open(backend, backend.cudaSettings().cufileThreads(),
                            backend.cudaSettings().cufileBounceBytes());
                } catch (RuntimeException e) {
                    System.getLogger(DirectReaders.class.getName()).log(System.Logger.Level.WARNING,
                            "cuFile reader unavailable (" + e.getMessage() + "); using the threaded reader");
                    yield ThreadedReader.fromSettings(backend);
                }
            }
            default -> throw new IllegalArgumentException(PROPERTY + "=" + choice + " is not one of cufile, threaded, auto");
        };
    }
}
