// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.codec;

import dev.zarrdirect.api.ChecksumMismatchException;
import dev.zarrdirect.api.CodecException;
import dev.zarrdirect.api.CorruptChunkException;
import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.ZarrDirectException;
import dev.zarrdirect.api.codec.BytesToBytesCodec;
import dev.zarrdirect.api.codec.CodecBatch;
import dev.zarrdirect.api.codec.spec.CodecConfigReader;
import dev.zarrdirect.cuda.CudaBackend;
import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.KernelArgs;
import dev.zarrdirect.cuda.kernels.ZdStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * The {@code crc32c} codec on a CUDA device: the data followed by its CRC32C as 4 little-endian
 * bytes. One {@code zd_crc32c_batch} launch per batch (one thread block per chunk) computes or
 * verifies; one scatter launch then moves the data (and, when encoding, the checksums) into the
 * outputs. Decoding fails a chunk whose checksum differs with a {@link ChecksumMismatchException}
 * holding both values; the others complete.
 */
public final class CudaCrc32cCodec implements BytesToBytesCodec {

    static final String NAME = "crc32c";
    static final int THREADS = 256;
    private static final int MODE_COMPUTE = 0;
    private static final int MODE_VERIFY = 1;

    private final CudaBackend backend;
    private final CudaDevice device;

    CudaCrc32cCodec(CudaBackend backend, CudaDevice device) {
        this.backend = backend;
        this.device = device;
    }

    static CudaCrc32cCodec create(CudaBackend backend, CudaDevice device, Map<String, Object> configuration) {
        CodecConfigReader.of(NAME, configuration, Set.of());
        return new CudaCrc32cCodec(backend, device);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Device device() {
        return device.device();
    }

    @Override
    public String provider() {
        return "cuda";
    }

    @Override
    public long encodedSize(long decodedSize) {
        return decodedSize + 4;
    }

    @Override
    public long maxEncodedSize(long decodedSize) {
        return decodedSize + 4;
    }

    @Override
    public long decodedSize(long encodedSize) {
        return encodedSize >= 4 ? encodedSize - 4 : -1;
    }

    @Override
    public void decode(CodecBatch batch) {
        run(batch, MODE_VERIFY);
    }

    @Override
    public void encode(CodecBatch batch) {
        run(batch, MODE_COMPUTE);
    }

    private void run(CodecBatch batch, int mode) {
        boolean verify = mode == MODE_VERIFY;
        int size = batch.size();
        int[] item = new int[size];
        long[] sa = new long[size];
        long[] ss = new long[size];
        long[] da = new long[size];
        int n = 0;
        for (int i = 0; i < size; i++) {
            try {
                long in = DeviceWork.address(NAME, batch, i, batch.input(i), "input", device);
                long out = DeviceWork.address(NAME, batch, i, batch.output(i), "output", device);
                long len = batch.input(i).byteSize();
                long outLen = batch.output(i).byteSize();
                if (verify && len < 4) {
                    throw new CorruptChunkException(NAME, NAME + " of " + batch.label(i) + " is truncated: " + len
                            + " bytes, shorter than the 4-byte checksum");
                }
                if (verify && outLen != len - 4) {
                    throw new CorruptChunkException(NAME, NAME + " of " + batch.label(i) + " holds " + (len - 4)
                            + " data bytes, expected " + outLen);
                }
                if (!verify && outLen < len + 4) {
                    throw new CodecException(NAME, "output of " + outLen + " bytes for " + batch.label(i)
                            + " cannot hold " + len + " bytes and their 4-byte checksum");
                }
                item[n] = i;
                sa[n] = in;
                ss[n] = len;
                da[n] = out;
                n++;
            } catch (ZarrDirectException e) {
                batch.fail(i, e);
            }
        }
        if (n == 0) {
            return;
        }
        ItemTable t = ItemTable.of(Arrays.copyOf(sa, n), Arrays.copyOf(ss, n), null, null);
        DeviceCopies copies = new DeviceCopies();
        boolean[] ok = new boolean[n];
        long computedAt;
        try (DeviceWork w = new DeviceWork(backend, device)) {
            // host table: ItemTable (the dst half unused) followed by the computed words
            computedAt = t.byteSize();
            MemorySegment host = w.arena.allocate(computedAt + 4L * n, 8);
            t.writeTo(host);
            long table = w.upload(host);
            KernelArgs args = new KernelArgs().u64(t.srcBase()).u64(table + t.srcOffsetsAt()).u64(table + t.srcSizesAt())
                    .u64(table + computedAt).u64(table + t.statusAt()).u32(mode).u32(n);
            w.launch("zd_crc32c_batch", n, THREADS, 0, args);
            w.download(table + t.statusAt(), host, t.statusAt(), 4L * n + 4L * n);
            w.sync("zd_crc32c_batch over " + n + " chunks starting with " + batch.label(item[0]));
            for (int k = 0; k < n; k++) {
                int i = item[k];
                int st = host.get(ValueLayout.JAVA_INT, t.statusAt() + 4L * k);
                long computed = Integer.toUnsignedLong(host.get(ValueLayout.JAVA_INT, computedAt + 4L * k));
                if (st == ZdStatus.OK) {
                    ok[k] = true;
                    if (verify) {
                        copies.add(sa[k], da[k], ss[k] - 4);
                    } else {
                        copies.add(sa[k], da[k], ss[k]);
                        copies.add(table + computedAt + 4L * k, da[k] + ss[k], 4);
                    }
                } else if (st == ZdStatus.CORRUPT_CHECKSUM) {
                    MemorySegment stored = w.arena.allocate(4, 4);
                    w.download(sa[k] + ss[k] - 4, stored, 0, 4);
                    w.sync("reading the stored checksum of " + batch.label(i));
                    batch.fail(i, new ChecksumMismatchException(NAME, batch.label(i),
                            Integer.toUnsignedLong(stored.get(ValueLayout.JAVA_INT, 0)), computed));
                } else {
                    batch.fail(i, new CorruptChunkException(NAME, NAME + " of " + batch.label(i) + " failed on "
                            + device.device() + ": " + ZdStatus.name(st) + " (" + ZdStatus.text(st) + ")"));
                }
            }
            // The table (with the computed words) is still allocated: move data and checksums now.
            copies.run(backend, device, NAME + " " + (verify ? "decode" : "encode") + " of " + n + " chunks");
        }
        for (int k = 0; k < n; k++) {
            if (ok[k]) {
                batch.complete(item[k], verify ? ss[k] - 4 : ss[k] + 4);
            }
        }
    }

    @Override
    public String toString() {
        return "CudaCrc32cCodec[" + device.device() + "]";
    }
}
