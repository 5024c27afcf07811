/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_blosc.h - blosc 1.x (format versions 1 and 2, what c-blosc 1.x writes) chunk decoding on
 * the device: header validation, and the decode of one block of one chunk by one work-group.
 * Accepts and rejects what the CPU reference BloscCodec.decodeOne does, condition for condition
 * (status words instead of exceptions; see zstd/zd_status.h).
 *
 * Frame: 16-byte header (version, versionlz, flags, typesize, nbytes, blocksize, cbytes; LE),
 * then, unless memcpyed (flags bit 1: raw data follows the header), nblocks int32 block starts,
 * then per block one stream or typesize "split" streams, each an int32 compressed size and that
 * many bytes (stored raw when the size equals the stream's decoded size). The last block may be
 * shorter; only whole blocks are split. Shuffles (flags bit 0 byte, bit 2 bit) are undone per
 * block (blosc/zd_shuffle.h). Compressors (flags bits 5-7): 0 blosclz, 1 lz4/lz4hc, 3 zlib
 * (through zd_zlib_decode_group: each blosc zlib stream is one zlib stream, Adler-32 checked, that
 * must end exactly at its compressed size), 4 zstd (through zd_zstd_decode_frame_group: each
 * blosc zstd stream is one zstd frame); 2 snappy gives ZD_STATUS_BLOSC_CODEC_UNSUPPORTED.
 *
 * How a batch runs without the host reading any header (the chunks may have arrived in device
 * memory by DMA):
 *   1. zd_blosc_plan: ONE group. Item i validates the header of chunk i (tiles of local_size
 *      chunks), writes status[i] (0 or the header's error) and its count of work units (0 for a
 *      bad chunk); an exclusive scan over the group turns the counts into
 *      plan[0..n_chunks] (plan[n_chunks] = total units). Header checks are O(1): block starts
 *      and streams are checked by step 2.
 *   2. zd_blosc_decode: a fixed grid of any number of groups. Group g takes units g,
 *      g + num_groups, ... < plan[n_chunks]; a binary search in plan gives the unit's chunk c and
 *      its index there. A unit is one block (or, for a memcpyed chunk, ZD_BLOSC_COPY_UNIT bytes of
 *      it), so the blocks of one chunk decode in parallel on different groups. A failing unit
 *      raises status[c] with an atomic max: when several blocks of a chunk fail, the chunk's word
 *      is the largest of their codes, the same under any schedule.
 * Inside a unit: item 0 walks the chain of stream sizes (bounds-checked) into local memory; raw
 * streams are copied by the whole group; lz4/blosclz streams are decoded by the whole group, up
 * to ZD_LZ_STREAMS side by side (blosc/zd_lz_group.h: one item per stream parses a batch of
 * sequences, every item copies their bytes, in pieces of up to ZD_LZ_PIECE bytes; with ZD_BLOSC_MODE_LZ_RESOLVE matches are resolved
 * by walking copy chains instead of in waves; with ZD_BLOSC_MODE_LZ_OVERLAP, where a part of the group can meet at a
 * barrier of its own (CUDA), the first warp parses each batch while the others copy the batch before), or with
 * ZD_BLOSC_MODE_LZ_THREAD one stream per item (items s, s + local_size, ...
 * of the up to 16 split streams, each copying its own bytes); zstd and zlib streams are decoded one
 * after another by the whole group (one stream is serial in both formats: its entropy decoding runs
 * on one item while the others write). Without a shuffle, streams decode straight into dst;
 * with one, into the group's scratch, which the group then unshuffles into dst.
 *
 * Memory:
 *   plan     ZD_BLOSC_PLAN_BYTES(n_chunks) global bytes (caller-owned, written by step 1).
 *   scratch  per group, ZD_BLOSC_SCRATCH_PER_GROUP(max_block) (zd_blosc_decode, all codecs) or
 *            ZD_BLOSC_LZ_SCRATCH_PER_GROUP(max_block) (zd_blosc_decode_lz, no zstd), where
 *            max_block is the largest blocksize the caller accepts: a shuffled block larger than
 *            the scratch gives ZD_STATUS_BLOSC_BLOCK_TOO_LARGE (a caller error: decode that
 *            chunk elsewhere). Unshuffled blocks need no scratch.
 *   local    zd_blosc_plan: ZD_SCAN_TMP_WORDS u64; the decode entries: sizeof(zd_blosc_lds) (the
 *            block's streams, under 256 bytes) and one region for the decoder of the unit's
 *            compressor (a unit uses one; the barrier that ends a unit frees it): zd_blosc_decode
 *            sizeof(zd_blosc_codec_lds) (the LZ batches, the zstd or the zlib state: about 25
 *            KiB), zd_blosc_decode_zstd sizeof(zd_blosc_zstd_lds) (the same without zlib),
 *            zd_blosc_decode_zlib sizeof(zd_blosc_zlib_lds) (without zstd: about 18 KiB),
 *            zd_blosc_decode_lz sizeof(zd_blosc_lz_lds) (about 8.3 KiB: ZD_LZ_STREAMS batches of
 *            ZD_LZ_BATCH sequences).
 * Limits: typesize 1..255 (the header's byte); blocks split into at most ZD_BLOSC_MAX_SPLITS
 * streams (as the format rule implies); nbytes, blocksize, cbytes below 2^32 (the format's
 * fields); a shuffled block no larger than the scratch given (the recommendation is
 * ZD_BLOSC_DEFAULT_MAX_BLOCK, 8 MiB; c-blosc 1.21's automatic blocksizes stay at or below 1 MiB).
 * On CUDA, the plan kernel needs a group of whole warps (zd_scan_excl_u64_group).
 */
#ifndef ZD_BLOSC_H
#define ZD_BLOSC_H

#include "zd_portable.h"
#include "zstd/zd_status.h"
#include "zstd/zd_zstd_frame.h"
#include "inflate/zd_zlib.h"
#include "blosc/zd_lz4.h"
#include "blosc/zd_blosclz.h"
#include "blosc/zd_shuffle.h"
#include "blosc/zd_lz_group.h"

#define ZD_BLOSC_HEADER_SIZE 16u
#define ZD_BLOSC_F_SHUFFLE 0x01u
#define ZD_BLOSC_F_MEMCPYED 0x02u
#define ZD_BLOSC_F_BITSHUFFLE 0x04u
#define ZD_BLOSC_F_DONTSPLIT 0x10u
#define ZD_BLOSC_CODEC_BLOSCLZ 0u
#define ZD_BLOSC_CODEC_LZ4 1u
#define ZD_BLOSC_CODEC_ZLIB 3u
#define ZD_BLOSC_CODEC_ZSTD 4u
#define ZD_BLOSC_MAX_VERSION 2u
#define ZD_BLOSC_MAX_SPLITS 16u
#define ZD_BLOSC_MIN_BUFFERSIZE 128u
/* A memcpyed chunk is copied in units of this many bytes (one group each). */
#define ZD_BLOSC_COPY_UNIT ((zd_u64)256u * 1024u)
/* zd_blosc_decode_unit_group's mode bits */
#define ZD_BLOSC_MODE_ZSTD 1u      /* decode zstd streams (needs zd_zstd_lds and the zstd scratch) */
#define ZD_BLOSC_MODE_LZ_THREAD 2u /* one item per lz4/blosclz stream instead of the whole group */
#define ZD_BLOSC_MODE_LZ_RESOLVE 4u /* matches resolved by walking their copy chains, not in waves */
#define ZD_BLOSC_MODE_ZLIB 8u      /* decode zlib streams (needs zd_zlib_lds; no global scratch) */
/* each batch parsed beside the execution of the batch before (lzl: two zd_blosc_lz_lds), where the
   group has a second warp and ZD_TAIL_BARRIER_OK; elsewhere the same as without */
#define ZD_BLOSC_MODE_LZ_OVERLAP 16u
#define ZD_BLOSC_DEFAULT_MAX_BLOCK ((zd_u64)8u * 1024u * 1024u)
#define ZD_BLOSC_ROUND16(x) ((((zd_u64)(x)) + 15u) & ~(zd_u64)15u)
#define ZD_BLOSC_PLAN_BYTES(n_chunks) (8u * ((zd_u64)(n_chunks) + 1u))
#define ZD_BLOSC_LZ_SCRATCH_PER_GROUP(max_block) ZD_BLOSC_ROUND16(max_block)
#define ZD_BLOSC_SCRATCH_PER_GROUP(max_block) (ZD_BLOSC_ROUND16(max_block) + ZD_ZSTD_SCRATCH_PER_FRAME)

typedef struct {
    zd_u32 flags, typesize, codec;
    zd_u64 nbytes, blocksize, cbytes, nblocks;
    zd_u64 units; /* work units of the chunk: blocks, or copy units when memcpyed */
} zd_blosc_hdr;

typedef struct {
    zd_u32 pos[ZD_BLOSC_MAX_SPLITS]; /* stream data start in the chunk */
    zd_u32 len[ZD_BLOSC_MAX_SPLITS]; /* compressed size */
    zd_u32 st[ZD_BLOSC_MAX_SPLITS];  /* per-stream status */
    zd_u32 status;
} zd_blosc_lds;

/* The decoders' local memory, one region a group: a unit decodes with one compressor, and every
   decoder starts from undefined local memory, so the states may share it. The fewer bytes (and
   registers) an entry needs, the more groups fit a SM: hence an entry for each compressor family,
   and one for every compressor that frames of another compressor than the metadata's go to. */
typedef struct {
    zd_lz_batch lz[ZD_LZ_STREAMS]; /* the cooperative LZ executor's batches */
} zd_blosc_lz_lds;
/* ZD_BLOSC_MODE_LZ_OVERLAP's: one part of the batches parsed while the other executes */
typedef struct {
    zd_blosc_lz_lds part[2];
} zd_blosc_lz2_lds;
typedef union {
    zd_blosc_lz_lds lz;
    zd_zstd_lds zstd;
} zd_blosc_zstd_lds;
typedef union {
    zd_blosc_lz_lds lz;
    zd_zlib_lds zlib;
} zd_blosc_zlib_lds;
typedef union {
    zd_blosc_lz_lds lz;
    zd_blosc_lz2_lds lz2; /* so that the host build's region holds ZD_BLOSC_MODE_LZ_OVERLAP's two parts */
    zd_zstd_lds zstd;
    zd_zlib_lds zlib;
} zd_blosc_codec_lds;
/* CUDA's static shared memory and NVIDIA's OpenCL local memory stop at 48 KiB a group */
ZD_STATIC_ASSERT(sizeof(zd_blosc_lds) + sizeof(zd_blosc_codec_lds) <= 48u * 1024u, zd_blosc_every_codec_fits_48k);

ZD_INLINE zd_u32 zd_blosc_le32(const ZD_GLOBAL zd_u8 *p) {
    return (zd_u32)p[0] | ((zd_u32)p[1] << 8) | ((zd_u32)p[2] << 16) | ((zd_u32)p[3] << 24);
}

/* The shared header parser: validates the 16-byte header of src[0, src_len) for dst_len decoded
   bytes, in the CPU reference's order. Per item; O(1). */
ZD_INLINE zd_u32 zd_blosc_header_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                        zd_blosc_hdr *h) {
    h->units = 0u;
    h->nblocks = 0u;
    if (src_len < ZD_BLOSC_HEADER_SIZE) return ZD_STATUS_CORRUPT_TRUNCATED;
    zd_u32 version = src[0];
    h->flags = src[2];
    h->typesize = src[3];
    h->nbytes = zd_blosc_le32(src + 4);
    h->blocksize = zd_blosc_le32(src + 8);
    h->cbytes = zd_blosc_le32(src + 12);
    h->codec = h->flags >> 5;
    if (version == 0u) return ZD_STATUS_CORRUPT_BLOSC_HEADER;
    if (version > ZD_BLOSC_MAX_VERSION) return ZD_STATUS_BLOSC_VERSION_UNSUPPORTED;
    if (h->nbytes != dst_len) return ZD_STATUS_CORRUPT_BLOSC_NBYTES;
    if (h->cbytes > src_len) return ZD_STATUS_CORRUPT_TRUNCATED;
    if (h->typesize == 0u) return ZD_STATUS_CORRUPT_BLOSC_HEADER;
    if (h->flags & ZD_BLOSC_F_MEMCPYED) {
        if (h->cbytes != h->nbytes + ZD_BLOSC_HEADER_SIZE) return ZD_STATUS_CORRUPT_BLOSC_HEADER;
        h->units = (h->nbytes + ZD_BLOSC_COPY_UNIT - 1u) / ZD_BLOSC_COPY_UNIT;
        return ZD_STATUS_OK;
    }
    if (h->nbytes == 0u) return ZD_STATUS_OK;
    if (h->blocksize == 0u) return ZD_STATUS_CORRUPT_BLOSC_HEADER;
    if ((h->flags & ZD_BLOSC_F_SHUFFLE) && (h->flags & ZD_BLOSC_F_BITSHUFFLE)) return ZD_STATUS_CORRUPT_BLOSC_HEADER;
    if (h->codec != ZD_BLOSC_CODEC_BLOSCLZ && h->codec != ZD_BLOSC_CODEC_LZ4 && h->codec != ZD_BLOSC_CODEC_ZLIB &&
        h->codec != ZD_BLOSC_CODEC_ZSTD)
        return ZD_STATUS_BLOSC_CODEC_UNSUPPORTED;
    h->nblocks = (h->nbytes + h->blocksize - 1u) / h->blocksize;
    if (ZD_BLOSC_HEADER_SIZE + 4u * h->nblocks > h->cbytes) return ZD_STATUS_CORRUPT_TRUNCATED;
    h->units = h->nblocks;
    return ZD_STATUS_OK;
}

/* Streams in a block of bsize bytes: the format's split rule (typesize streams for a whole block
   of a type of at most 16 bytes with at least 128 elements per stream, unless "don't split"). */
ZD_INLINE zd_u32 zd_blosc_splits_thread(const zd_blosc_hdr *h, zd_u64 bsize) {
    zd_u32 split = (h->flags & ZD_BLOSC_F_DONTSPLIT) == 0u && bsize == h->blocksize &&
                   h->typesize <= ZD_BLOSC_MAX_SPLITS && h->blocksize / h->typesize >= ZD_BLOSC_MIN_BUFFERSIZE;
    return split ? h->typesize : 1u;
}

/* The next batch of stream `stream` (lds->pos/len) into b, by the one item that parses it: an empty
   batch once the stream is finished (*fin: ended, failed, or a raw stream), else its next sequences
   (zd_lz4_parse_thread, zd_blosclz_parse_thread) from cursor c. A failing stream's status goes to
   lds->st and its batch is emptied, so nothing of it is executed. */
ZD_INLINE void zd_lz_parse_batch_thread(zd_u32 is_lz4, const ZD_GLOBAL zd_u8 *src, zd_u32 neblock,
                                        ZD_LOCAL zd_blosc_lds *lds, zd_u32 stream, zd_lz_cursor *c, zd_u32 *fin,
                                        ZD_LOCAL zd_lz_batch *b) {
    if (*fin) {
        b->n = 0u;
        b->nwaves = 0u;
        b->lit_pfx[0] = 0u;
        b->ml_pfx[0] = 0u;
        b->lit_pc[0] = 0u;
        b->ml_pc[0] = 0u;
        b->done = 1u;
        b->status = ZD_STATUS_OK;
        return;
    }
    const ZD_GLOBAL zd_u8 *in = src + lds->pos[stream];
    if (is_lz4) zd_lz4_parse_thread(c, in, lds->len[stream], neblock, b);
    else zd_blosclz_parse_thread(c, in, lds->len[stream], neblock, b);
    if (b->status != ZD_STATUS_OK) {
        lds->st[stream] = b->status;
        b->n = 0u; /* nothing of a failing stream is executed */
        b->nwaves = 0u;
    }
    if (b->done || b->status != ZD_STATUS_OK) *fin = 1u;
}

/* Decodes the lz4 (is_lz4) or BloscLZ streams 0..splits of a block (lds->pos/len; stream s
   into out + s * neblock; raw ones, len == neblock, already copied) with every item of the group,
   ZD_LZ_STREAMS streams at a time (blosc/zd_lz_group.h), in the batches lzl. Parsing goes on in every stream until
   it ends or fails, so the status is that of the lowest failing stream, as with one item per
   stream. Every item calls; the status is valid on all. */
ZD_FUNC zd_u32 zd_lz_decode_group(zd_u32 is_lz4, const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *out, zd_u32 neblock,
                                  zd_u32 splits, ZD_LOCAL zd_blosc_lds *lds, ZD_LOCAL zd_blosc_lz_lds *lzl,
                                  zd_u32 resolve) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    for (zd_u32 r0 = 0; r0 < splits; r0 += ZD_LZ_STREAMS) {
        zd_u32 m = splits - r0 < ZD_LZ_STREAMS ? splits - r0 : ZD_LZ_STREAMS;
        zd_lz_cursor cur[ZD_LZ_STREAMS];
        zd_u32 fin[ZD_LZ_STREAMS];
        for (zd_u32 k = 0; k < ZD_LZ_STREAMS; k++) {
            zd_lz_cursor_init_thread(&cur[k]);
            fin[k] = k >= m || lds->len[r0 + k] == neblock;
            if (k < m && lid == k % ls) lds->st[r0 + k] = ZD_STATUS_OK;
        }
        for (;;) {
            for (zd_u32 k = lid; k < m; k += ls) {
                /* a copy for the parse: cur[k], indexed by the item's id, lives in local memory, and
                   the parse updates its cursor at every sequence (5 local stores a sequence, seen in
                   Nsight Compute); the copy stays in registers */
                zd_lz_cursor c = cur[k];
                zd_u32 f = fin[k];
                zd_lz_parse_batch_thread(is_lz4, src, neblock, lds, r0 + k, &c, &f, &lzl->lz[k]);
                cur[k] = c;
                fin[k] = f;
            }
            ZD_BARRIER();
            zd_u32 all = 1u;
            for (zd_u32 k = 0; k < m; k++) all &= lzl->lz[k].done | (lzl->lz[k].status != ZD_STATUS_OK);
            if (resolve) zd_lz_execute_resolve_group(src, lds->pos + r0, out + (zd_u64)r0 * neblock, neblock, lzl->lz, m);
            else zd_lz_execute_group(src, lds->pos + r0, out + (zd_u64)r0 * neblock, neblock, lzl->lz, m);
            if (all) break;
        }
    }
    ZD_BARRIER(); /* the last streams' statuses are written before their last batch's barriers; this one is for lds->st of every round */
    zd_u32 st = ZD_STATUS_OK;
    for (zd_u32 s = 0; s < splits && st == ZD_STATUS_OK; s++) st = lds->st[s];
    return st;
}

/* The first item that executes in zd_lz_decode_overlap_group: the second warp, so that the
   parsing items (the first m) share their warp with no executing one. */
#define ZD_LZ_OVERLAP_FIRST_EXEC 32u

/* As zd_lz_decode_group (same arguments, status and barrier contract), where
   ZD_TAIL_BARRIER_OK(ZD_LZ_OVERLAP_FIRST_EXEC), with the parse of each batch beside the execution
   of the batch before: in each round, items 0 .. m - 1 parse the streams' next batches into one
   half of lzl[0..1] while the items from ZD_LZ_OVERLAP_FIRST_EXEC on execute the batches of the
   other half, in waves, meeting at a barrier of their own (zd_lz_execute_items); then the group
   meets and the halves swap. A round then takes the longer of the two where zd_lz_decode_group
   takes their sum (on an H200, 4 chunks of a TensorStore-written blosc lz4 store: the parse alone
   3.3 ms of the 6.0 the kernel takes). The output is the same: a batch executes in the round after
   the one that executed the batch before it (its earlier output is final), and a parse reads only
   the input. lzl: two zd_blosc_lz_lds, one after the other. */
ZD_FUNC zd_u32 zd_lz_decode_overlap_group(zd_u32 is_lz4, const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *out,
                                          zd_u32 neblock, zd_u32 splits, ZD_LOCAL zd_blosc_lds *lds,
                                          ZD_LOCAL zd_blosc_lz_lds *lzl) {
    zd_u32 lid = zd_local_id();
    for (zd_u32 r0 = 0; r0 < splits; r0 += ZD_LZ_STREAMS) {
        zd_u32 m = splits - r0 < ZD_LZ_STREAMS ? splits - r0 : ZD_LZ_STREAMS;
        zd_lz_cursor c;
        zd_lz_cursor_init_thread(&c);
        zd_u32 fin = 1u;
        if (lid < m) {
            fin = lds->len[r0 + lid] == neblock;
            lds->st[r0 + lid] = ZD_STATUS_OK;
            zd_lz_parse_batch_thread(is_lz4, src, neblock, lds, r0 + lid, &c, &fin, &lzl[0].lz[lid]);
        }
        ZD_BARRIER();
        for (zd_u32 cur = 0u;; cur ^= 1u) {
            /* every item reads the half that executes now: nobody writes it this round */
            zd_u32 all = 1u;
            for (zd_u32 k = 0; k < m; k++) all &= lzl[cur].lz[k].done | (lzl[cur].lz[k].status != ZD_STATUS_OK);
            if (lid < m) {
                if (!all)
                    zd_lz_parse_batch_thread(is_lz4, src, neblock, lds, r0 + lid, &c, &fin, &lzl[cur ^ 1u].lz[lid]);
            } else if (lid >= ZD_LZ_OVERLAP_FIRST_EXEC) {
                zd_lz_execute_items(src, lds->pos + r0, out + (zd_u64)r0 * neblock, neblock, lzl[cur].lz, m,
                                    ZD_LZ_OVERLAP_FIRST_EXEC);
            }
            ZD_BARRIER();
            if (all) break;
        }
    }
    ZD_BARRIER(); /* as in zd_lz_decode_group: lds->st of every round */
    zd_u32 st = ZD_STATUS_OK;
    for (zd_u32 s = 0; s < splits && st == ZD_STATUS_OK; s++) st = lds->st[s];
    return st;
}

/* Decodes work unit `unit` of the chunk src[0, src_len) -> dst[0, dst_len). Every item calls;
   the status is valid on every item. scratch: this group's scratch (see the header comment);
   mode: ZD_BLOSC_MODE_* bits; without ZD_BLOSC_MODE_ZSTD, zstd streams give
   ZD_STATUS_BLOSC_CODEC_UNSUPPORTED and zlds is not touched; without ZD_BLOSC_MODE_ZLIB, the same
   for zlib streams and flds. lzl, zlds and flds may share their memory. */
ZD_FUNC zd_u32 zd_blosc_decode_unit_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst,
                                          zd_u64 dst_len, zd_u64 unit, ZD_GLOBAL zd_u8 *scratch, zd_u64 scratch_len,
                                          ZD_LOCAL zd_blosc_lds *lds, ZD_LOCAL zd_blosc_lz_lds *lzl,
                                          ZD_LOCAL zd_zstd_lds *zlds, ZD_LOCAL zd_zlib_lds *flds, zd_u32 mode) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_blosc_hdr h;
    zd_u32 st = zd_blosc_header_thread(src, src_len, dst_len, &h);
    if (st != ZD_STATUS_OK) return st;
    if (unit >= h.units) return ZD_STATUS_BAD_ARGUMENT;
    if (h.flags & ZD_BLOSC_F_MEMCPYED) {
        zd_u64 off = unit * ZD_BLOSC_COPY_UNIT;
        zd_blosc_copy_group(src + ZD_BLOSC_HEADER_SIZE + off, dst + off, zd_min_u64(ZD_BLOSC_COPY_UNIT, h.nbytes - off));
        return ZD_STATUS_OK;
    }
    /* before the scratch check below, which counts the zstd decoder's scratch: a zstd frame in an
       entry without zstd must say "another entry", not "more scratch", or the codecs retry it with
       more scratch in the same entry and fail it (a frame whose streams are all stored raw would
       decode here, but it is rare, and the entry for every compressor decodes it too) */
    if ((h.codec == ZD_BLOSC_CODEC_ZSTD && !(mode & ZD_BLOSC_MODE_ZSTD)) ||
        (h.codec == ZD_BLOSC_CODEC_ZLIB && !(mode & ZD_BLOSC_MODE_ZLIB)))
        return ZD_STATUS_BLOSC_CODEC_UNSUPPORTED;
    zd_u64 start = unit * h.blocksize;
    zd_u64 bsize = zd_min_u64(h.blocksize, h.nbytes - start);
    zd_u64 first_data = ZD_BLOSC_HEADER_SIZE + 4u * h.nblocks;
    zd_u64 bstart = zd_blosc_le32(src + ZD_BLOSC_HEADER_SIZE + 4u * unit);
    if (bstart < first_data || bstart > h.cbytes - 4u) return ZD_STATUS_CORRUPT_BLOSC_BLOCK_OFFSET;
    zd_u32 splits = zd_blosc_splits_thread(&h, bsize);
    if (bsize % splits != 0u) return ZD_STATUS_CORRUPT_BLOSC_STREAM_SIZE;
    zd_u32 neblock = (zd_u32)(bsize / splits);
    zd_u64 n_elem = bsize / h.typesize;
    zd_u32 byte_sh = (h.flags & ZD_BLOSC_F_SHUFFLE) && h.typesize > 1u && n_elem > 0u;
    zd_u32 bit_sh = (h.flags & ZD_BLOSC_F_BITSHUFFLE) && n_elem > 0u && (n_elem & 7u) == 0u;
    /* an unshuffle that would only copy (bit shuffle of a block of n % 8 != 0 elements, byte
       shuffle of less than one element) is skipped: such blocks decode straight into dst */
    zd_u32 filtered = byte_sh || bit_sh;
    ZD_GLOBAL zd_u8 *out = dst + start;
    ZD_GLOBAL zd_u8 *zscratch = scratch;
    zd_u64 zlen = scratch_len;
    if (filtered) {
        /* a zstd block also needs the decoder's own scratch after the shuffled copy: without it
           the first block with Huffman-coded literals would fail as SCRATCH_TOO_SMALL, reported
           as a corrupt frame, where a retry with more scratch decodes it */
        zd_u64 need = ZD_BLOSC_ROUND16(bsize) + (h.codec == ZD_BLOSC_CODEC_ZSTD ? ZD_ZSTD_SCRATCH_PER_FRAME : 0u);
        if (need > scratch_len) return ZD_STATUS_BLOSC_BLOCK_TOO_LARGE;
        out = scratch;
        zscratch = scratch + ZD_BLOSC_ROUND16(bsize);
        zlen = scratch_len - ZD_BLOSC_ROUND16(bsize);
    }

    /* the stream sizes form a chain: one item walks it */
    if (lid == 0u) {
        zd_u64 pos = bstart;
        zd_u32 s0 = ZD_STATUS_OK;
        for (zd_u32 s = 0; s < splits; s++) {
            if (h.cbytes - pos < 4u) {
                s0 = ZD_STATUS_CORRUPT_TRUNCATED;
                break;
            }
            zd_i32 csize = (zd_i32)zd_blosc_le32(src + pos);
            pos += 4u;
            if (csize <= 0 || (zd_u64)csize > h.cbytes - pos) {
                s0 = ZD_STATUS_CORRUPT_BLOSC_STREAM_SIZE;
                break;
            }
            lds->pos[s] = (zd_u32)pos;
            lds->len[s] = (zd_u32)csize;
            pos += (zd_u64)csize;
        }
        lds->status = s0;
    }
    ZD_BARRIER();
    st = lds->status;
    if (st != ZD_STATUS_OK) {
        ZD_BARRIER();
        return st;
    }
    for (zd_u32 s = 0; s < splits; s++)
        if (lds->len[s] == neblock) zd_blosc_copy_group(src + lds->pos[s], out + (zd_u64)s * neblock, neblock);
    if (h.codec == ZD_BLOSC_CODEC_ZSTD || h.codec == ZD_BLOSC_CODEC_ZLIB) {
        zd_u32 zstd = h.codec == ZD_BLOSC_CODEC_ZSTD; /* this entry has its decoder: checked above */
        for (zd_u32 s = 0; s < splits && st == ZD_STATUS_OK; s++) {
            if (lds->len[s] == neblock) continue;
            if (zstd)
                st = zd_zstd_decode_frame_group(src + lds->pos[s], lds->len[s], out + (zd_u64)s * neblock, neblock,
                                                zscratch, zlen, zlds);
            else
                st = zd_zlib_decode_group(src + lds->pos[s], lds->len[s], out + (zd_u64)s * neblock, neblock, flds);
        }
    } else if ((mode & ZD_BLOSC_MODE_LZ_OVERLAP) && ls > ZD_LZ_OVERLAP_FIRST_EXEC &&
               ZD_TAIL_BARRIER_OK(ZD_LZ_OVERLAP_FIRST_EXEC)) {
        st = zd_lz_decode_overlap_group(h.codec == ZD_BLOSC_CODEC_LZ4, src, out, neblock, splits, lds, lzl);
    } else if (!(mode & ZD_BLOSC_MODE_LZ_THREAD)) {
        st = zd_lz_decode_group(h.codec == ZD_BLOSC_CODEC_LZ4, src, out, neblock, splits, lds, lzl,
                                (mode & ZD_BLOSC_MODE_LZ_RESOLVE) != 0u);
    } else {
        for (zd_u32 s = lid; s < splits; s += ls) {
            zd_u32 len = lds->len[s], sst = ZD_STATUS_OK;
            if (len != neblock) {
                const ZD_GLOBAL zd_u8 *in = src + lds->pos[s];
                ZD_GLOBAL zd_u8 *o = out + (zd_u64)s * neblock;
                if (h.codec == ZD_BLOSC_CODEC_LZ4) {
                    sst = zd_lz4_decode_thread(in, len, o, neblock);
                } else {
                    zd_u32 produced = 0u;
                    sst = zd_blosclz_decode_thread(in, len, o, neblock, &produced);
                    if (sst == ZD_STATUS_OK && produced != neblock) sst = ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW;
                }
            }
            lds->st[s] = sst;
        }
        ZD_BARRIER();
        for (zd_u32 s = 0; s < splits && st == ZD_STATUS_OK; s++) st = lds->st[s];
    }
    if (st == ZD_STATUS_OK && filtered) {
        ZD_BARRIER(); /* every stream is in scratch */
        if (byte_sh) zd_byte_unshuffle_group(out, dst + start, bsize, h.typesize);
        else zd_bit_unshuffle_group(out, dst + start, bsize, h.typesize);
    }
    ZD_BARRIER(); /* local memory and scratch are free for the next unit */
    return st;
}

