/**
 * Throughput harnesses that the CLI's {@code bench} command calls; they time, they never assert.
 */
package dev.zarrdirect.cpu.bench;
