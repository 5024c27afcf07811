// SPDX-License-Identifier: Apache-2.0
/**
 * What the CPU codecs share: the per-item loop that fails one chunk without spoiling its batch
 * ({@link dev.zarrdirect.cpu.codec.CodecItems}). Configurations are read with the rules every
 * backend shares ({@link dev.zarrdirect.api.codec.spec.CodecConfigReader}).
 *
 * <h2>Layout</h2>
 * Codecs live in one package per kind of the Zarr v3 specification: {@code arraytoarray},
 * {@code arraytobytes}, {@code bytestobytes}.
 */
package dev.zarrdirect.cpu.codec;
