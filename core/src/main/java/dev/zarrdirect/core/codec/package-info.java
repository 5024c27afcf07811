// SPDX-License-Identifier: Apache-2.0
/**
 * Specifications of the codecs the Zarr v3 core defines: kinds, configuration validation and
 * defaults. Their implementations live in the backends; the orchestration of
 * {@code sharding_indexed} lives in {@link dev.zarrdirect.core.pipeline}.
 */
package dev.zarrdirect.core.codec;
