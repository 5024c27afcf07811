// SPDX-License-Identifier: Apache-2.0
/** A user's module: it requires the library's core and nothing else of it. */
module dev.zarrdirect.example {
    requires dev.zarrdirect.core;
}
