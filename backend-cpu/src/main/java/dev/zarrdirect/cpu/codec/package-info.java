/**
 * What the CPU codecs share: configuration reading with precise errors
 * ({@link dev.zarrdirect.cpu.codec.CodecConfig}) and the per-item loop that fails one chunk
 * without spoiling its batch ({@link dev.zarrdirect.cpu.codec.CodecItems}).
 *
 * <h2>Layout</h2>
 * Codecs live in one package per kind of the Zarr v3 specification: {@code arraytoarray},
 * {@code arraytobytes}, {@code bytestobytes}.
 */
package dev.zarrdirect.cpu.codec;
