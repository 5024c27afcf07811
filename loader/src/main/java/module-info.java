// SPDX-License-Identifier: Apache-2.0
/**
 * The training loader behind {@code zarr-direct loader-serve}: windows of a Zarr group assembled into
 * batches on the device and handed to PyTorch (see {@code docs/loader-protocol.md}). Its Java types
 * serve the command line; they are not a stable API yet and are exported to it alone.
 */
module dev.zarrdirect.loader {
    requires dev.zarrdirect.core;
    requires com.fasterxml.jackson.databind;
    requires jdk.management;

    exports dev.zarrdirect.loader to dev.zarrdirect.cli;
    exports dev.zarrdirect.loader.dataset to dev.zarrdirect.cli;
    exports dev.zarrdirect.loader.server to dev.zarrdirect.cli;
    exports dev.zarrdirect.loader.stats to dev.zarrdirect.cli;
}
