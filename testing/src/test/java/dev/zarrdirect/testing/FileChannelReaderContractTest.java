// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.MemoryKind;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * The direct-reader contract on the plainest reader there is ({@code FileChannel} into host
 * memory), so that the contract itself is checked on every build, not only on a GPU machine where
 * the CUDA readers run it.
 */
class FileChannelReaderContractTest extends DirectReaderContract {

    /** Reads each request with positional {@code FileChannel} reads into the destination's segment. */
    static final class FileChannelReader implements DirectReader {
        @Override
        public String describe() {
            return "FileChannel into host memory";
        }

        @Override
        public void read(List<Request> requests) {
            for (Request r : requests) {
                if (r.destinationOffset() + r.length() > r.destination().byteSize()) {
                    throw new IndexOutOfBoundsException("read of " + r.length() + " bytes at " + r.destinationOffset()
                            + " does not fit " + r.destination());
                }
            }
            for (Request r : requests) {
                ByteBuffer into = r.destination().segment().asSlice(r.destinationOffset(), r.length()).asByteBuffer();
                try (FileChannel ch = FileChannel.open(r.file())) {
                    while (into.hasRemaining()) {
                        if (ch.read(into, r.offset() + into.position()) < 0) {
                            throw new StoreException(describe(), null, "read of " + r.length() + " bytes at " + r.offset()
                                    + " of " + r.file() + " ended at " + (r.offset() + into.position())
                                    + ": the file is shorter");
                        }
                    }
                } catch (IOException e) {
                    throw new StoreException(describe(), null, "cannot read " + r.file() + ": " + e, e);
                }
            }
        }

        @Override
        public void close() {
        }
    }

    @Override
    protected Backend openBackend() {
        return new HostOnlyBackend();
    }

    @Override
    protected void assertNoLiveBuffers(Backend backend) {
        ((HostOnlyBackend) backend).assertNoLiveBuffers();
    }

    @Override
    protected DirectReader newReader(Backend backend) {
        return new FileChannelReader();
    }

    @Override
    protected BackendContract.Placement destinationMemory(Backend backend) {
        return new BackendContract.Placement(Device.CPU, MemoryKind.HOST);
    }

    @Override
    protected BackendContract.Placement hostMemory(Backend backend) {
        return new BackendContract.Placement(Device.CPU, MemoryKind.HOST);
    }
}
