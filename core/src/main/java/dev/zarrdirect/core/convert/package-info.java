// SPDX-License-Identifier: Apache-2.0
/**
 * Conversion: rewrite a Zarr array, or every array of a group, into a new store with other chunks,
 * sharding, codecs, byte order or Zarr format, with bounded memory, resumable after an
 * interruption. The engine of {@code zarr-direct convert}, which only parses options into
 * {@link dev.zarrdirect.core.convert.ConvertOptions} and prints what a
 * {@link dev.zarrdirect.core.convert.ConvertListener} hears.
 *
 * <h2>Convert from Java</h2>
 * {@snippet :
 * ConvertOptions options = ConvertOptions.builder()
 *         .chunks(1, -1, -1, -1)                 // one time step per chunk, -1: the whole dimension
 *         .shard(4, -1, -1, -1)                  // four chunks to a shard
 *         .codecs(List.of(CodecMetadata.of("zstd", Map.of("level", 5L))))
 *         .build();
 * ConvertResult result = new Converter(options).convert(source.toString(), destination);
 * if (!result.complete()) {
 *     throw new IllegalStateException("stopped early; run it again to resume");
 * }
 * }
 * (The code {@code ConverterTest.theJavadocExampleShardsOneStepChunksFourToAShard} runs between its
 * {@code example-begin} and {@code example-end} markers; a test checks that the two agree.) Options left unset keep
 * what the source has; codec configuration left out gets defaults that other readers need spelled
 * out (zstd level 3, gzip level 5, blosc lz4 level 5 with shuffle).
 *
 * <h2>Types</h2>
 * <ul>
 *   <li>{@link dev.zarrdirect.core.convert.Converter} runs conversions: from a location (directory,
 *       .zip or URL) into a directory or a new .zip, or from a store into a store.</li>
 *   <li>{@link dev.zarrdirect.core.convert.ConvertOptions}, immutable, made by its builder, which
 *       checks that the options fit together.</li>
 *   <li>{@link dev.zarrdirect.core.convert.ConvertListener} hears the plan
 *       ({@link dev.zarrdirect.core.convert.ConvertSummary}), the shards as they are written, packing
 *       and verification; {@link dev.zarrdirect.core.convert.ConvertResult} says how it ended.</li>
 * </ul>
 *
 * <h2>Resuming</h2>
 * While a conversion runs, the destination holds a journal at
 * {@value dev.zarrdirect.core.convert.Converter#JOURNAL_KEY} naming the source, SHA-256 digests of
 * the source's and the target's metadata, and the shards written so far as half-open ranges of their
 * C-order indices; its format is the one {@code zarr-direct convert} has always written. A run with
 * the same source and the same layout options resumes it; one with other options is refused with a
 * {@link dev.zarrdirect.core.convert.ConvertException} unless
 * {@link dev.zarrdirect.core.convert.ConvertOptions#overwrite()}. How the run goes (threads, blocks,
 * memory, verify, the stop after {@code maxShards}) is not part of the journal's identity.
 *
 * <h2>Threads and resources</h2>
 * {@code Converter} and {@code ConvertOptions} are immutable and may be shared. A conversion runs on
 * the calling thread and threads of its own, which it stops before returning; it opens and closes
 * its own contexts and, for {@code convert(String, Path)}, its stores. Stores passed to
 * {@code convert(Store, String, Store)} stay open: the caller closes them.
 *
 * <h2>Errors</h2>
 * {@link dev.zarrdirect.core.convert.ConvertOptionsException} (an {@link IllegalArgumentException})
 * for options that do not fit together or do not fit the source, thrown before anything is written;
 * {@link dev.zarrdirect.core.convert.ConvertException} for a missing source, a destination that must
 * not be touched, an unreadable journal or different elements found by verify. Messages name each
 * option as the CLI spells it ({@code --shard} for {@code shard(...)}). The engine prints nothing.
 *
 * <h2>Missing</h2>
 * Converting a node below the root of the source, changing the data type, and cancelling a running
 * conversion from another thread (a {@code maxShards} budget is the only stop).
 */
package dev.zarrdirect.core.convert;
