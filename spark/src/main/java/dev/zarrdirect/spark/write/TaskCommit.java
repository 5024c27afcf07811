// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark.write;

import org.apache.spark.sql.connector.write.WriterCommitMessage;

import java.io.Serial;
import java.util.List;

/**
 * What a task attempt left in its staging directory when it committed: the whole chunks it encoded
 * (keys relative to the group) and the parts of chunks it saw only some rows of (grid indices; one
 * fragment file each). Only the attempt Spark let commit is in the job's list; other attempts'
 * directories are deleted with the staging directory.
 *
 * @param attemptDir the attempt's staging directory
 * @param chunkKeys  the whole chunks' keys, one per variable and chunk
 * @param fragments  the grid indices of the chunks it holds a part of
 */
record TaskCommit(String attemptDir, List<String> chunkKeys, List<long[]> fragments) implements WriterCommitMessage {

    @Serial
    private static final long serialVersionUID = 1L;
}
