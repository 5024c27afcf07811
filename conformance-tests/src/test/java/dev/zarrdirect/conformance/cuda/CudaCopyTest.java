// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.buffer.Region;
import dev.zarrdirect.api.buffer.StridedCopy;
import dev.zarrdirect.cuda.CudaBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Copies in every direction, fills, and batched region copies and fills on the device match the
 * same operations on host memory, on random data at random offsets.
 */
class CudaCopyTest {

    CudaBackend backend;
    Device cuda0;

    @BeforeEach
    void open() {
        backend = CudaTests.open();
        cuda0 = backend.defaultDevice();
    }

    @AfterEach
    void close() {
        if (backend != null) {
            try {
                backend.assertNoLiveBuffers();
            } finally {
                backend.close();
            }
        }
    }

    private static void randomize(MemorySegment s, Random rnd) {
        byte[] b = new byte[(int) s.byteSize()];
        rnd.nextBytes(b);
        MemorySegment.copy(MemorySegment.ofArray(b), 0, s, 0, b.length);
    }

    private Buffer toHost(Buffer b) {
        Buffer h = backend.allocate(cuda0, MemoryKind.HOST_PINNED, b.byteSize());
        backend.copy(b, 0, h, 0, b.byteSize());
        return h;
    }

    @Test
    void copiesInEveryDirectionMoveExactlyTheBytes() {
        Random rnd = CudaTests.random("copies");
        int n = 3 << 20;
        MemoryKind[] kinds = {MemoryKind.HOST, MemoryKind.HOST_PINNED, MemoryKind.DEVICE, MemoryKind.MANAGED};
        for (MemoryKind from : kinds) {
            for (MemoryKind to : kinds) {
                for (int round = 0; round < 4; round++) {
                    long len = round == 0 ? 1 : rnd.nextInt(n / 2);
                    long so = rnd.nextInt(n / 2);
                    long dof = rnd.nextInt(n / 2);
                    try (Buffer ref = backend.allocate(cuda0, MemoryKind.HOST, n);
                         Buffer src = backend.allocate(cuda0, from, n);
                         Buffer dst = backend.allocate(cuda0, to, n)) {
                        randomize(ref.segment(), rnd);
                        backend.copy(ref, 0, src, 0, n);
                        try (Buffer before = toHost(dst)) {
                            backend.copy(src, so, dst, dof, len);
                            try (Buffer after = toHost(dst)) {
                                MemorySegment expect = before.segment();
                                MemorySegment.copy(ref.segment(), so, expect, dof, len);
                                assertEquals(-1, after.segment().mismatch(expect),
                                        from + " -> " + to + " len " + len + " at " + so + " -> " + dof + ", seed " + CudaTests.SEED);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void copiesToAndFromJavaArraysGoThroughNativeMemory() {
        // HostBuffer.wrap(MemorySegment.ofArray(...)) has no address the driver can use; the copy
        // failed with CUDA_ERROR_INVALID_VALUE (or read whatever lay at that "address").
        Random rnd = CudaTests.random("heap copies");
        byte[] data = new byte[3010];
        rnd.nextBytes(data);
        byte[] back = new byte[data.length + 7];
        try (Buffer d = backend.allocate(cuda0, MemoryKind.DEVICE, data.length + 5);
             HostBuffer in = HostBuffer.wrap(MemorySegment.ofArray(data));
             HostBuffer out = HostBuffer.wrap(MemorySegment.ofArray(back))) {
            backend.copy(in, 0, d, 5, data.length);
            backend.copy(d, 5, out, 7, data.length);
        }
        assertArrayEquals(data, java.util.Arrays.copyOfRange(back, 7, back.length));
    }

    @Test
    void copiesOutOfBoundsAreRefusedBeforeTouchingTheDevice() {
        try (Buffer d = backend.allocate(cuda0, MemoryKind.DEVICE, 100);
             Buffer h = backend.allocate(cuda0, MemoryKind.HOST_PINNED, 100)) {
            assertThrows(IndexOutOfBoundsException.class, () -> backend.copy(h, 0, d, 50, 51));
            assertThrows(IllegalArgumentException.class, () -> backend.copy(h, -1, d, 0, 1));
        }
    }

    @Test
    void fillsMatchTheHostFillForEveryPatternWidth() {
        Random rnd = CudaTests.random("fills");
        for (int width : new int[]{1, 2, 3, 4, 8, 16}) {
            for (int round = 0; round < 3; round++) {
                int n = 1 << 20;
                byte[] pat = new byte[width];
                rnd.nextBytes(pat);
                if (round == 2) {
                    java.util.Arrays.fill(pat, (byte) 0x42);
                }
                long count = rnd.nextInt(n / width / 2) + 1;
                long off = rnd.nextInt(n / 2);
                try (Buffer d = backend.allocate(cuda0, MemoryKind.DEVICE, n);
                     Buffer expect = backend.allocate(cuda0, MemoryKind.HOST, n)) {
                    randomize(expect.segment(), rnd);
                    backend.copy(expect, 0, d, 0, n);
                    backend.fill(d, off, count, MemorySegment.ofArray(pat));
                    StridedCopy.fillRun(expect.segment(), off, count, MemorySegment.ofArray(pat), false);
                    try (Buffer got = toHost(d)) {
                        assertEquals(-1, got.segment().mismatch(expect.segment()), "pattern width " + width);
                    }
                }
            }
        }
    }

    @Test
    void copyRegionsAndFillRegionsMatchStridedCopy() {
        Random rnd = CudaTests.random("regions");
        for (int round = 0; round < 20; round++) {
            int rank = 1 + rnd.nextInt(4);
            int elem = new int[]{1, 2, 4, 8}[rnd.nextInt(4)];
            long[] chunk = new long[rank];
            long[] tiles = new long[rank];
            long[] tensor = new long[rank];
            long tileCount = 1;
            for (int k = 0; k < rank; k++) {
                chunk[k] = 1 + rnd.nextInt(9);
                tiles[k] = 1 + rnd.nextInt(rank > 2 ? 4 : 12);
                tensor[k] = chunk[k] * tiles[k];
                tileCount *= tiles[k];
            }
            long chunkBytes = elem * java.util.Arrays.stream(chunk).reduce(1, (a, b) -> a * b);
            long tensorBytes = elem * java.util.Arrays.stream(tensor).reduce(1, (a, b) -> a * b);
            // each chunk lands in its own tile of the tensor: boxes never overlap, as in a real read
            int nChunks = (int) Math.min(tileCount, 1 + rnd.nextInt(300));
            long[] cs = StridedCopy.cByteStrides(chunk, elem);
            long[] ts = StridedCopy.cByteStrides(tensor, elem);
            try (Buffer chunksHost = backend.allocate(cuda0, MemoryKind.HOST, nChunks * chunkBytes);
                 Buffer chunksDev = backend.allocate(cuda0, MemoryKind.DEVICE, nChunks * chunkBytes);
                 Buffer expect = backend.allocate(cuda0, MemoryKind.HOST, tensorBytes);
                 Buffer tensorDev = backend.allocate(cuda0, MemoryKind.DEVICE, tensorBytes)) {
                randomize(chunksHost.segment(), rnd);
                randomize(expect.segment(), rnd);
                backend.copy(chunksHost, 0, chunksDev, 0, chunksHost.byteSize());
                backend.copy(expect, 0, tensorDev, 0, tensorBytes);
                byte[] fillBytes = new byte[elem];
                rnd.nextBytes(fillBytes);
                MemorySegment fill = MemorySegment.ofArray(fillBytes);
                List<Region.Copy> copies = new ArrayList<>();
                List<Region> fills = new ArrayList<>();
                for (int c = 0; c < nChunks; c++) {
                    long so = c * chunkBytes;
                    long dof = 0;
                    long[] ext = new long[rank];
                    long tile = c;
                    for (int k = rank - 1; k >= 0; k--) {
                        long t = tile % tiles[k];
                        tile /= tiles[k];
                        long start = rnd.nextInt((int) chunk[k]);
                        ext[k] = 1 + rnd.nextInt((int) (chunk[k] - start));
                        so += start * cs[k];
                        dof += (t * chunk[k] + start) * ts[k];
                    }
                    if (rnd.nextInt(4) == 0) {
                        fills.add(new Region(tensorDev, dof, ext, ts));
                    } else {
                        copies.add(new Region.Copy(new Region(chunksDev, so, ext, cs), new Region(tensorDev, dof, ext, ts)));
                    }
                }
                backend.fillRegions(fills, fill);
                for (Region r : fills) {
                    StridedCopy.fill(expect.segment(), r.offset(), ts, r.extent(), fill);
                }
                backend.copyRegions(copies, elem);
                for (Region.Copy c : copies) {
                    StridedCopy.copy(chunksHost.segment(), c.src().offset(), cs, expect.segment(), c.dst().offset(), ts,
                            c.src().extent(), elem);
                }
                try (Buffer got = toHost(tensorDev)) {
                    assertEquals(-1, got.segment().mismatch(expect.segment()),
                            "round " + round + " rank " + rank + " elem " + elem + ", seed " + CudaTests.SEED);
                }
            }
        }
    }

    @Test
    void regionsOutsideTheirBufferAreRefused() {
        try (Buffer d = backend.allocate(cuda0, MemoryKind.DEVICE, 64)) {
            Region r = new Region(d, 0, new long[]{9, 2}, new long[]{8, 4});
            assertThrows(IndexOutOfBoundsException.class,
                    () -> backend.fillRegions(List.of(r), MemorySegment.ofArray(new byte[4])));
        }
    }

    @Test
    void hostOnlyRegionsUseTheHostPath() {
        try (HostBuffer a = HostBuffer.allocate(64); HostBuffer b = HostBuffer.allocate(64)) {
            a.segment().set(ValueLayout.JAVA_BYTE, 5, (byte) 9);
            backend.copyRegions(List.of(new Region.Copy(Region.packed(a, 0, new long[]{8}, 1),
                    Region.packed(b, 0, new long[]{8}, 1))), 1);
            assertEquals(9, b.segment().get(ValueLayout.JAVA_BYTE, 5));
        }
    }
}
