// SPDX-License-Identifier: Apache-2.0
/**
 * The stable surface of zarr-direct, JDK only: what plugin authors compile against.
 *
 * <h2>Contents</h2>
 * Devices and their DLPack codes ({@link dev.zarrdirect.api.Device}, {@link dev.zarrdirect.api.DeviceType}),
 * element types ({@link dev.zarrdirect.api.DataType}), tensors ({@link dev.zarrdirect.api.Tensor}) and the
 * exception hierarchy rooted at {@link dev.zarrdirect.api.ZarrDirectException}, whose messages name the
 * store, key, codec and chunk involved. Sub-packages: {@code buffer} (memory), {@code store} (key-value
 * stores), {@code codec} (the batch-first codec SPI), {@code backend} (device families), {@code settings}
 * (typed settings, parsed once at start; a bad value is an {@link dev.zarrdirect.api.InvalidSettingException}),
 * {@code dlpack}.
 *
 * <h2>Exceptions</h2>
 * Every exception is unchecked and extends {@link dev.zarrdirect.api.ZarrDirectException}:
 * <ul>
 *   <li>{@link dev.zarrdirect.api.StoreException}: a store operation failed; its subclasses
 *       {@link dev.zarrdirect.api.NoSuchKeyException} (a key that had to exist does not),
 *       {@link dev.zarrdirect.api.NoSuchNodeException} (no array or group at a path) and
 *       {@link dev.zarrdirect.api.InvalidKeyException} (a key that would leave the store's root).</li>
 *   <li>{@link dev.zarrdirect.api.CodecException}: a codec failed on a chunk; its subclass
 *       {@link dev.zarrdirect.api.CorruptChunkException} (bytes that cannot be decoded) and that one's
 *       {@link dev.zarrdirect.api.ChecksumMismatchException} (with both checksums).</li>
 *   <li>{@link dev.zarrdirect.api.InvalidMetadataException}, {@link dev.zarrdirect.api.InvalidSettingException},
 *       {@link dev.zarrdirect.api.MissingCodecException} and
 *       {@link dev.zarrdirect.api.MissingBackendException}: bad input or a missing plugin, found when
 *       an array is opened or a context starts.</li>
 * </ul>
 * Misuse of an API (a negative size, a closed buffer) is reported with the JDK's exceptions
 * ({@link java.lang.IllegalArgumentException}, {@link java.lang.IllegalStateException}), as the
 * JDK does.
 *
 * <h2>Units</h2>
 * Sizes and offsets named {@code byte…} are in bytes; shapes, extents and {@link dev.zarrdirect.api.Tensor}
 * strides are in elements. Everything is a {@code long}: there is no 2 GiB limit.
 *
 * <h2>Compatibility</h2>
 * Nothing here imports a third-party class (an ArchUnit rule checks it), so a plugin depends on this
 * jar alone.
 */
package dev.zarrdirect.api;
