// SPDX-License-Identifier: Apache-2.0
/**
 * The portable kernel sources (OpenCL C, CUDA) and the prebuilt CUDA binary, as resources, with the
 * few constants the device backends share with them. Only the device backends read it.
 */
module dev.zarrdirect.kernels {
    exports dev.zarrdirect.kernels to dev.zarrdirect.cuda, dev.zarrdirect.opencl;
}
