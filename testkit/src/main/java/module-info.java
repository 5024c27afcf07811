// SPDX-License-Identifier: Apache-2.0
/** Synthetic ERA5-like data for the demo, the tests and the benchmarks. */
module dev.zarrdirect.testkit {
    requires transitive dev.zarrdirect.core;

    exports dev.zarrdirect.testkit;
}
