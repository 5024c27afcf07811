// SPDX-License-Identifier: Apache-2.0
/**
 * Zarr v3 metadata: the {@code zarr.json} of arrays and groups, codecs as written in metadata,
 * fill values and chunk key encodings.
 *
 * <h2>Reading</h2>
 * {@link dev.zarrdirect.core.metadata.Metadata#parseNode} reads any node;
 * {@link dev.zarrdirect.core.metadata.ArrayMetadata#parse} and
 * {@link dev.zarrdirect.core.metadata.GroupMetadata#parse} read one kind. Each takes the store key of
 * the document and names it, with the field and the value seen, in every
 * {@link dev.zarrdirect.api.InvalidMetadataException}. Validation follows the spec: what it does not
 * allow is refused, not guessed at. Two leniencies, both for documents zarr-python writes:
 * {@code "dimension_names": null} reads as absent, and {@code "consolidated_metadata": null} in a
 * group is kept as an ignorable extension field.
 *
 * <h2>Extension fields</h2>
 * An unknown top-level field is allowed only as an object with {@code "must_understand": false}; it
 * is kept in {@code extraFields()} and written back as read. Codec names are not checked here: the
 * codec registry does that when an array is opened.
 *
 * <h2>Creating</h2>
 * {@link dev.zarrdirect.core.metadata.ArrayMetadata#builder} starts the metadata of a new array and
 * {@link dev.zarrdirect.core.metadata.Codecs} spells the specification's codecs:
 *
 * {@snippet :
 * ArrayMetadata md = ArrayMetadata.builder(new long[] {8760, 721, 1440}, DataType.FLOAT32)
 *         .chunks(1, 721, 1440).shards(24, 721, 1440)
 *         .compressors(Codecs.zstd(3)).fillValue(Double.NaN).build();
 * }
 *
 * <h2>Writing</h2>
 * {@code toJson()} writes canonical documents: fields in the spec's order, fill values in the form
 * that reads back to the same bytes (NaN payloads as hex), a newline at the end.
 *
 * <h2>Consolidated metadata</h2>
 * {@link dev.zarrdirect.core.metadata.InlineConsolidatedMetadata} is the Zarr v3 consolidated
 * metadata zarr-python 3 writes inline into a group's {@code zarr.json}; it lets a group list and
 * open its members without listing or reading the store. Zarr v2 documents ({@code .zarray},
 * {@code .zgroup}, {@code .zmetadata}) are read and written by the subpackage {@code metadata.v2},
 * through {@link dev.zarrdirect.core.Zarr}.
 *
 * <h2>Values</h2>
 * All types but {@link dev.zarrdirect.core.metadata.ArrayMetadataBuilder} are immutable and
 * thread-safe. Records with array components copy them in and out, and
 * compare them by content. JSON values ({@code attributes}, codec configurations, extension fields)
 * use the plain value model of {@code dev.zarrdirect.core.json}: {@code Map<String, Object>} in
 * document order, {@code List<Object>}, {@code String}, {@code Long} (or {@code BigInteger}),
 * {@code Double}, {@code Boolean} and {@code null}; maps given to a constructor are deep-copied, and
 * {@code Integer}s and {@code Float}s in them are widened to {@code Long} and {@code Double}.
 */
package dev.zarrdirect.core.metadata;
