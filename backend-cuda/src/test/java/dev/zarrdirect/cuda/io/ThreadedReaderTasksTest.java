// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import dev.zarrdirect.api.backend.DirectReader;
import dev.zarrdirect.api.buffer.HostBuffer;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class ThreadedReaderTasksTest {

    @Test
    void requestsAreCutIntoTasksOfAtMostTheTaskSize() {
        try (HostBuffer b = HostBuffer.allocate(100)) {
            List<DirectReader.Request> r = List.of(new DirectReader.Request(Path.of("a"), 10, 25, b, 5),
                    new DirectReader.Request(Path.of("b"), 0, 0, b, 0),
                    new DirectReader.Request(Path.of("c"), 7, 10, b, 50));
            List<ThreadedReader.Task> t = ThreadedReader.tasks(r, 10);
            assertEquals(4, t.size());
            assertEquals(new ThreadedReader.Task(0, Path.of("a"), 10, 10, b, 5), t.get(0));
            assertEquals(new ThreadedReader.Task(0, Path.of("a"), 30, 5, b, 25), t.get(2));
            assertEquals(new ThreadedReader.Task(2, Path.of("c"), 7, 10, b, 50), t.get(3));
        }
    }
}
