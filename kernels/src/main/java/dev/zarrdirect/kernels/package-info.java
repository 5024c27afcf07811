/**
 * The Java side of the device kernels: the status codes they write ({@code zd_status.h}), mirrored.
 *
 * <h2>Sources</h2>
 * The kernels themselves are portable C under {@code src/main/c}, shipped as resources under
 * {@code dev/zarrdirect/kernels/} with the CUDA fatbin built by nvcc.
 */
package dev.zarrdirect.kernels;
