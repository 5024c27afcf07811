/* SPDX-License-Identifier: Apache-2.0 */
/* Single translation unit for the fatbin: every CUDA entry of the project. */
#include "cuda/zd_zstd.cu"
#include "cuda/zd_zstd_mp.cu"
#include "cuda/zd_bytes.cu"
#include "cuda/zd_gather.cu"
#include "cuda/zd_blosc.cu"
#include "cuda/zd_inflate.cu"
#include "cuda/zd_delta.cu"
