// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.cuda;

import dev.zarrdirect.cuda.driver.CudaDevice;
import dev.zarrdirect.cuda.driver.CudaDriver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.zip.CRC32;

/**
 * The consumer side of {@link CudaIpcMemoryTest}, run as a process of its own (CUDA refuses to open
 * a process's own IPC handles): opens the slab and both events from their hex handles, waits for
 * {@code ready} on a stream, reads the slab and prints {@code crc32 N}, then overwrites it with one
 * byte, records {@code released} after that and closes everything.
 *
 * <p>Arguments: memory handle, ready handle, released handle (hex), bytes, fill byte.
 */
public final class CudaIpcConsumer {

    private CudaIpcConsumer() {
    }

    public static void main(String[] args) {
        HexFormat hex = HexFormat.of();
        byte[] mem = hex.parseHex(args[0]);
        byte[] ready = hex.parseHex(args[1]);
        byte[] released = hex.parseHex(args[2]);
        long bytes = Long.parseLong(args[3]);
        byte fill = (byte) Integer.parseInt(args[4]);
        CudaDriver driver = CudaDriver.load().orElseThrow(() -> new IllegalStateException(CudaDriver.failure()));
        try (CudaDevice dev = new CudaDevice(driver, 0, null, "auto"); Arena a = Arena.ofConfined()) {
            dev.makeCurrent();
            long ptr = driver.ipcOpenMemHandle(mem, CudaDriver.IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
            long readyEvent = driver.ipcOpenEventHandle(ready);
            long releasedEvent = driver.ipcOpenEventHandle(released);
            long stream = dev.acquireStream();
            MemorySegment host = a.allocate(bytes, 64);
            driver.streamWaitEvent(stream, readyEvent);
            driver.memcpyDtoHAsync(host.address(), ptr, bytes, stream);
            driver.streamSynchronize(stream, "reading the slab");
            CRC32 crc = new CRC32();
            crc.update(host.asByteBuffer());
            driver.memsetD8Async(ptr, fill, bytes, stream);
            driver.eventRecord(releasedEvent, stream);
            driver.streamSynchronize(stream, "overwriting the slab");
            dev.releaseStream(stream);
            driver.ipcCloseMemHandle(ptr);
            driver.eventDestroy(readyEvent);
            driver.eventDestroy(releasedEvent);
            System.out.println("crc32 " + crc.getValue() + " first " + (host.get(ValueLayout.JAVA_BYTE, 0) & 0xFF));
        }
    }
}
