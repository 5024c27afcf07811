package dev.zarrdirect.core;

/**
 * How reads run: the settings of the read engine ({@code dev.zarrdirect.core.exec}), fixed when a
 * {@link ZarrContext} starts.
 *
 * @param decodeDepth      device batches of one read that decode at once (1..64; default 3)
 * @param deviceBatchSize  chunks (inner chunks of shards) per device batch; 0: the backend's
 *                         {@link dev.zarrdirect.api.backend.Backend#preferredBatchSize()}
 * @param deviceBatchBytes at most how many decoded bytes a device batch holds; 0: the backend's
 *                         {@link dev.zarrdirect.api.backend.Backend#preferredBatchBytes()}
 * @param deviceFirstBatch chunks in the first device batch, doubling up to the batch size; 0: no ramp
 * @param trace            print where the time of each device read goes to standard error
 */
public record ReadSettings(int decodeDepth, int deviceBatchSize, long deviceBatchBytes, int deviceFirstBatch,
                           boolean trace) {

    /** The defaults, with nothing read from the environment. */
    public static ReadSettings defaults() {
        return new ReadSettings(3, 0, 0, 0, false);
    }
}
