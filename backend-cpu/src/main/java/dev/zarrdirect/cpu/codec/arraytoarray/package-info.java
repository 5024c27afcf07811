// SPDX-License-Identifier: Apache-2.0
/**
 * Array-to-array codecs on the CPU: {@code transpose} and numcodecs' {@code numcodecs.delta}.
 *
 * <h2>Kernel</h2>
 * A strided copy over the output in C order, with row copies when the last axis stays last and
 * cache tiles otherwise.
 */
package dev.zarrdirect.cpu.codec.arraytoarray;
