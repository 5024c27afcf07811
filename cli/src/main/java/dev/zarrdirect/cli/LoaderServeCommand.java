// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.loader.server.LoaderServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * The JVM side of the Python {@code zarr_direct.torch.ZarrLoader}: started by it, never by hand.
 * Connects to the Unix-domain socket the Python process listens on and serves batches until that
 * process closes the loader or goes away (docs/loader-protocol.md).
 */
@Command(name = "loader-serve", mixinStandardHelpOptions = true,
        description = {"Serve batches to a Python ZarrLoader over a Unix-domain socket (started by the Python"
                + " package zarr_direct; see docs/loader-protocol.md)."})
final class LoaderServeCommand implements Callable<Integer> {

    @Option(names = "--socket", required = true, paramLabel = "PATH",
            description = "The Unix-domain socket the Python process listens on.")
    Path socket;

    @Option(names = "--shm-prefix", required = true, paramLabel = "NAME",
            description = "Prefix of the shared-memory files of the slots, in /dev/shm.")
    String shmPrefix;

    @Override
    public Integer call() throws Exception {
        return LoaderServer.serve(socket, shmPrefix);
    }
}
