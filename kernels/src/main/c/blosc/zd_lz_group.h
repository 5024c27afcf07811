/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_lz_group.h - cooperative execution of an LZ77 stream (LZ4 or BloscLZ) by a whole work-group.
 *
 * A stream decoded by one item copies every byte itself: on a GPU that is one slow thread per
 * stream. Here the work is split as in zstd's executor, for up to ZD_LZ_STREAMS streams at once
 * (the split streams of a block: independent, each with its own output):
 *   1. one item per stream parses up to ZD_LZ_BATCH sequences (literal run + match) without
 *      copying anything:
 *      only the token bytes are read, and every bounds check of the serial decoder is made, in the
 *      same order, so the statuses are the same as zd_lz4_decode_thread / zd_blosclz_decode_thread;
 *   2. all items copy every literal byte of the batches (they read only the input);
 *   3. all items copy the match bytes, in "waves" (wave w of every stream at once): a match joins the current wave when the bytes
 *      it reads all lie before the output of the wave's first match, or within its own literals
 *      (either way they are final: literals of the batch, or output of earlier batches or waves). An overlapping match (offset < length) reads
 *      byte k from out - offset + k mod offset, which is before its own output, so its bytes are
 *      independent too. A barrier ends each wave.
 * Phases 2 and 3 hand out pieces of up to ZD_LZ_PIECE bytes of one literal run or match, piece k
 * of a phase to item k mod local_size; each finds its stream among the streams' piece counts and
 * its sequence by a binary search over the batch's piece prefix sums, then issues all the piece's
 * loads before its stores, so that an item waits on memory once a piece. On an H100 that took
 * 1 GiB of lz4 + shuffle in 128 KiB blocks from 40.4 GB/s (bytes handed out one by one, each with
 * its own search and its own wait) to 52.8, and 4 chunks of 66 MB in 512 KiB blocks from 14.6 to
 * 16.8 (kernels/src/test/cuda/zd_blosc_check.cu). With so few blocks in flight (4 warps a SM) the
 * parse is most of the time: with no byte copied at all the 4 chunks still take 12.2 of their
 * 15.8 ms; the batch's counts kept in registers (zd_lz_cursor) took that case to 17.9 GB/s.
 *
 * Local memory: ZD_LZ_STREAMS * sizeof(zd_lz_batch) (about 8.3 KiB with ZD_LZ_BATCH 64).
 */
#ifndef ZD_LZ_GROUP_H
#define ZD_LZ_GROUP_H

#include "zd_portable.h"
#include "zstd/zd_status.h"

#ifndef ZD_LZ_BATCH
#define ZD_LZ_BATCH 64u /* sequences per stream and batch */
#endif
/* Streams parsed (one item each) and executed side by side: the split streams of a block. */
#define ZD_LZ_STREAMS 4u
#ifndef ZD_LZ_PIECE
#define ZD_LZ_PIECE 16u /* bytes an item copies for one lookup in zd_lz_execute_group */
#endif

typedef struct {
    zd_u32 lit_src[ZD_LZ_BATCH];     /* literal run start in the stream */
    zd_u32 out[ZD_LZ_BATCH];         /* output position of the sequence (its literals first) */
    zd_u32 off[ZD_LZ_BATCH];         /* match offset (0: no match) */
    zd_u32 lit_pfx[ZD_LZ_BATCH + 1u]; /* exclusive prefix sums of the literal lengths */
    zd_u32 ml_pfx[ZD_LZ_BATCH + 1u];  /* ... and of the match lengths */
    zd_u32 wave[ZD_LZ_BATCH + 1u];    /* wave w: sequences wave[w] .. wave[w + 1] - 1 */
    zd_u32 lit_pc[ZD_LZ_BATCH + 1u];  /* exclusive prefix sums of the literal runs' pieces (ZD_LZ_PIECE bytes) */
    zd_u32 ml_pc[ZD_LZ_BATCH + 1u];   /* ... and of the matches' pieces */
    zd_u32 n, nwaves, done, status;
} zd_lz_batch;

/* A parsing item's position in its stream, kept across batches, and the running counts of the
   batch it fills: kept in registers, not read back from the batch in local memory for every
   sequence (7% on the 4-chunk case of zd_blosc_check.cu, where the parse is most of a block's time). */
