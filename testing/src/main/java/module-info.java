// SPDX-License-Identifier: Apache-2.0
/**
 * Contract tests and test wrappers for the authors of stores, backends, device codecs and direct
 * readers: extend a contract in your own tests and your implementation is held to what zarr-direct's
 * own are held to. Depends on the api and JUnit Jupiter's api alone.
 */
module dev.zarrdirect.testing {
    requires transitive dev.zarrdirect.api;
    requires transitive org.junit.jupiter.api;

    exports dev.zarrdirect.testing;
    // JUnit discovers and calls the contracts' package-private test methods reflectively.
    opens dev.zarrdirect.testing to org.junit.platform.commons;
}
