// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.interop;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.api.Tensor;

import java.lang.foreign.ValueLayout;
import java.util.Random;

/** Seeded contents for arrays written here and read by zarrita. */
final class InteropData {

    private InteropData() {
    }

    /**
     * A host tensor of {@code shape} filled from {@code rnd}: bool 0/1, floats a smooth wave plus
     * noise (never NaN, so no implementation may canonicalise a payload), integers random bytes.
     */
    static Tensor random(DataType dt, long[] shape, Random rnd) {
        Tensor t = Tensor.allocateHost(dt, shape);
        long es = dt.byteSize();
        for (long i = 0; i < t.elementCount(); i++) {
            long off = i * es;
            switch (dt.kind()) {
                case BOOL -> t.segment().set(ValueLayout.JAVA_BYTE, off, (byte) rnd.nextInt(2));
                case FLOAT -> {
                    if (es == 4) {
                        t.segment().set(ValueLayout.JAVA_FLOAT_UNALIGNED, off,
                                (float) (Math.sin(i * 0.01) * 50 + rnd.nextGaussian() * 0.1));
                    } else {
                        t.segment().set(ValueLayout.JAVA_DOUBLE_UNALIGNED, off,
                                Math.cos(i * 0.3) * 1e3 + rnd.nextGaussian());
                    }
                }
                default -> {
                    for (int b = 0; b < es; b++) {
                        t.segment().set(ValueLayout.JAVA_BYTE, off + b, (byte) rnd.nextInt(256));
                    }
                }
            }
        }
        return t;
    }
}
