// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.core;

import dev.zarrdirect.core.exec.ReadEngine;

/** Lets tests in other packages reach the context's package-private engine. */
public final class ContextInternals {
    private ContextInternals() {
    }

    @SuppressWarnings("exports")
    public static ReadEngine engine(ZarrContext ctx) {
        return ctx.engine();
    }
}