typedef struct {
    zd_u32 ip, op, ctrl;
    zd_u32 wave_out; /* output start of the current wave's first match; ~0: no wave open */
    zd_u32 n, nwaves, lit_sum, ml_sum, lit_pcs, ml_pcs;
} zd_lz_cursor;

ZD_INLINE void zd_lz_cursor_init_thread(zd_lz_cursor *c) {
    c->ip = 0u;
    c->op = 0u;
    c->ctrl = 0u;
    c->wave_out = 0xFFFFFFFFu;
    c->n = 0u;
    c->nwaves = 0u;
    c->lit_sum = 0u;
    c->ml_sum = 0u;
    c->lit_pcs = 0u;
    c->ml_pcs = 0u;
}

ZD_INLINE void zd_lz_batch_begin_thread(ZD_LOCAL zd_lz_batch *b, zd_lz_cursor *c) {
    b->n = 0u;
    b->nwaves = 0u;
    b->done = 0u;
    b->status = ZD_STATUS_OK;
    b->lit_pfx[0] = 0u;
    b->ml_pfx[0] = 0u;
    b->lit_pc[0] = 0u;
    b->ml_pc[0] = 0u;
    b->wave[0] = 0u;
    c->wave_out = 0xFFFFFFFFu; /* each batch's literals are copied before its first wave */
    c->n = 0u;
    c->nwaves = 0u;
    c->lit_sum = 0u;
    c->ml_sum = 0u;
    c->lit_pcs = 0u;
    c->ml_pcs = 0u;
}

/* Publishes the batch's counts (every parse ends with it, whatever it stopped on). */
ZD_INLINE void zd_lz_batch_end_thread(ZD_LOCAL zd_lz_batch *b, const zd_lz_cursor *c) {
    b->n = c->n;
    b->nwaves = c->nwaves;
    b->wave[c->nwaves] = c->n;
}

/* Appends one parsed sequence: lit bytes from the stream at lit_src to output `out`, then (ml > 0)
   ml bytes from off back. The output bookkeeping is the caller's (c->op); the counts reach the
   batch at zd_lz_batch_end_thread. */
ZD_INLINE void zd_lz_batch_push_thread(ZD_LOCAL zd_lz_batch *b, zd_lz_cursor *c, zd_u32 lit_src, zd_u32 lit,
                                       zd_u32 out, zd_u32 off, zd_u32 ml) {
    zd_u32 i = c->n;
    b->lit_src[i] = lit_src;
    b->out[i] = out;
    b->off[i] = off;
    c->lit_sum += lit;
    c->ml_sum += ml;
    c->lit_pcs += (lit + ZD_LZ_PIECE - 1u) / ZD_LZ_PIECE;
    c->ml_pcs += (ml + ZD_LZ_PIECE - 1u) / ZD_LZ_PIECE;
    b->lit_pfx[i + 1u] = c->lit_sum;
    b->ml_pfx[i + 1u] = c->ml_sum;
    b->lit_pc[i + 1u] = c->lit_pcs;
    b->ml_pc[i + 1u] = c->ml_pcs;
    if (ml > 0u) {
        zd_u32 mo = out + lit;
        zd_u32 src_end = mo - off + (off < ml ? off : ml);
        /* reading only its own literals (off <= lit: a run after a literal, say) needs no wave */
        zd_u32 own = off <= lit;
        if (c->wave_out == 0xFFFFFFFFu || (src_end > c->wave_out && !own)) {
            b->wave[c->nwaves++] = i;
            c->wave_out = mo;
        }
    }
    c->n = i + 1u;
}

