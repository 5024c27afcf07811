/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA entries of the byte-level kernels (zd_bytes.h); same contracts as opencl/zd_bytes.cl. */
#include "zd_portable.h"
#include "bytes/zd_bytes.h"

extern "C" __global__ void zd_crc32c_batch(const zd_u8 *src, const zd_u64 *offsets, const zd_u64 *sizes,
                                           zd_u32 *computed, zd_u32 *status, zd_u32 mode, zd_u32 n_chunks) {
    __shared__ zd_u32 lanes[1024];
    zd_u32 c = blockIdx.x;
    if (c >= n_chunks) return;
    zd_u64 n = sizes[c];
    zd_u64 body = mode == ZD_CRC32C_VERIFY ? (n >= 4 ? n - 4 : 0) : n;
    zd_u32 crc = zd_crc32c_group(src + offsets[c], body, lanes);
    if (threadIdx.x == 0) {
        computed[c] = crc;
        if (mode != ZD_CRC32C_VERIFY) status[c] = ZD_STATUS_OK;
        else if (n < 4) status[c] = ZD_STATUS_CORRUPT_TRUNCATED;
        else status[c] = crc == (zd_u32)zd_load_le_thread(src + offsets[c], n, n - 4, 4u) ? ZD_STATUS_OK : ZD_STATUS_CORRUPT_CHECKSUM;
    }
}

extern "C" __global__ void zd_byteswap(zd_u8 *data, zd_u64 n_elems, zd_u32 width) {
    for (zd_u64 i = (zd_u64)blockIdx.x * blockDim.x + threadIdx.x; i < n_elems; i += (zd_u64)gridDim.x * blockDim.x)
        zd_byteswap_thread(data, i, width);
}

extern "C" __global__ void zd_transpose(const zd_u8 *src, zd_u8 *dst, const zd_u64 *params, zd_u32 rank, zd_u32 elem,
                                        zd_u64 n_elems) {
    for (zd_u64 i = (zd_u64)blockIdx.x * blockDim.x + threadIdx.x; i < n_elems; i += (zd_u64)gridDim.x * blockDim.x)
        zd_transpose_thread(src, dst, params, rank, elem, i);
}

extern "C" __global__ void zd_scatter(const zd_u8 *chunks, zd_u64 chunks_len, const zd_u64 *chunk_offsets,
                                      const zd_u64 *boxes, zd_u8 *dst, zd_u64 dst_len, const zd_u64 *dst_strides,
                                      const zd_u8 *fill, zd_u32 *status, zd_u32 rank, zd_u32 elem, zd_u32 n_chunks) {
    __shared__ zd_u32 st;
    zd_u32 c = blockIdx.x;
    if (c >= n_chunks) return;
    zd_u32 s = zd_scatter_chunk_group(chunks, chunks_len, chunk_offsets[c], boxes + (zd_u64)c * 4u * rank, dst, dst_len,
                                      dst_strides, fill, rank, elem, &st);
    if (threadIdx.x == 0) status[c] = s;
}
