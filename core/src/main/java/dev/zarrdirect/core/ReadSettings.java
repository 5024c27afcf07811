// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.InvalidSettingException;
import dev.zarrdirect.api.settings.Setting;
import dev.zarrdirect.api.settings.SettingResolver;
import dev.zarrdirect.api.settings.SettingType;
import dev.zarrdirect.api.settings.SettingValues;

import java.util.List;

/**
 * How reads run: the settings of the read engine ({@code dev.zarrdirect.core.exec}), fixed when a
 * {@link ZarrContext} starts. Validated when made: a value out of range throws
 * {@link InvalidSettingException} naming the setting and its range.
 *
 * {@snippet :
 * ReadSettings rs = ReadSettings.defaults().withDecodeDepth(4).withDeviceBatchBytes(512L << 20);
 * }
 *
 * @param decodeDepth      device batches of one read that decode at once (1..64; default 3)
 * @param deviceBatchSize  chunks (inner chunks of shards) per device batch; 0: the backend's
 *                         {@link dev.zarrdirect.api.backend.Backend#preferredBatchSize()}
 * @param deviceBatchBytes at most how many decoded bytes a device batch holds; 0: the backend's
 *                         {@link dev.zarrdirect.api.backend.Backend#preferredBatchBytes()}
 * @param deviceFirstBatch chunks in the first device batch, doubling up to the batch size; 0: no ramp
 * @param trace            print where the time of each device read goes to standard error
 * @param hostDecodeOverlap for a device read whose chain has a stage decoded on the host: two batches
 *                         decode at once (the next one's chunks start while the last ones of the one
 *                         before still decode), chunks are claimed one by one by every core, and each
 *                         run of decoded chunks goes to the device while the rest of its batch still
 *                         decodes; false: one batch at a time, copied to the device once it is all
 *                         decoded (the behaviour before, for comparison)
 * @param serialRunsPerCore a device batch whose codecs decode each chunk (or blosc block) as one
 *                         serial run on the device (deflate: gzip, zlib, blosc with zlib inside) is
 *                         decoded on the host instead when it has fewer than this many runs per host
 *                         core: one device thread reads a deflate stream about 15 times slower than a
 *                         CPU core, so the device wins only with many streams at once (0..4096;
 *                         default 8; 0: always on the device). A batch with runs enough is shared
 *                         with the host ({@code hostShare}), or goes the way its size of batch was
 *                         timed faster, the device or the host (both are timed on its first batches,
 *                         and rechecked now and then)
 * @param hostShare        a device batch with runs enough for the device ({@code serialRunsPerCore})
 *                         and two ranges or more is shared: the host decodes some of its chunks while
 *                         the device decodes the rest, the host's share moved batch by batch towards
 *                         where both parts end together (default true); false: each batch goes the way
 *                         timed faster
 */
