package dev.zarrdirect.api.backend;

/**
 * Finds one family of devices; discovered with {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/dev.zarrdirect.api.backend.BackendProvider}).
 *
 * <p>{@link #probe()} must never throw and must be cheap enough to call at start-up: a missing
 * driver or library is reported in its result, not as an exception or a crash.
 */
public interface BackendProvider {

    /** A short, unique name users choose with {@code --backend}: {@code cpu}, {@code opencl}, {@code cuda}. */
    String name();

    /** Higher is preferred when the user names no backend ({@code cpu} is 0, GPU backends higher). */
    int priority();

    ProbeResult probe();

    /**
     * Starts the backend.
     *
     * @throws dev.zarrdirect.api.MissingBackendException when {@link #probe()} says it is unavailable
     */
    Backend open();
}
