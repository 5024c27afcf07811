// SPDX-License-Identifier: Apache-2.0
/**
 * The read engine: runs {@link dev.zarrdirect.core.plan.ReadPlan}s, fetch then decode then place.
 *
 * <h2>The engine</h2>
 * One {@link dev.zarrdirect.core.exec.ReadEngine} per context owns the worker threads, the host
 * scratch memory it lends to each task ({@link dev.zarrdirect.core.pipeline.HostScratch}: no
 * thread-local slots), and the device pipeline. {@code ZarrArray} builds a plan and hands it here;
 * nothing of the schedule lives in the array facade.
 *
 * <h2>Host reads</h2>
 * Each store request of a plan is a task on the workers, with a bounded number in flight
 * ({@link dev.zarrdirect.core.exec.ParallelChunks}); a read started on a worker runs its tasks
 * inline rather than wait for a free worker.
 *
 * <h2>Device reads</h2>
 * One coordinator thread runs every device read as one stream of batches: batches are cut as the
 * plan's parts are planned (by chunk count and decoded bytes, {@link dev.zarrdirect.core.ReadSettings}),
 * fetched ahead of the batch being decoded, and decoded several at once on the workers. Reads
 * queued with {@link dev.zarrdirect.core.exec.ReadEngine#readToDeviceAsync} share the window, so the
 * next read is fetched while the one before decodes. A read that fails or is cancelled ends only
 * once none of its batches touches its destination.
 *
 * <h2>Listening</h2>
 * {@link dev.zarrdirect.core.exec.ReadListener}s hear each read's start, spans and end; the
 * {@link dev.zarrdirect.core.exec.TraceListener} prints them ({@code zarrdirect.trace=true}).
 */
package dev.zarrdirect.core.exec;
