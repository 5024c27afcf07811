// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core.v2;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;
import dev.zarrdirect.api.store.Store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/** Data and store helpers for the Zarr v2 tests. */
final class V2Fixtures {
    private V2Fixtures() {
    }

    /** Every element type, raw ones included. */
    static List<DataType> allTypes() {
        List<DataType> all = new java.util.ArrayList<>(DataType.named());
        all.add(DataType.raw(24));
        return all;
    }

    /** Random elements: bools 0 or 1, other types random bytes (NaN payloads included, compared bytewise). */
    static Tensor random(DataType dt, long[] shape, Random rnd) {
        Tensor t = Tensor.allocateHost(dt, shape);
        MemorySegment s = t.segment();
        for (long i = 0; i < s.byteSize(); i++) {
            byte b = dt.kind() == DataType.Kind.BOOL ? (byte) rnd.nextInt(2)
                    : (i % dt.byteSize() == 0 ? (byte) rnd.nextInt(7) : (byte) rnd.nextInt(256));
            s.set(ValueLayout.JAVA_BYTE, i, b);
        }
        return t;
    }

    static void assertSameBytes(Tensor expected, Tensor actual, String what) {
        long m = expected.segment().mismatch(actual.segment());
        if (m != -1) {
            throw new AssertionError(what + ": tensors differ at byte " + m + " (element "
                    + m / expected.dataType().byteSize() + ") of " + expected.segment().byteSize() + "/"
                    + actual.segment().byteSize());
        }
    }

    static void put(Store store, String key, String text) {
        store.set(key, MemorySegment.ofArray(text.getBytes(StandardCharsets.UTF_8)));
    }

    static void put(Store store, String key, byte[] bytes) {
        store.set(key, MemorySegment.ofArray(bytes));
    }

    static String text(Store store, String key) {
        try (Arena arena = Arena.ofConfined()) {
            return store.get(key, arena).map(s -> new String(s.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8))
                    .orElseThrow(() -> new AssertionError("no key \"" + key + "\" in " + store));
        }
    }
}
