/* SPDX-License-Identifier: Apache-2.0 */
/* OpenCL entries of the byte-level kernels (zd_bytes.h). Single-file form: opencl/zd_bytes_flat.cl. */
#include "zd_portable.h"
#include "bytes/zd_bytes.h"

/* One chunk per group (local size <= 1024). mode: ZD_CRC32C_COMPUTE or ZD_CRC32C_VERIFY. */
__kernel void zd_crc32c_batch(const __global uchar *src, const __global ulong *offsets, const __global ulong *sizes,
                              __global uint *computed, __global uint *status, uint mode, uint n_chunks) {
    __local uint lanes[1024];
    uint c = (uint)get_group_id(0);
    if (c >= n_chunks) return;
    ulong n = sizes[c];
    ulong body = mode == ZD_CRC32C_VERIFY ? (n >= 4 ? n - 4 : 0) : n;
    uint crc = zd_crc32c_group(src + offsets[c], body, lanes);
    if (get_local_id(0) == 0) {
        computed[c] = crc;
        if (mode != ZD_CRC32C_VERIFY) status[c] = ZD_STATUS_OK;
        else if (n < 4) status[c] = ZD_STATUS_CORRUPT_TRUNCATED;
        else status[c] = crc == (uint)zd_load_le_thread(src + offsets[c], n, n - 4, 4u) ? ZD_STATUS_OK : ZD_STATUS_CORRUPT_CHECKSUM;
    }
}

/* In place; width = complex ? elem_size / 2 : elem_size. Grid-stride over elements. */
__kernel void zd_byteswap(__global uchar *data, ulong n_elems, uint width) {
    for (ulong i = get_global_id(0); i < n_elems; i += get_global_size(0)) zd_byteswap_thread(data, i, width);
}

/* params: out_shape[rank], src_stride_elems[rank]. Grid-stride over output elements. */
__kernel void zd_transpose(const __global uchar *src, __global uchar *dst, const __global ulong *params, uint rank,
                           uint elem, ulong n_elems) {
    for (ulong i = get_global_id(0); i < n_elems; i += get_global_size(0)) zd_transpose_thread(src, dst, params, rank, elem, i);
}

/* One chunk per group; boxes: 4*rank words per chunk (see zd_bytes.h). */
__kernel void zd_scatter(const __global uchar *chunks, ulong chunks_len, const __global ulong *chunk_offsets,
                         const __global ulong *boxes, __global uchar *dst, ulong dst_len, const __global ulong *dst_strides,
                         const __global uchar *fill, __global uint *status, uint rank, uint elem, uint n_chunks) {
    __local uint st;
    uint c = (uint)get_group_id(0);
    if (c >= n_chunks) return;
    uint s = zd_scatter_chunk_group(chunks, chunks_len, chunk_offsets[c], boxes + (ulong)c * 4u * rank, dst, dst_len,
                                    dst_strides, fill, rank, elem, &st);
    if (get_local_id(0) == 0) status[c] = s;
}
