// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.assemble;

import dev.zarrdirect.loader.LoaderSpec;
import dev.zarrdirect.loader.dataset.Variable;

import java.util.List;
import java.util.Map;

/**
 * The per-output-channel factors of {@code (x - mean) / std}, as the gather applies them:
 * {@code fma(x, scale, shift)} with {@code scale = 1/std} and {@code shift = -mean/std}, both
 * computed in double and rounded once to float.
 */
public final class Normalizer {

    private final float[] scale;
    private final float[] shift;

    private Normalizer(float[] scale, float[] shift) {
        this.scale = scale;
        this.shift = shift;
    }

    /** Identity for every channel a variable without an entry in {@code byVariable} has. */
    public static Normalizer of(List<Variable> variables, int channels, Map<String, LoaderSpec.Normalization> byVariable) {
        float[] scale = new float[channels];
        float[] shift = new float[channels];
        java.util.Arrays.fill(scale, 1f);
        for (Variable v : variables) {
            LoaderSpec.Normalization n = byVariable.get(v.name());
            if (n == null) {
                continue;
            }
            if (n.mean().length != v.channels().length) {
                throw new IllegalArgumentException("normalization of '" + v.name() + "' has " + n.mean().length
                        + " mean/std pairs but " + v.channels().length + " channels are selected");
            }
            for (int j = 0; j < v.channels().length; j++) {
                int c = v.firstOutputChannel() + j;
                scale[c] = (float) (1.0 / n.std()[j]);
                shift[c] = (float) (-n.mean()[j] / n.std()[j]);
            }
        }
        return new Normalizer(scale, shift);
    }

    public float scale(int outputChannel) {
        return scale[outputChannel];
    }

    public float shift(int outputChannel) {
        return shift[outputChannel];
    }
}
