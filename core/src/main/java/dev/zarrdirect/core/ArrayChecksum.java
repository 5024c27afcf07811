// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.LongConsumer;

/**
 * The SHA-256 of every element of an array in C order, each element little-endian (bool as one
 * byte 0 or 1, complex as real then imaginary): the same number for the same data whatever the
 * chunking, codecs, backend or implementation that wrote it. Chunks never written count as the
 * fill value. Reads in slabs along the first dimension, so memory stays bounded. On a device
 * backend the slabs are decoded on the device ({@link ZarrArray#readToDevice}) and copied back,
 * so that {@code checksum --backend cuda} checks the device's decoding against the CPU's.
 */
public final class ArrayChecksum {

    /** Slabs are about this large. */
    static final long SLAB_BYTES = 64L << 20;

    private ArrayChecksum() {
    }

    /**
     * Lowercase hex SHA-256 of the whole array. Reads on the array's context; allocates and frees
     * its slabs itself.
     *
     * {@snippet :
     * try (ZarrArray a = Zarr.openArray("/data/era5.zarr", "t2m")) {
     *     String sha = ArrayChecksum.sha256(a); // 64 hex digits
     * }
     * }
     *
     * @param array the array to hash; not closed
     * @return 64 lowercase hex digits
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be decoded
     */
    public static String sha256(ZarrArray array) {
        return sha256(array, n -> { });
    }

    /**
     * As {@link #sha256(ZarrArray)}, reporting the bytes hashed so far to {@code progress}.
     *
     * @param array    the array to hash; not closed
     * @param progress called on the calling thread after each slab with the total bytes hashed so
     *                 far (of decoded elements; the array's size in bytes at the end). A 0-dimensional
     *                 array is read in one piece and reports nothing
     * @return 64 lowercase hex digits
     * @throws dev.zarrdirect.api.StoreException when the store fails
     * @throws dev.zarrdirect.api.CodecException when a chunk cannot be decoded
     */
    public static String sha256(ZarrArray array, LongConsumer progress) {
        MessageDigest md = newDigest();
        long[] shape = array.shape();
        DataType dt = array.dataType();
        if (shape.length == 0) {
            try (Tensor t = array.read()) {
                update(md, t.segment(), dt);
            }
            return HexFormat.of().formatHex(md.digest());
        }
        long rowBytes = dt.byteSize();
        for (int i = 1; i < shape.length; i++) {
            rowBytes *= shape[i];
        }
        long rows = Math.max(1, SLAB_BYTES / Math.max(1, rowBytes));
        // Align slabs to whole chunks along the first dimension so no chunk is decoded twice.
        long c0 = array.chunkShape()[0];
        rows = Math.max(c0, (rows / c0) * c0);
        long done = 0;
        for (long r = 0; r < shape[0]; r += rows) {
            long[] start = new long[shape.length];
            long[] stop = shape.clone();
            start[0] = r;
            stop[0] = Math.min(shape[0], r + rows);
            try (Tensor t = readSlab(array, new Selection(start, stop))) {
                update(md, t.segment(), dt);
                done += t.byteSize();
                progress.accept(done);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** The slab as a contiguous host tensor: read on the host, or decoded on the device and copied back. */
    private static Tensor readSlab(ZarrArray array, Selection sel) {
        if (array.context().backend().defaultDevice().isHost()) {
            return array.read(sel);
        }
        try (Tensor onDevice = array.readToDevice(sel)) {
            return array.copyToHost(onDevice);
        }
    }

    /**
     * Lowercase hex SHA-256 of a contiguous host tensor's elements, by the same rules.
     *
     * @param t the tensor to hash; not closed
     * @return 64 lowercase hex digits
     * @throws UnsupportedOperationException when {@code t} is a device tensor or not contiguous
     */
    public static String sha256(Tensor t) {
        MessageDigest md = newDigest();
        update(md, t.segment(), t.dataType());
        return HexFormat.of().formatHex(md.digest());
    }

    private static void update(MessageDigest md, MemorySegment seg, DataType dt) {
        if (dt.kind() == DataType.Kind.BOOL) {
            byte[] buf = new byte[8192];
            for (long off = 0; off < seg.byteSize(); off += buf.length) {
                int n = (int) Math.min(buf.length, seg.byteSize() - off);
                MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, buf, 0, n);
                for (int i = 0; i < n; i++) {
                    buf[i] = (byte) (buf[i] != 0 ? 1 : 0);
                }
                md.update(buf, 0, n);
            }
            return;
        }
        // In memory elements are already little-endian; hash the bytes as they are, in pieces
        // because a ByteBuffer view is limited to 2 GiB.
        long step = 1L << 30;
        for (long off = 0; off < seg.byteSize(); off += step) {
            ByteBuffer bb = seg.asSlice(off, Math.min(step, seg.byteSize() - off)).asByteBuffer();
            md.update(bb);
        }
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