/* Step 1 of a batch (see the header comment); one group, every item calls. scan_tmp:
   ZD_SCAN_TMP_WORDS u64 of local memory. */
ZD_FUNC void zd_blosc_plan_group(const ZD_GLOBAL zd_u8 *src, const ZD_GLOBAL zd_u64 *src_offsets,
                                 const ZD_GLOBAL zd_u64 *src_sizes, const ZD_GLOBAL zd_u64 *dst_sizes,
                                 ZD_GLOBAL zd_u64 *plan, ZD_GLOBAL zd_u32 *status, zd_u32 n_chunks,
                                 ZD_LOCAL zd_u64 *scan_tmp) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_u64 carry = 0u;
    for (zd_u32 t = 0; t < n_chunks; t += ls) {
        zd_u32 c = t + lid;
        zd_u64 units = 0u;
        if (c < n_chunks) {
            zd_blosc_hdr h;
            zd_u32 s = zd_blosc_header_thread(src + src_offsets[c], src_sizes[c], dst_sizes[c], &h);
            status[c] = s;
            units = s == ZD_STATUS_OK ? h.units : 0u;
        }
        zd_u64 total = 0u;
        zd_u64 ex = zd_scan_excl_u64_group(units, scan_tmp, &total);
        if (c < n_chunks) plan[c] = carry + ex;
        carry += total;
    }
    if (lid == 0u) plan[n_chunks] = carry;
}

