// SPDX-License-Identifier: Apache-2.0
/**
 * Single-core throughput harnesses of the CPU codecs, run as programs; they time, they never assert.
 *
 * <h2>Mains</h2>
 * {@link dev.zarrdirect.cpu.bench.ZstdThroughput} and {@link dev.zarrdirect.cpu.bench.BloscThroughput}
 * decode ERA5-like chunks ({@link dev.zarrdirect.testkit.SyntheticEra5}) on one thread and print GB/s.
 * {@link dev.zarrdirect.cpu.bench.ZstdHuffmanCheckCost} prints what the CPU zstd codec's Huffman
 * stream check costs next to libzstd alone, by level, checksum and chunk size.
 */
package dev.zarrdirect.cpu.bench;
