// SPDX-License-Identifier: Apache-2.0
/** The {@code zarr-direct} command line (picocli). */
module dev.zarrdirect.cli {
    requires dev.zarrdirect.core;
    requires dev.zarrdirect.loader;
    requires dev.zarrdirect.testkit;
    requires info.picocli;

    // picocli reads the command classes' annotations and sets their fields reflectively.
    opens dev.zarrdirect.cli to info.picocli;
}
