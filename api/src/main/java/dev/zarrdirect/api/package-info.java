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
 * <h2>Compatibility</h2>
 * Nothing here imports a third-party class (an ArchUnit rule checks it), so a plugin depends on this
 * jar alone.
 */
package dev.zarrdirect.api;