/* The chunk holding unit u: the last c < n with plan[c] <= u (plan[n] > u). */
ZD_INLINE zd_u32 zd_blosc_chunk_of_unit(const ZD_GLOBAL zd_u64 *plan, zd_u32 n_chunks, zd_u64 u) {
    zd_u32 lo = 0u, hi = n_chunks; /* plan[lo] <= u < plan[hi] */
    while (hi - lo > 1u) {
        zd_u32 mid = lo + ((hi - lo) >> 1);
        if (plan[mid] <= u) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Step 2 of a batch: the grid-stride loop of group zd_group_id() over every unit. Every item
   calls. scratch + group * scratch_per_group is the group's scratch. */
ZD_FUNC void zd_blosc_decode_group(const ZD_GLOBAL zd_u8 *src, const ZD_GLOBAL zd_u64 *src_offsets,
                                   const ZD_GLOBAL zd_u64 *src_sizes, ZD_GLOBAL zd_u8 *dst,
                                   const ZD_GLOBAL zd_u64 *dst_offsets, const ZD_GLOBAL zd_u64 *dst_sizes,
                                   const ZD_GLOBAL zd_u64 *plan, ZD_GLOBAL zd_u8 *scratch, zd_u64 scratch_per_group,
                                   ZD_GLOBAL zd_u32 *status, zd_u32 n_chunks, ZD_LOCAL zd_blosc_lds *lds,
                                   ZD_LOCAL zd_blosc_lz_lds *lzl, ZD_LOCAL zd_zstd_lds *zlds,
                                   ZD_LOCAL zd_zlib_lds *flds, zd_u32 mode) {
    if (n_chunks == 0u) return;
    zd_u64 total = plan[n_chunks];
    ZD_GLOBAL zd_u8 *scr = scratch + (zd_u64)zd_group_id() * scratch_per_group;
    for (zd_u64 u = zd_group_id(); u < total; u += zd_num_groups()) {
        zd_u32 c = zd_blosc_chunk_of_unit(plan, n_chunks, u);
        zd_u32 s = zd_blosc_decode_unit_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c],
                                              u - plan[c], scr, scratch_per_group, lds, lzl, zlds, flds, mode);
        if (zd_local_id() == 0u && s != ZD_STATUS_OK) zd_atomic_max_u32(status + c, s);
    }
}

