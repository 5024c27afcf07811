// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.StoreException;
import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.grid.Shapes;

import java.util.Locale;

/**
 * Work sized by a declared shape: a never-written array of 1 TiB has a few bytes of metadata and no
 * chunks, yet hashing or reading it means producing 1 TiB of fill value. Commands that walk every
 * element ({@code checksum}, {@code bench}) ask here first and refuse, within the time a listing
 * takes, when more than {@link #FILL_ONLY_LIMIT_BYTES} of the work would be fill value of chunks
 * never written, unless the user passes {@code --force}. Arrays whose chunks are stored are never
 * refused (their work is real and shows progress); neither are arrays in stores that cannot list
 * their keys (HTTP), where the chunks present cannot be counted cheaply.
 */
final class DeclaredWork {

    /** The most bytes of fill value (of chunks never written) a command produces without {@code --force}: 4 GiB. */
    static final long FILL_ONLY_LIMIT_BYTES = 4L << 30;

    private DeclaredWork() {
    }

    /**
     * Refuses work of {@code bytes} decoded bytes over {@code a} when, by the share of its chunks
     * never written, more than {@link #FILL_ONLY_LIMIT_BYTES} of it would be fill value.
     *
     * @param command the command and its subject, for the message ({@code "checksum of \"/t2m\""})
     * @param force   true to do it anyway ({@code --force})
     */
    static void check(ZarrArray a, long bytes, String command, boolean force) {
        if (force || bytes <= FILL_ONLY_LIMIT_BYTES) {
            return;
        }
        long total = a.chunkCount();
        long stored;
        try {
            stored = Math.min(total, InfoCommand.stored(a).keys());
        } catch (StoreException e) {
            return; // no listing: cannot tell, so the work goes ahead with its progress line
        }
        // An estimate: the missing share of the chunks times the bytes of the work.
        double missingShare = total == 0 ? 0 : (double) (total - stored) / total;
        long fillBytes = (long) (bytes * missingShare);
        if (fillBytes <= FILL_ONLY_LIMIT_BYTES) {
            return;
        }
        throw new ZarrDirectCli.CliFailure(String.format(Locale.ROOT,
                "%s would produce %s, about %s of it the fill value of chunks never written: the array %s %s declares"
                        + " %,d chunks and %,d of them are stored. That is minutes of work on nothing; refused above"
                        + " %s of fill value. Pass --force to do it anyway, or --region to take a part",
                command, Text.bytes(bytes), Text.human(fillBytes), a.dataType().name(), Shapes.format(a.shape()),
                total, stored, Text.human(FILL_ONLY_LIMIT_BYTES)));
    }
}