public record ReadSettings(int decodeDepth, int deviceBatchSize, long deviceBatchBytes, int deviceFirstBatch,
                           boolean trace, boolean hostDecodeOverlap, int serialRunsPerCore, boolean hostShare) {

    /** {@code zarrdirect.decodeDepth}: device batches of one read that decode at once, 1..64; default 3. */
    public static final Setting<Integer> DECODE_DEPTH = Setting.of("zarrdirect.decodeDepth",
            SettingType.intRange(1, 64), 3, "core", "device batches of one read that decode at once");
    /** {@code zarrdirect.deviceBatchSize}: chunks per device batch, 0 or more; default 0 (the backend's). */
    public static final Setting<Integer> DEVICE_BATCH_SIZE = Setting.of("zarrdirect.deviceBatchSize",
            SettingType.intRange(0, Integer.MAX_VALUE), 0, "core",
            "chunks (inner chunks of shards) per device batch; 0: the backend's preferred size");
    /** {@code zarrdirect.deviceBatchBytes}: decoded bytes a device batch holds at most; default 0 (the backend's). */
    public static final Setting<Long> DEVICE_BATCH_BYTES = Setting.of("zarrdirect.deviceBatchBytes",
            SettingType.byteSize(0, Long.MAX_VALUE), 0L, "core",
            "decoded bytes a device batch holds at most; 0: the backend's preferred bytes");
    /** {@code zarrdirect.deviceFirstBatch}: chunks in a read's first device batch; default 0 (no ramp). */
    public static final Setting<Integer> DEVICE_FIRST_BATCH = Setting.of("zarrdirect.deviceFirstBatch",
            SettingType.intRange(0, Integer.MAX_VALUE), 0, "core",
            "chunks in a read's first device batch, doubling up to the batch size; 0: no ramp");
    /** {@code zarrdirect.trace}: print where the time of each device read goes; default false. */
    public static final Setting<Boolean> TRACE = Setting.of("zarrdirect.trace", SettingType.bool(), false, "core",
            "print where the time of each device read goes to standard error");
    /** {@code zarrdirect.hostDecodeOverlap}: overlap host decoding with copies to the device; default true. */
    public static final Setting<Boolean> HOST_DECODE_OVERLAP = Setting.of("zarrdirect.hostDecodeOverlap",
            SettingType.bool(), true, "core",
            "device reads with a host-decoded stage: two batches decode at once on all cores and decoded chunks go "
                    + "to the device while the rest decode; false: one batch at a time, one copy after it");

    /**
     * {@code zarrdirect.serialRunsPerCore}: serial device runs (deflate streams) a batch needs per host
     * core to decode on the device; default 8. H100 against 16 cores, ERA5-like float32: a stream
     * inflates at 4-6 MB/s on one device thread against about 60 MB/s on a core through the JDK's
     * zlib, so the device wins from about 11 runs per core when they all run at once.
     */
    public static final Setting<Integer> SERIAL_RUNS_PER_CORE = Setting.of("zarrdirect.serialRunsPerCore",
            SettingType.intRange(0, 4096), 8, "core",
            "device batches whose codecs inflate each chunk (or blosc block) serially (gzip, zlib, blosc zlib) "
                    + "decode on the host when they have fewer runs than this per host core, and larger ones are shared "
                    + "with the host (zarrdirect.hostShare) or go the way timed faster (device or host); 0: always on the "
                    + "device");

    /**
     * {@code zarrdirect.hostShare}: share device batches of serial runs with the host; default true.
     * H200 against 16 cores, three stores of 2-8 MB zlib chunks read three ways each: 1.00-2.00x
     * cpu+copy shared, 1.08-1.50x faster than sending each batch the way timed faster on 8 of 9
     * reads, 0.98x on the ninth (docs/performance.md, "Host and device at once").
     */
    public static final Setting<Boolean> HOST_SHARE = Setting.of("zarrdirect.hostShare", SettingType.bool(), true,
            "core", "device batches whose codecs inflate serially (gzip, zlib, blosc zlib), with runs enough for the "
                    + "device and two ranges or more, are shared: the host decodes some of their chunks while the device "
                    + "decodes the rest, its share moved towards where both end together (a batch too coarse to cut, "
                    + "where one chunk on the host would outlast the device's whole batch, goes one way); false: each "
                    + "batch goes the way timed faster");

    /** Every setting of this record, in component order. */
    public static final List<Setting<?>> SETTINGS = List.of(DECODE_DEPTH, DEVICE_BATCH_SIZE, DEVICE_BATCH_BYTES,
            DEVICE_FIRST_BATCH, TRACE, HOST_DECODE_OVERLAP, SERIAL_RUNS_PER_CORE, HOST_SHARE);

    /**
     * Checks every component against its setting's range.
     *
     * @throws InvalidSettingException when a component is outside its setting's range
     */
    public ReadSettings {
        check(DECODE_DEPTH, decodeDepth);
        check(DEVICE_BATCH_SIZE, deviceBatchSize);
        check(DEVICE_BATCH_BYTES, deviceBatchBytes);
        check(DEVICE_FIRST_BATCH, deviceFirstBatch);
        check(SERIAL_RUNS_PER_CORE, serialRunsPerCore);
    }

    /**
     * The settings with {@code hostShare} at its default.
     *
     * @param decodeDepth       device batches of one read that decode at once (1..64)
     * @param deviceBatchSize   chunks per device batch; 0: the backend's preferred size
     * @param deviceBatchBytes  at most how many decoded bytes a device batch holds; 0: the backend's
     * @param deviceFirstBatch  chunks in the first device batch; 0: no ramp
     * @param trace             print where the time of each device read goes to standard error
     * @param hostDecodeOverlap overlap host-decoded stages with copies to the device
     * @param serialRunsPerCore serial device runs a batch needs per host core to decode on the device
     * @throws InvalidSettingException when a component is outside its setting's range
     */
    public ReadSettings(int decodeDepth, int deviceBatchSize, long deviceBatchBytes, int deviceFirstBatch, boolean trace,
                        boolean hostDecodeOverlap, int serialRunsPerCore) {
        this(decodeDepth, deviceBatchSize, deviceBatchBytes, deviceFirstBatch, trace, hostDecodeOverlap,
                serialRunsPerCore, HOST_SHARE.defaultValue());
    }

    /**
     * The settings with {@code serialRunsPerCore} at its default.
     *
     * @param decodeDepth       device batches of one read that decode at once (1..64)
     * @param deviceBatchSize   chunks per device batch; 0: the backend's preferred size
     * @param deviceBatchBytes  at most how many decoded bytes a device batch holds; 0: the backend's
     * @param deviceFirstBatch  chunks in the first device batch; 0: no ramp
     * @param trace             print where the time of each device read goes to standard error
     * @param hostDecodeOverlap overlap host-decoded stages with copies to the device
     * @throws InvalidSettingException when a component is outside its setting's range
     */
    public ReadSettings(int decodeDepth, int deviceBatchSize, long deviceBatchBytes, int deviceFirstBatch, boolean trace,
                        boolean hostDecodeOverlap) {
        this(decodeDepth, deviceBatchSize, deviceBatchBytes, deviceFirstBatch, trace, hostDecodeOverlap,
                SERIAL_RUNS_PER_CORE.defaultValue());
    }

    /**
     * The settings with {@code hostDecodeOverlap} on (its default).
     *
     * @param decodeDepth      device batches of one read that decode at once (1..64)
     * @param deviceBatchSize  chunks per device batch; 0: the backend's preferred size
     * @param deviceBatchBytes at most how many decoded bytes a device batch holds; 0: the backend's
     * @param deviceFirstBatch chunks in the first device batch; 0: no ramp
     * @param trace            print where the time of each device read goes to standard error
     * @throws InvalidSettingException when a component is outside its setting's range
     */
    public ReadSettings(int decodeDepth, int deviceBatchSize, long deviceBatchBytes, int deviceFirstBatch, boolean trace) {
        this(decodeDepth, deviceBatchSize, deviceBatchBytes, deviceFirstBatch, trace, true);
    }

    private static <T> void check(Setting<T> s, T value) {
        s.parse(s.type().format(value));
    }

    /**
     * The defaults, with nothing read from the environment.
     *
     * @return depth 3, batch size and bytes from the backend, no ramp, no trace, host decode overlap on,
     *         8 serial runs a core, batches of serial runs shared with the host
     */
    public static ReadSettings defaults() {
        return new ReadSettings(3, 0, 0, 0, false, true, SERIAL_RUNS_PER_CORE.defaultValue(), HOST_SHARE.defaultValue());
    }

    /**
     * From system properties ({@code -Dzarrdirect.decodeDepth=4}), else environment variables
     * ({@code ZARRDIRECT_DECODE_DEPTH}), else the defaults.
     *
     * @return the settings found
     * @throws InvalidSettingException naming the setting, the value seen and what it accepts
     */
    public static ReadSettings fromSystem() {
        return from(SettingResolver.system());
    }

    /**
     * Resolved by {@code r} (explicit values first), which records where each value came from.
     *
     * @param r the resolver
     * @return the settings found
     * @throws InvalidSettingException naming the setting, the value seen and what it accepts
     */
    public static ReadSettings from(SettingResolver r) {
        return new ReadSettings(r.get(DECODE_DEPTH), r.get(DEVICE_BATCH_SIZE), r.get(DEVICE_BATCH_BYTES),
                r.get(DEVICE_FIRST_BATCH), r.get(TRACE), r.get(HOST_DECODE_OVERLAP), r.get(SERIAL_RUNS_PER_CORE),
                r.get(HOST_SHARE));
    }

    /**
     * These settings as explicit values (every component), for a {@link ZarrContext.Builder}.
     *
     * @return one value per setting of {@link #SETTINGS}
     */
    public SettingValues toValues() {
        return SettingValues.builder().set(DECODE_DEPTH, decodeDepth).set(DEVICE_BATCH_SIZE, deviceBatchSize)
                .set(DEVICE_BATCH_BYTES, deviceBatchBytes).set(DEVICE_FIRST_BATCH, deviceFirstBatch)
                .set(TRACE, trace).set(HOST_DECODE_OVERLAP, hostDecodeOverlap)
                .set(SERIAL_RUNS_PER_CORE, serialRunsPerCore).set(HOST_SHARE, hostShare).build();
    }

    /**
     * These settings with another {@code decodeDepth}.
     *
     * @param v device batches of one read that decode at once, 1..64
     * @return a new record; this one is unchanged
     * @throws InvalidSettingException when {@code v} is out of range
     */
    public ReadSettings withDecodeDepth(int v) {
        return new ReadSettings(v, deviceBatchSize, deviceBatchBytes, deviceFirstBatch, trace, hostDecodeOverlap,
                serialRunsPerCore, hostShare);
    }

    /**
     * These settings with another {@code deviceBatchSize}.
     *
     * @param v chunks per device batch, 0 or more; 0: the backend's preferred size
     * @return a new record; this one is unchanged
     * @throws InvalidSettingException when {@code v} is out of range
     */
    public ReadSettings withDeviceBatchSize(int v) {
        return new ReadSettings(decodeDepth, v, deviceBatchBytes, deviceFirstBatch, trace, hostDecodeOverlap,
                serialRunsPerCore, hostShare);
    }

    /**
     * These settings with another {@code deviceBatchBytes}.
     *
     * @param v decoded bytes a device batch holds at most, 0 or more; 0: the backend's
     * @return a new record; this one is unchanged
     * @throws InvalidSettingException when {@code v} is out of range
     */
    public ReadSettings withDeviceBatchBytes(long v) {
        return new ReadSettings(decodeDepth, deviceBatchSize, v, deviceFirstBatch, trace, hostDecodeOverlap,
                serialRunsPerCore, hostShare);
    }

    /**
     * These settings with another {@code deviceFirstBatch}.
     *
     * @param v chunks in the first device batch, 0 or more; 0: no ramp
     * @return a new record; this one is unchanged
     * @throws InvalidSettingException when {@code v} is out of range
     */
    public ReadSettings withDeviceFirstBatch(int v) {
        return new ReadSettings(decodeDepth, deviceBatchSize, deviceBatchBytes, v, trace, hostDecodeOverlap,
                serialRunsPerCore, hostShare);
    }

    /**
     * These settings with another {@code trace}.
     *
     * @param v whether to print where the time of each device read goes
     * @return a new record; this one is unchanged
     */
    public ReadSettings withTrace(boolean v) {
        return new ReadSettings(decodeDepth, deviceBatchSize, deviceBatchBytes, deviceFirstBatch, v,
                hostDecodeOverlap, serialRunsPerCore, hostShare);
    }

    /**
     * These settings with another {@code hostDecodeOverlap}.
     *
     * @param v whether host-decoded stages overlap with copies to the device
     * @return a new record; this one is unchanged
     */
    public ReadSettings withHostDecodeOverlap(boolean v) {
        return new ReadSettings(decodeDepth, deviceBatchSize, deviceBatchBytes, deviceFirstBatch, trace, v,
                serialRunsPerCore, hostShare);
    }

    /**
     * These settings with another {@code serialRunsPerCore}.
     *
     * @param v serial device runs a batch needs per host core to decode on the device, 0..4096; 0: always
     * @return a new record; this one is unchanged
     * @throws InvalidSettingException when {@code v} is out of range
     */
    public ReadSettings withSerialRunsPerCore(int v) {
        return new ReadSettings(decodeDepth, deviceBatchSize, deviceBatchBytes, deviceFirstBatch, trace,
                hostDecodeOverlap,
                v, hostShare);
    }

    /**
     * These settings with another {@code hostShare}.
     *
     * @param v whether device batches of serial runs are shared with the host
     * @return a new record; this one is unchanged
     */
    public ReadSettings withHostShare(boolean v) {
        return new ReadSettings(decodeDepth, deviceBatchSize, deviceBatchBytes, deviceFirstBatch, trace,
                hostDecodeOverlap, serialRunsPerCore, v);
    }
}
