// SPDX-License-Identifier: Apache-2.0
/**
 * What the Zarr v3 specification says about a codec, independent of the device that runs it:
 * reading and validating its {@code configuration}, and the shape and layout arithmetic that
 * follows from it. Every backend's codec of one name builds on the same class here, so a
 * configuration is valid on one device exactly when it is valid on every other, with the same
 * message.
 *
 * <h2>Classes</h2>
 * <ul>
 *   <li>{@link dev.zarrdirect.api.codec.spec.CodecConfigReader}: typed reads of configuration
 *       fields, rejecting unknown fields and ill-typed values with messages that name the codec,
 *       the field and the value.</li>
 *   <li>{@link dev.zarrdirect.api.codec.spec.TransposeOrder}: the {@code transpose} codec's
 *       {@code order} permutation, the encoded and decoded chunk specs and the input strides of a
 *       copy that writes its output in C order.</li>
 *   <li>{@link dev.zarrdirect.api.codec.spec.BytesEndian}: the {@code bytes} codec's
 *       {@code endian}, which may be absent only for data types whose swap unit is one byte.</li>
 * </ul>
 *
 * <h2>Errors</h2>
 * A configuration that does not fit is an {@link java.lang.IllegalArgumentException}, as the
 * {@link dev.zarrdirect.api.codec.CodecProvider} contract asks; so is a chunk spec that the
 * configuration cannot code (a rank that does not match the order, an endian-less multi-byte type).
 */
package dev.zarrdirect.api.codec.spec;
