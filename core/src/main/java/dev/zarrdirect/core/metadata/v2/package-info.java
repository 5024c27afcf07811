// SPDX-License-Identifier: Apache-2.0
/**
 * Zarr v2: {@code .zarray}, {@code .zgroup}, {@code .zattrs} and consolidated {@code .zmetadata},
 * translated into the v3 model the engine runs, and written back.
 *
 * <h2>Translation</h2>
 * {@link dev.zarrdirect.core.metadata.v2.V2ArrayMetadata} keeps the {@code .zarray} document and
 * offers its v3 reading, an {@link dev.zarrdirect.core.metadata.ArrayMetadata}: the NumPy
 * {@code dtype} becomes the element type and the {@code bytes} codec's endian
 * ({@link dev.zarrdirect.core.metadata.v2.V2DataType}); {@code order: "F"} a {@code transpose} with
 * reversed axes; {@code filters} and {@code compressor} the codecs
 * {@link dev.zarrdirect.core.metadata.v2.V2Codecs} lists; {@code dimension_separator} the {@code v2}
 * chunk key encoding; {@code fill_value} a fill value
 * ({@link dev.zarrdirect.core.metadata.v2.V2FillValue}; {@code null} reads as zero).
 *
 * <h2>Stores</h2>
 * {@link dev.zarrdirect.core.metadata.v2.V2Nodes} reads nodes (from the root's {@code .zmetadata}
 * when it lists them, else from each node's own documents), writes them and consolidates.
 * {@code Zarr.open} falls back to it when a path has no {@code zarr.json}. The store is always the
 * caller's: nothing here closes it. A {@code .zmetadata} is a snapshot: writing a node does not
 * update it, {@link dev.zarrdirect.core.metadata.v2.V2Nodes#consolidate} (or {@code Zarr.consolidate})
 * writes it again.
 *
 * <h2>Creating</h2>
 * {@snippet :
 * V2ArrayMetadata md = V2ArrayMetadata.builder(new long[] {100, 200}, new long[] {10, 50},
 *                 V2DataType.little(DataType.FLOAT32))
 *         .compressor(Map.of("id", "zstd", "level", 3L)).dimensionSeparator('/').build();
 * try (ZarrArray a = Zarr.createArrayV2(store, "t2m", md)) {
 *     // chunks are written as t2m/0/0 ...
 * }
 * }
 *
 * <h2>Values and threads</h2>
 * Every type here is immutable (the v2 array builder excepted) and safe for use by many threads.
 * Documents use the plain JSON value model of the metadata package ({@code Map<String, Object>} in
 * document order, {@code Long}, {@code Double} ...); shapes and chunk shapes count elements.
 *
 * <h2>Errors</h2>
 * Every {@link dev.zarrdirect.api.InvalidMetadataException} names the document's key, the field and
 * the value seen; unsupported features (datetime, string and structured types, filters and
 * compressors without a mapping) say what is supported instead.
 */
package dev.zarrdirect.core.metadata.v2;
