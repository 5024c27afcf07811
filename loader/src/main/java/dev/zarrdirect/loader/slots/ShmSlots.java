// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.slots;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Slots in POSIX shared memory: one file per slot in {@code /dev/shm}, mapped here and by the
 * consumer. Every page is written once at creation, so a full {@code /dev/shm} is an error now
 * rather than a SIGBUS later. The files are unlinked as soon as the consumer has mapped them
 * ({@link #consumerMapped}) and on close, so nothing is left behind however either side ends.
 */
public final class ShmSlots extends HostMemorySlots {

    private static final Path SHM = Path.of("/dev/shm");

    private final List<Path> files = new ArrayList<>();

    public ShmSlots(Backend backend, int count, long bytes, String prefix) {
        super(backend);
        if (!prefix.matches("[A-Za-z0-9_.-]{1,100}")) {
            throw new IllegalArgumentException("a shared-memory prefix is letters, digits, '_', '.', '-', not '" + prefix + "'");
        }
        try {
            long usable = Files.getFileStore(SHM).getUsableSpace();
            if (usable < count * bytes) {
                throw new IllegalArgumentException(count + " slots of " + bytes + " bytes need " + count * bytes
                        + " bytes of " + SHM + " but it has " + usable + " free; lower prefetch or batch_size, or"
                        + " enlarge /dev/shm (docker: --shm-size)");
            }
            for (int i = 0; i < count; i++) {
                Path f = SHM.resolve(prefix + "-slot" + i);
                slots.add(map(f, bytes));
                files.add(f);
            }
            allocateDeviceTarget(bytes);
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot create shared-memory slots in " + SHM + ": " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** Creates (never reuses) {@code f}, fills and maps it; on failure removes what it created. */
    private static Buffer map(Path f, long bytes) throws IOException {
        FileChannel created = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try (FileChannel ch = created) {
            ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            for (long at = 0; at < bytes; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
                at += ch.write(zeros, at);
            }
            Arena arena = Arena.ofShared();
            try {
                MemorySegment seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
                return HostBuffer.of(seg, MemoryKind.HOST, Device.CPU, arena::close);
            } catch (IOException | RuntimeException e) {
                arena.close();
                throw e;
            }
        } catch (IOException | RuntimeException | Error e) {
            Files.deleteIfExists(f);
            throw e;
        }
    }

    @Override
    public String memory() {
        return "shm";
    }

    @Override
    public Map<String, Object> describe(int slot) {
        return Map.of("slot", slot, "bytes", slots.get(slot).byteSize(), "handle", files.get(slot).toString());
    }

    @Override
    public void consumerMapped() {
        unlinkAll();
    }

    private void unlinkAll() {
        for (Path f : files) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot remove shared-memory file " + f + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public void close() {
        try {
            freeMemory();
        } finally {
            unlinkAll();
        }
    }
}