/* Defines decode entry NAME (cuda/zd_blosc.cu, opencl/zd_blosc.cl), step 2 of a batch: its local
   memory is the streams' table and one region of type STATE_T, named `st` here, that holds the
   decoders the entry has; LZ, ZSTD and ZLIB point into it (or are null for a decoder the entry
   leaves out, which MODE then leaves out too). */
#define ZD_BLOSC_DECODE_ENTRY(NAME, STATE_T, LZ, ZSTD, ZLIB, MODE)                                                   \
    ZD_KERNEL void NAME(const ZD_GLOBAL zd_u8 *src, const ZD_GLOBAL zd_u64 *src_offsets,                           \
                        const ZD_GLOBAL zd_u64 *src_sizes, ZD_GLOBAL zd_u8 *dst, const ZD_GLOBAL zd_u64 *dst_offsets, \
                        const ZD_GLOBAL zd_u64 *dst_sizes, const ZD_GLOBAL zd_u64 *plan, ZD_GLOBAL zd_u8 *scratch,   \
                        zd_u64 scratch_per_group, ZD_GLOBAL zd_u32 *status, zd_u32 n_chunks) {                    \
        ZD_LOCAL_DECL zd_blosc_lds lds;                                                                            \
        ZD_LOCAL_DECL STATE_T st;                                                                                  \
        zd_blosc_decode_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, plan, scratch,             \
                              scratch_per_group, status, n_chunks, &lds, LZ, ZSTD, ZLIB, MODE);                    \
    }
#define ZD_BLOSC_NO_ZSTD ((ZD_LOCAL zd_zstd_lds *)0)
#define ZD_BLOSC_NO_ZLIB ((ZD_LOCAL zd_zlib_lds *)0)

#endif
