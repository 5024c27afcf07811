// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.bench;

import java.util.HashMap;
import java.util.Map;

/** {@code --name value} pairs of a bench's command line. */
final class Args {

    private Args() {
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", args));
            }
            m.put(args[i].substring(2), args[++i]);
        }
        return m;
    }
}
