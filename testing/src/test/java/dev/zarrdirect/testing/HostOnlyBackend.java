// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.DeviceType;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.Buffer;
import dev.zarrdirect.api.buffer.HostBuffer;
import dev.zarrdirect.api.buffer.MemoryKind;
import dev.zarrdirect.api.codec.Codec;
import dev.zarrdirect.api.codec.CodecProvider;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The smallest backend the api allows, host memory from {@link HostBuffer} alone, with one flaw
 * switched on at a time: the contracts' own tests run it to prove that a correct backend passes and
 * that each flaw fails the test meant to catch it.
 */
final class HostOnlyBackend implements Backend {

    /** What this backend gets wrong. */
    enum Flaw {
        NONE,
        /** A copy writes one byte past the range asked for. */
        COPY_OVERRUNS,
        /** The leak check never reports anything. */
        LEAK_CHECK_BLIND,
        /** A fill writes nothing on its last element. */
        FILL_SHORT
    }

    static volatile Flaw flaw = Flaw.NONE;

    private final List<HostBuffer> allocated = new CopyOnWriteArrayList<>();

    @Override
    public String name() {
        return "host-only";
    }

    @Override
    public List<Device> devices() {
        return List.of(Device.CPU);
    }

    @Override
    public Buffer allocate(Device device, MemoryKind kind, long bytes) {
        if (!Device.CPU.equals(device) || kind != MemoryKind.HOST) {
            throw new IllegalArgumentException("host-only allocates HOST memory on cpu:0, not " + kind + " on " + device);
        }
        HostBuffer b = HostBuffer.allocate(bytes);
        allocated.add(b);
        return b;
    }

    @Override
    public void copy(Buffer src, long srcOffset, Buffer dst, long dstOffset, long bytes) {
        long extra = flaw == Flaw.COPY_OVERRUNS && dstOffset + bytes < dst.byteSize() ? 1 : 0;
        MemorySegment.copy(src.segment(), srcOffset, dst.segment(), dstOffset, bytes);
        if (extra > 0) {
            dst.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, dstOffset + bytes, (byte) 0);
        }
    }

    @Override
    public void fill(Buffer dst, long offset, long count, MemorySegment pattern) {
        if (count < 0) {
            throw new IllegalArgumentException("negative count " + count);
        }
        MemorySegment out = dst.segment().asSlice(offset, count * pattern.byteSize());
        long written = flaw == Flaw.FILL_SHORT && count > 0 ? count - 1 : count;
        for (long i = 0; i < written; i++) {
            MemorySegment.copy(pattern, 0, out, i * pattern.byteSize(), pattern.byteSize());
        }
    }

    @Override
    public int preferredBatchSize() {
        return 1;
    }

    @Override
    public CodecProvider codecs() {
        return new CodecProvider() {
            @Override
            public String name() {
                return "host-only";
            }

            @Override
            public Set<DeviceType> deviceTypes() {
                return Set.of(DeviceType.CPU);
            }

            @Override
            public Set<String> codecNames() {
                return Set.of();
            }

            @Override
            public Optional<Codec> create(String codecName, Map<String, Object> configuration, Device device) {
                return Optional.empty();
            }
        };
    }

    void assertNoLiveBuffers() {
        if (flaw == Flaw.LEAK_CHECK_BLIND) {
            return;
        }
        List<HostBuffer> open = allocated.stream().filter(Buffer::isOpen).toList();
        if (!open.isEmpty()) {
            throw new AssertionError(open.size() + " buffer(s) of host-only still open: " + open);
        }
    }

    @Override
    public void close() {
    }
}
