// SPDX-License-Identifier: Apache-2.0
/**
 * What the OpenCL codecs share: turning a batch into kernel arguments
 * ({@link dev.zarrdirect.opencl.codec.DeviceItems}, {@link dev.zarrdirect.opencl.codec.ChunkTable}),
 * the frame of every call ({@link dev.zarrdirect.opencl.codec.BatchRun}), a kernels-module program
 * ({@link dev.zarrdirect.opencl.codec.KernelProgram}), the identity of a codec
 * ({@link dev.zarrdirect.opencl.codec.OpenClDeviceCodec}) and the refusal to encode of the
 * compressors ({@link dev.zarrdirect.opencl.codec.OpenClDecodeOnlyCodec}). Configurations are read with the rules every
 * backend shares ({@link dev.zarrdirect.api.codec.spec.CodecConfigReader}).
 *
 * <h2>One launch per batch</h2>
 * Items are grouped by their pair of input and output {@code cl_mem}; each group is one launch per
 * stage. A batch sliced from one input buffer and one output buffer is one launch. Host buffers in
 * a batch are staged through one upload and one read-back.
 *
 * <h2>Failures</h2>
 * A bad chunk fails alone (its status word, or a host-side size check); a driver error fails the
 * items of its launch only.
 */
package dev.zarrdirect.opencl.codec;