/* The last k in [lo, hi) with pfx[k] <= x (pfx non-decreasing, pfx[lo] <= x). */
ZD_INLINE zd_u32 zd_lz_search(const ZD_LOCAL zd_u32 *pfx, zd_u32 lo, zd_u32 hi, zd_u32 x) {
    while (hi - lo > 1u) {
        zd_u32 mid = lo + ((hi - lo) >> 1);
        if (pfx[mid] <= x) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* The barrier of the items that execute: the whole group (first 0), or items first .. local_size - 1
   (ZD_TAIL_BARRIER, where ZD_TAIL_BARRIER_OK(first)). */
ZD_INLINE void zd_lz_exec_barrier(zd_u32 first) {
    if (first > 0u) ZD_TAIL_BARRIER(first);
    else ZD_BARRIER();
}

/* Phases 2 and 3 for the batches bs[0..m) of m streams side by side, by items first ..
   local_size - 1 (first 0: the whole group; else only where ZD_TAIL_BARRIER_OK(first)): stream s
   reads src + in_pos[s] and writes dst + s * stride. Their literals are copied together, then wave
   w of every stream together (streams are independent, so only each stream's own wave order
   matters), in pieces (see the header comment). Every load of a piece may come before its stores:
   every byte a match reads lies before its own output (out - offset + k mod offset for an
   overlapping one), so no piece reads what it writes. Every executing item calls; ends with a
   barrier of theirs, after which (with first 0) the batches' owners may parse again: so no field
   of bs is read after the last barrier (the counts are cached). */
ZD_INLINE void zd_lz_execute_items(const ZD_GLOBAL zd_u8 *src, const ZD_LOCAL zd_u32 *in_pos, ZD_GLOBAL zd_u8 *dst,
                                   zd_u64 stride, const ZD_LOCAL zd_lz_batch *bs, zd_u32 m, zd_u32 first) {
    zd_u32 lid = zd_local_id() - first, ls = zd_local_size() - first;
    zd_u32 lit_base[ZD_LZ_STREAMS + 1u], nwaves = 0u;
    lit_base[0] = 0u;
    for (zd_u32 s = 0; s < ZD_LZ_STREAMS; s++) {
        zd_u32 ok = s < m;
        lit_base[s + 1u] = lit_base[s] + (ok ? bs[s].lit_pc[bs[s].n] : 0u);
        if (ok && bs[s].nwaves > nwaves) nwaves = bs[s].nwaves;
    }
    for (zd_u32 k = lid; k < lit_base[ZD_LZ_STREAMS]; k += ls) {
        zd_u32 s = 0;
        while (lit_base[s + 1u] <= k) s++;
        const ZD_LOCAL zd_lz_batch *b = bs + s;
        zd_u32 x = k - lit_base[s];
        /* the last sequence whose first piece is at or before x: runs of no piece come before it */
        zd_u32 j = zd_lz_search(b->lit_pc, 0u, b->n, x);
        zd_u32 i0 = (x - b->lit_pc[j]) * ZD_LZ_PIECE;
        zd_u32 lit = b->lit_pfx[j + 1u] - b->lit_pfx[j];
        zd_u32 len = lit - i0 < ZD_LZ_PIECE ? lit - i0 : ZD_LZ_PIECE;
        const ZD_GLOBAL zd_u8 *in = src + in_pos[s] + b->lit_src[j] + i0;
        ZD_GLOBAL zd_u8 *o = dst + (zd_u64)s * stride + b->out[j] + i0;
        zd_u8 v[ZD_LZ_PIECE];
        ZD_UNROLL
        for (zd_u32 t = 0; t < ZD_LZ_PIECE; t++) v[t] = t < len ? in[t] : (zd_u8)0u;
        ZD_UNROLL
        for (zd_u32 t = 0; t < ZD_LZ_PIECE; t++)
            if (t < len) o[t] = v[t];
    }
    zd_lz_exec_barrier(first);
    for (zd_u32 w = 0; w < nwaves; w++) {
        zd_u32 base[ZD_LZ_STREAMS + 1u];
        base[0] = 0u;
        for (zd_u32 s = 0; s < ZD_LZ_STREAMS; s++) {
            zd_u32 pieces = 0u;
            if (s < m && w < bs[s].nwaves) pieces = bs[s].ml_pc[bs[s].wave[w + 1u]] - bs[s].ml_pc[bs[s].wave[w]];
            base[s + 1u] = base[s] + pieces;
        }
        for (zd_u32 k = lid; k < base[ZD_LZ_STREAMS]; k += ls) {
            zd_u32 s = 0;
            while (base[s + 1u] <= k) s++;
            const ZD_LOCAL zd_lz_batch *b = bs + s;
            zd_u32 a = b->wave[w], e = b->wave[w + 1u];
            zd_u32 x = b->ml_pc[a] + (k - base[s]);
            zd_u32 j = zd_lz_search(b->ml_pc, a, e, x);
            zd_u32 i0 = (x - b->ml_pc[j]) * ZD_LZ_PIECE;
            zd_u32 ml = b->ml_pfx[j + 1u] - b->ml_pfx[j];
            zd_u32 len = ml - i0 < ZD_LZ_PIECE ? ml - i0 : ZD_LZ_PIECE;
            zd_u32 off = b->off[j];
            ZD_GLOBAL zd_u8 *o = dst + (zd_u64)s * stride + b->out[j] + (b->lit_pfx[j + 1u] - b->lit_pfx[j]);
            zd_u8 v[ZD_LZ_PIECE];
            if (off >= ml) {
                const ZD_GLOBAL zd_u8 *from = o + i0 - off;
                ZD_UNROLL
                for (zd_u32 t = 0; t < ZD_LZ_PIECE; t++) v[t] = t < len ? from[t] : (zd_u8)0u;
            } else {
                /* byte i repeats byte i mod off of the pattern just before the match */
                const ZD_GLOBAL zd_u8 *pat = o - off;
                zd_u32 r = i0 % off;
                ZD_UNROLL
                for (zd_u32 t = 0; t < ZD_LZ_PIECE; t++) {
                    v[t] = t < len ? pat[r] : (zd_u8)0u;
                    r = r + 1u == off ? 0u : r + 1u;
                }
            }
            ZD_UNROLL
            for (zd_u32 t = 0; t < ZD_LZ_PIECE; t++)
                if (t < len) o[i0 + t] = v[t];
        }
        zd_lz_exec_barrier(first);
    }
}

/* zd_lz_execute_items by the whole group. */
ZD_INLINE void zd_lz_execute_group(const ZD_GLOBAL zd_u8 *src, const ZD_LOCAL zd_u32 *in_pos, ZD_GLOBAL zd_u8 *dst,
                                   zd_u64 stride, const ZD_LOCAL zd_lz_batch *bs, zd_u32 m) {
    zd_lz_execute_items(src, in_pos, dst, stride, bs, m, 0u);
}

/* Phases 2 and 3 in one pass, without waves: the byte at a match position is found by following
   its source back (out - offset + k mod offset) through the batch's matches until it lands on a
   literal of the batch (read from the input) or before the batch's first output (final, from
   earlier batches). Each step goes strictly back, so the walk ends; its length is the depth of
   the copy chain inside the batch. Same arguments and barrier contract as zd_lz_execute_group. */
ZD_INLINE void zd_lz_execute_resolve_group(const ZD_GLOBAL zd_u8 *src, const ZD_LOCAL zd_u32 *in_pos,
                                           ZD_GLOBAL zd_u8 *dst, zd_u64 stride, const ZD_LOCAL zd_lz_batch *bs,
                                           zd_u32 m) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_u32 base[ZD_LZ_STREAMS + 1u];
    base[0] = 0u;
    for (zd_u32 s = 0; s < ZD_LZ_STREAMS; s++) {
        zd_u32 ok = s < m;
        base[s + 1u] = base[s] + (ok ? bs[s].lit_pfx[bs[s].n] + bs[s].ml_pfx[bs[s].n] : 0u);
    }
    for (zd_u32 k = lid; k < base[ZD_LZ_STREAMS]; k += ls) {
        zd_u32 s = 0;
        while (base[s + 1u] <= k) s++;
        const ZD_LOCAL zd_lz_batch *b = bs + s;
        ZD_GLOBAL zd_u8 *o = dst + (zd_u64)s * stride;
        zd_u32 first = b->out[0];
        /* the batch's output is contiguous from its first sequence: byte k - base[s] of it */
        zd_u32 p = first + (k - base[s]);
        zd_u32 t = p;
        zd_u8 v;
        for (;;) {
            if (p < first) {
                v = o[p];
                break;
            }
            zd_u32 q = zd_lz_search(b->out, 0u, b->n, p);
            zd_u32 lit = b->lit_pfx[q + 1u] - b->lit_pfx[q];
            zd_u32 mo = b->out[q] + lit;
            if (p < mo) {
                v = src[in_pos[s] + b->lit_src[q] + (p - b->out[q])];
                break;
            }
            zd_u32 i = p - mo, off = b->off[q], ml = b->ml_pfx[q + 1u] - b->ml_pfx[q];
            p = mo - off + (off < ml ? i % off : i);
        }
        o[t] = v;
    }
    ZD_BARRIER();
}

#endif
