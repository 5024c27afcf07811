/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_mp_exec.h - pass 3 of the multi-pass zstd decoder (zd_zstd_mp.h): each block's sequences executed
 *   by a whole group.
 */
#ifndef ZD_ZSTD_MP_EXEC_H
#define ZD_ZSTD_MP_EXEC_H

#include "zstd/zd_zstd_mp_layout.h"

/* Pass 3 local memory: one batch of sequences, one per item. A block's output window (the
   block built in local memory, zd_zstd_mp_exec_group's `win`) lives beside it, not in it: it is
   128 KiB, more than static local memory allows on CUDA, and optional. */
typedef struct {
    zd_u64 scan[ZD_SCAN_TMP_WORDS];
    zd_u64 min_src;                /* smallest source position (in the chunk) of the batch's matches */
    zd_u32 rel[ZD_MPX_MAX_ITEMS];  /* output offset of the sequence in its block */
    zd_u32 ll[ZD_MPX_MAX_ITEMS];
    zd_u32 ml[ZD_MPX_MAX_ITEMS];
    zd_u32 off[ZD_MPX_MAX_ITEMS];  /* resolved offset */
    zd_u32 lit[ZD_MPX_MAX_ITEMS];  /* first literal, relative to the batch's first literal */
    zd_u32 lng[ZD_MPX_MAX_ITEMS];  /* this round's long matches (item indexes) */
    zd_u32 any[3], n_long[2];      /* per round: a match was pending (or a source moved), long matches */
    zd_u32 ticket, fail, far, long_lit;
} zd_mp_exec_lds;

/* Byte loops of pass 3 give each item a run of ZD_MPX_RUN consecutive bytes (one search finds
   the sequence of its first byte). Odd, so that the items of a warp, a run apart, start in
   different banks of local memory: with 16-byte runs the 4-byte pointers of zd_mp_jump_group
   were written 16 ways conflicted, the window bytes 4 ways. 9 rather than 17 since the set-up walk
   keeps its sequence in registers (sharded ERA5 frames' exec 21.7 -> 20.6 ms, 1 MiB level 3
   51.5 -> 52.9 GB/s; 33: 25.2 ms). */
#ifndef ZD_MPX_RUN
#define ZD_MPX_RUN 9u
#endif

/* The last of the batch's cnt sequences whose a[] (a sequence's first literal, lds->lit, or its
   output offset, lds->rel: both ascending) is at or before x. */
ZD_INLINE zd_u32 zd_mp_last_at_or_before(const ZD_LOCAL zd_u32 *a, zd_u32 cnt, zd_u32 x) {
    zd_u32 lo = 0u, hi = cnt - 1u;
    while (lo < hi) {
        zd_u32 mid = (lo + hi + 1u) >> 1;
        if (a[mid] <= x) lo = mid;
        else hi = mid - 1u;
    }
    return lo;
}

/* Byte s of the block's output: o[s] in the block, or g[s] (s < 0) in an earlier block, written
   by another group (past L1 with ZD_MPX_F_CG). */
ZD_INLINE zd_u8 zd_mp_src_byte(const zd_u8 *o, const ZD_GLOBAL zd_u8 *g, zd_i64 s, zd_u32 flags) {
    return s >= 0 ? o[s] : (flags & ZD_MPX_F_CG) ? zd_ld_cg_u8(g + s) : g[s];
}

/* ZD_MPX_F_DEFER's taint bits: whether block byte x (in the window) is marked, and marking it
   (an atomic or: the items of a warp mark neighbouring bytes of one word, while others read it). */
ZD_INLINE zd_u32 zd_mp_tainted(const ZD_LOCAL zd_u32 *taint, zd_u32 x) {
    return (((volatile const ZD_LOCAL zd_u32 *)taint)[x >> 5] >> (x & 31u)) & 1u;
}
ZD_INLINE void zd_mp_taint(ZD_LOCAL zd_u32 *taint, zd_u32 x) { zd_atomic_or_u32_local(&taint[x >> 5], 1u << (x & 31u)); }

/* ZD_MPX_F_DEFER: block byte x copies block byte s (s < 0: before the block, at out_at + s in the
   chunk). A source inside the block that is final is copied; otherwise x takes the source's ref
   (or the source itself, before the block) and is marked. Sources are final (or marked) before
   x is written, as for a plain copy. */
ZD_INLINE void zd_mp_defer_byte(zd_u8 *o, ZD_LOCAL zd_u32 *taint, ZD_GLOBAL zd_u32 *refs, zd_u64 out_at, zd_u32 x,
                                zd_i64 s) {
    if (s >= 0 && !zd_mp_tainted(taint, (zd_u32)s)) {
        o[x] = o[s];
        return;
    }
    refs[out_at + x] = s < 0 ? (zd_u32)((zd_i64)out_at + s) : refs[out_at + (zd_u64)s];
    zd_mp_taint(taint, x);
}

/* Per item: output bytes [x0, x1) of the batch's literals (x relative to its first literal). */
ZD_INLINE void zd_mp_lit_run_thread(const ZD_GLOBAL zd_u8 *lit, zd_u8 *o, const ZD_LOCAL zd_mp_exec_lds *lds,
                                    zd_u32 cnt, zd_u32 x0, zd_u32 x1) {
    zd_u32 j = zd_mp_last_at_or_before(lds->lit, cnt, x0);
    zd_u8 v[ZD_MPX_RUN];
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_MPX_RUN; k++) v[k] = x0 + k < x1 ? lit[x0 + k] : (zd_u8)0u;
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_MPX_RUN; k++) {
        zd_u32 x = x0 + k;
        if (x < x1) {
            while (x - lds->lit[j] >= lds->ll[j]) j++;
            o[lds->rel[j] + (x - lds->lit[j])] = v[k];
        }
    }
}

/* Batches of long literal runs move their literals in aligned 32-bit words: a warp's loads are
   consecutive words (whole sectors), where runs of ZD_MPX_RUN bytes an item make every byte load
   touch 17 sectors (ncu, 1 MiB level-3 frames: 80% of the execute pass's sectors were excess).
   ZD_MPX_LIT_WORDS words per item are in flight at once. With short runs (ERA5 frames: about a
   literal a sequence) an item's words are 128 bytes and as many sequences apart, and finding
   each byte's sequence cost more than the sectors saved (execute 37 -> 62 ms on the sharded
   frames), so those batches keep the byte runs. */
#ifndef ZD_MPX_LIT_WORDS_MIN_RUN
#define ZD_MPX_LIT_WORDS_MIN_RUN 16u
#endif
#define ZD_MPX_LIT_WORDS 4u

/* Per item: the batch's literals in words w0 + k * stride (k < ZD_MPX_LIT_WORDS) of the literal
   stream read from the aligned address la (literal x is byte x + a of it), each byte stored at its
   place in the output (x relative to the batch's first literal; nlit literals). The words at the
   ends may hold bytes outside the batch's literals (never outside the buffer: it is 4-aligned):
   they are skipped. */
ZD_INLINE void zd_mp_lit_words_thread(const ZD_GLOBAL zd_u8 *la, zd_u32 a, zd_u8 *o, const ZD_LOCAL zd_mp_exec_lds *lds,
                                      zd_u32 cnt, zd_u32 w0, zd_u32 stride, zd_u32 nlit) {
    zd_u32 nwords = (nlit + a + 3u) >> 2;
    zd_u32 v[ZD_MPX_LIT_WORDS];
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_MPX_LIT_WORDS; k++) {
        zd_u32 w = w0 + k * stride;
        v[k] = w < nwords ? zd_ld_u32a(la + 4u * w) : 0u;
    }
    zd_u32 xf = 4u * w0 > a ? 4u * w0 - a : 0u; /* this item's first literal */
    zd_u32 j = zd_mp_last_at_or_before(lds->lit, cnt, xf);
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_MPX_LIT_WORDS; k++) {
        zd_u32 w = w0 + k * stride;
        ZD_UNROLL
        for (zd_u32 q = 0; q < 4u; q++) {
            zd_u32 y = 4u * w + q; /* byte of the aligned stream */
            if (w < nwords && y >= a && y - a < nlit) {
                zd_u32 x = y - a;
                while (x - lds->lit[j] >= lds->ll[j]) j++;
                o[lds->rel[j] + (x - lds->lit[j])] = (zd_u8)(v[k] >> (8u * q));
            }
        }
    }
}

/* Batches of short literal runs whose longest is at most ZD_MPX_SEQ_LITS bytes: each item moves
   its own sequence's literals, no search. Byte runs (zd_mp_lit_run_thread) find each byte's
   sequence by walking the batch's sequences from a binary search, and on ERA5 frames (about a
   literal a sequence, many sequences with none) the slowest item's walk held the whole group at
   the next barrier (ncu, sharded ERA5 frames: 39% of the execute pass's stall samples). */
#define ZD_MPX_SEQ_LITS 64u

/* Per item: the ll literals at l (its sequence's first literal) to o, read as aligned words, 4 in
   flight at a time (words may hold bytes outside the run, never outside the buffer: it is
   4-aligned). */
ZD_INLINE void zd_mp_seq_lits_thread(const ZD_GLOBAL zd_u8 *l, zd_u32 ll, zd_u8 *o) {
    if (ll == 0u) return;
    zd_u32 a = zd_addr_mod4(l);
    const ZD_GLOBAL zd_u8 *la = l - a;
    zd_u32 nw = (a + ll + 3u) >> 2;
    for (zd_u32 w0 = 0; w0 < nw; w0 += 4u) {
        zd_u32 v[4];
        ZD_UNROLL
        for (zd_u32 q = 0; q < 4u; q++) v[q] = w0 + q < nw ? zd_ld_u32a(la + 4u * (w0 + q)) : 0u;
        ZD_UNROLL
        for (zd_u32 q = 0; q < 4u; q++) {
            ZD_UNROLL
            for (zd_u32 b = 0; b < 4u; b++) {
                zd_u32 y = 4u * (w0 + q) + b;
                if (y >= a && y - a < ll) o[y - a] = (zd_u8)(v[q] >> (8u * b));
            }
        }
    }
}

/* Per item: a match of at most ZD_MPX_SHORT bytes at block offset m whose source is final. `o`
   is the block's output (window or destination), `g` the block in the destination: source
   bytes before the block are read there. A forward byte copy is right for overlapping matches
   too; four loads go out at once when they cannot overlap the four stores. No unrolled
   fixed-length body: items of a warp run their copies in different rounds, and the warp pays
   each round for its longest copy only. */
ZD_INLINE void zd_mp_short_match_thread(zd_u8 *o, const ZD_GLOBAL zd_u8 *g, zd_u32 m, zd_u32 ml, zd_u32 off,
                                        zd_u32 flags) {
    zd_u32 k = 0u;
    if (off > m) {
        zd_u32 nb = off - m < ml ? off - m : ml;
        const ZD_GLOBAL zd_u8 *s = g - (off - m);
        /* 8 loads in flight before their stores: `o` may alias `s` as far as the compiler
           knows, so a load-store loop waited a global round trip a byte */
        for (; k < nb; k += 8u) {
            zd_u8 v[8];
            ZD_UNROLL
            for (zd_u32 q = 0; q < 8u; q++)
                v[q] = k + q < nb ? ((flags & ZD_MPX_F_CG) ? zd_ld_cg_u8(s + k + q) : s[k + q]) : (zd_u8)0u;
            ZD_UNROLL
            for (zd_u32 q = 0; q < 8u; q++)
                if (k + q < nb) o[m + k + q] = v[q];
        }
        k = nb;
    }
    if (off >= 4u) {
        for (; k + 4u <= ml; k += 4u) {
            zd_u32 q = m + k - off;
            zd_u8 a = o[q], b = o[q + 1u], c = o[q + 2u], d = o[q + 3u];
            o[m + k] = a;
            o[m + k + 1u] = b;
            o[m + k + 2u] = c;
            o[m + k + 3u] = d;
        }
    }
    for (; k < ml; k++) o[m + k] = o[m + k - off];
}

/* Waits until every block of the chunk before block b that produced bytes at or after `from` is
   done. Item i checks blocks b-1-i, b-1-i-ls, ... (its flag and the next block's start loaded
   together), so the group waits one round trip where one item walking back took one per block
   while the others sat at the next barrier: zstd 1.5.7 splits level-3 frames into ~60 blocks a
   MiB, and ~85% of their matches read earlier blocks (ncu, 1 MiB level-3 frames: a third of the
   execute pass's stall samples were that barrier, after ~22 blocks walked a batch). Block
   outputs ascend: an item stops at the first block that ends at or before `from`. */
ZD_INLINE void zd_mp_wait_items(ZD_GLOBAL zd_mp_block *blk, zd_u32 b, zd_u64 from, zd_u32 lid, zd_u32 ls) {
    zd_u32 waited = 0u;
    for (zd_u32 k = b - 1u - lid; lid < b && k < b; k -= ls) {
        zd_u32 done = zd_load_flag(&blk[k].done);
        if (blk[k + 1u].out_at <= from) break;
        while (done == 0u) {
            zd_spin_pause();
            done = zd_load_flag(&blk[k].done);
        }
        waited = 1u;
    }
    if (waited) zd_fence(); /* the flags' blocks' bytes are read after the next barrier */
}

/* Marks bytes [a, e) of the batch's output written (other items may mark neighbouring bits).
   `written`: ZD_MPX_WRITTEN_WORDS words of local memory, a bit per byte of a batch's output. */
ZD_INLINE void zd_mp_mark_thread(ZD_LOCAL zd_u32 *written, zd_u32 a, zd_u32 e) {
    while (a < e) {
        zd_u32 w = a >> 5, lo = a & 31u;
        zd_u32 n = e - a < 32u - lo ? e - a : 32u - lo;
        zd_u32 mask = (n == 32u ? 0xFFFFFFFFu : ((1u << n) - 1u)) << lo;
        zd_atomic_or_u32_local(&written[w], mask);
        a += n;
    }
}

/* Whether bytes [a, e) of the batch's output are all marked written. */
ZD_INLINE zd_u32 zd_mp_marked_thread(const ZD_LOCAL zd_u32 *written, zd_u32 a, zd_u32 e) {
    while (a < e) {
        zd_u32 w = a >> 5, lo = a & 31u;
        zd_u32 n = e - a < 32u - lo ? e - a : 32u - lo;
        zd_u32 mask = (n == 32u ? 0xFFFFFFFFu : ((1u << n) - 1u)) << lo;
        if ((((volatile const ZD_LOCAL zd_u32 *)written)[w] & mask) != mask) return 0u;
        a += n;
    }
    return 1u;
}

/* zd_mp_jump_group with ZD_MPX_F_DEFER: "no source", for a literal byte */
#define ZD_MPX_NO_SRC ((zd_i64)0x7FFFFFFFFFFFFFFFLL)

/* Pointers handled a step by each item of zd_mp_jump_group's loops: their loads go out together
   (volatile accesses keep program order, so a loop of load, dependent load, store waited two
   local-memory round trips an element; a global one for sources in earlier blocks). */
#ifndef ZD_MPX_JUMP_ILP
#define ZD_MPX_JUMP_ILP 4u
#endif

/*
 * Pass 3, cooperative, a batch whose output spans at most ZD_MPX_JUMP_SPAN bytes (its literals
 * written, bytes before it final): p[x] is the source of batch byte x, x itself for a literal,
 * else x - offset (negative: before the batch). Following sources by pointer jumping reaches a
 * literal or a byte before the batch for every byte in log2(longest chain) steps, one barrier
 * each, where matches run in rounds need a round per link of a chain (ERA5-like floats: chains
 * of offset-4 matches through the whole batch). Then each match byte is copied once.
 */
ZD_INLINE void zd_mp_jump_group(ZD_LOCAL zd_mp_exec_lds *lds, ZD_LOCAL zd_i32 *p, zd_u8 *o, const ZD_GLOBAL zd_u8 *g,
                                zd_u32 cnt, zd_u32 carry_out, zd_u32 span, zd_u32 flags, ZD_LOCAL zd_u32 *taint,
                                ZD_GLOBAL zd_u32 *refs, zd_u64 out_at) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    for (zd_u32 x0 = lid * ZD_MPX_RUN; x0 < span; x0 += ls * ZD_MPX_RUN) {
        zd_u32 j = zd_mp_last_at_or_before(lds->rel, cnt, carry_out + x0);
        zd_u32 x1 = span - x0 < ZD_MPX_RUN ? span : x0 + ZD_MPX_RUN;
        /* sequence j's fields in registers, reloaded when the run crosses into the next: the
           stores to p might alias lds for the compiler, which reloaded them every byte */
        zd_u32 rj = lds->rel[j], lj = lds->ll[j], oj = lds->off[j];
        zd_u32 rn = j + 1u < cnt ? lds->rel[j + 1u] : ~0u;
        for (zd_u32 x = x0; x < x1; x++) {
            zd_u32 bx = carry_out + x;
            while (bx >= rn) {
                j++;
                rj = rn;
                lj = lds->ll[j];
                oj = lds->off[j];
                rn = j + 1u < cnt ? lds->rel[j + 1u] : ~0u;
            }
            p[x] = bx - rj < lj ? (zd_i32)x : (zd_i32)x - (zd_i32)oj;
        }
    }
    ZD_BARRIER();
    /* Jumps in place: an item may read a pointer another is replacing in the same step, and
       gets either value, both sources of the same byte further along its chain; a step in which
       no pointer moved had nothing left to resolve. (compute-sanitizer racecheck reports these
       reads and writes as hazards: by design.) Volatile keeps the compiler from assuming it
       owns the values. Three flags in turn: the one cleared here was last read two barriers
       ago. Each item owns its elements x (no other item writes them), so reading its own
       ZD_MPX_JUMP_ILP pointers before writing any changes nothing. */
    volatile ZD_LOCAL zd_i32 *vp = p;
    for (zd_u32 r = 0;; r++) {
        zd_u32 cur = r % 3u;
        if (lid == 0u) lds->any[(r + 1u) % 3u] = 0u;
        zd_u32 moved = 0u;
        for (zd_u32 x = lid; x < span; x += ZD_MPX_JUMP_ILP * ls) {
            zd_i32 v[ZD_MPX_JUMP_ILP], w[ZD_MPX_JUMP_ILP];
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) v[k] = x + k * ls < span ? vp[x + k * ls] : -1;
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) {
                /* a match byte whose source is in the batch: the source's own pointer */
                w[k] = v[k] >= 0 && v[k] != (zd_i32)(x + k * ls) ? vp[v[k]] : v[k];
            }
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) {
                if (w[k] != v[k]) { /* ... a match byte too: jump over it */
                    vp[x + k * ls] = w[k];
                    moved = 1u;
                }
            }
        }
        if (moved) lds->any[cur] = 1u;
        ZD_BARRIER();
        if (lds->any[cur] == 0u) break;
    }
    if (flags & ZD_MPX_F_DEFER) {
        /* a byte's source is now a literal of the batch (final) or a byte before the batch; as
           zd_mp_defer_byte, with each step's loads for ZD_MPX_JUMP_ILP bytes going out together */
        for (zd_u32 x = lid; x < span; x += ZD_MPX_JUMP_ILP * ls) {
            zd_i64 sk[ZD_MPX_JUMP_ILP];
            zd_u32 t[ZD_MPX_JUMP_ILP], r[ZD_MPX_JUMP_ILP];
            zd_u8 c[ZD_MPX_JUMP_ILP];
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) {
                zd_i32 v = x + k * ls < span ? p[x + k * ls] : (zd_i32)(x + k * ls);
                sk[k] = v != (zd_i32)(x + k * ls) ? (zd_i64)carry_out + v : ZD_MPX_NO_SRC;
            }
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++)
                t[k] = sk[k] < 0 ? 1u : sk[k] == ZD_MPX_NO_SRC ? 0u : zd_mp_tainted(taint, (zd_u32)sk[k]);
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) {
                r[k] = sk[k] < 0 ? (zd_u32)((zd_i64)out_at + sk[k])
                       : t[k] ? refs[out_at + (zd_u64)sk[k]] : 0u;
                c[k] = sk[k] != ZD_MPX_NO_SRC && !t[k] ? o[sk[k]] : (zd_u8)0u;
            }
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) {
                zd_u32 bx = carry_out + x + k * ls;
                if (sk[k] == ZD_MPX_NO_SRC) continue;
                if (t[k]) {
                    refs[out_at + bx] = r[k];
                    zd_mp_taint(taint, bx);
                } else {
                    o[bx] = c[k];
                }
            }
        }
        return;
    }
    for (zd_u32 x = lid; x < span; x += ZD_MPX_JUMP_ILP * ls) {
        zd_i32 v[ZD_MPX_JUMP_ILP];
        zd_u8 c[ZD_MPX_JUMP_ILP];
        ZD_UNROLL
        for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) v[k] = x + k * ls < span ? p[x + k * ls] : (zd_i32)(x + k * ls);
        ZD_UNROLL
        for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++)
            c[k] = v[k] != (zd_i32)(x + k * ls) ? zd_mp_src_byte(o, g, (zd_i64)carry_out + v[k], flags) : (zd_u8)0u;
        ZD_UNROLL
        for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++)
            if (v[k] != (zd_i32)(x + k * ls)) o[carry_out + x + k * ls] = c[k];
    }
}

/*
 * Pass 3, cooperative: executes compressed block `b` of a chunk (its literals decoded, its
 * sequences in scratch, its position and entering repeat offsets linked). With a window (`win`
 * not NULL: ZD_ZSTD_BLOCK_MAX bytes of local memory) the block is built there, so the rounds
 * of dependent matches read and write local memory instead of waiting on global memory each
 * time, and is copied out once at the end; without one it is built in place. With `jump`
 * (ZD_MPX_JUMP_SPAN pointers of local memory), batches of short output run by pointer jumping
 * (zd_mp_jump_group), the others in rounds; `written` may share jump's memory. Returns 0, or 1
 * when a sequence is invalid (the chunk then falls back). CUDA and host only: `o` is a generic
 * pointer to either memory.
 */
ZD_INLINE zd_u32 zd_mp_exec_seqs_in(const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *dst, ZD_GLOBAL zd_u8 *scratch,
                                    zd_u64 dst_len, zd_u64 src_len, ZD_GLOBAL zd_mp_block *blk, zd_u32 b,
                                    ZD_LOCAL zd_mp_exec_lds *lds, zd_u8 *o, ZD_LOCAL zd_i32 *jump,
                                    ZD_LOCAL zd_u32 *written, zd_u32 flags, ZD_LOCAL zd_u32 *taint,
                                    ZD_GLOBAL zd_u32 *refs) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    ZD_GLOBAL zd_mp_block *bk = blk + b;
    zd_u64 out_at = bk->out_at;
    zd_u32 nseq = bk->nseq, regen = bk->regen, lit_used = bk->lit_used, out_len = bk->out_len;
    zd_u32 rin0 = bk->rep_in[0], rin1 = bk->rep_in[1], rin2 = bk->rep_in[2];
    const ZD_GLOBAL zd_u8 *lit = bk->lit_type == 0u ? src + bk->lit_in
                                                    : scratch + zd_zstd_mp_lit_off(dst_len, src_len) + bk->lit_at;
    const ZD_GLOBAL zd_u32 *seqs =
        (const ZD_GLOBAL zd_u32 *)(scratch + zd_zstd_mp_seq_off(dst_len, src_len)) + 3u * bk->seq_at;
    ZD_GLOBAL zd_u8 *g = dst + out_at;
    /* The literals after the last sequence go straight to the destination, window or not: no
       match of this block reads them (later blocks wait for its done flag). */
    zd_u32 trail = regen - lit_used;
    zd_copy_group(g + (out_len - trail), lit + lit_used, trail);
    zd_u64 confirmed = out_at; /* earlier output known final from here on (the same in every item) */
    zd_u32 defer = (flags & ZD_MPX_F_DEFER) != 0u;
    if (defer) /* the first batch's barriers come before any mark */
        for (zd_u32 w = lid; w < ZD_ZSTD_BLOCK_MAX / 32u; w += ls) taint[w] = 0u;
    zd_u32 span_max = defer ? ZD_MPX_DEFER_SPAN : ZD_MPX_JUMP_SPAN;
    zd_u32 carry_out = 0u, carry_lit = 0u;
    zd_u32 fail = 0u;
    for (zd_u32 s0 = 0; s0 < nseq; s0 += ls) {
        zd_u32 cnt = nseq - s0 < ls ? nseq - s0 : ls;
        zd_u32 i = s0 + lid;
        zd_u32 valid = lid < cnt;
        zd_u32 ll = 0u, ml = 0u, off = 1u;
        if (valid) {
            ll = seqs[3u * i];
            ml = seqs[3u * i + 1u];
            off = zd_mp_rep_resolve(seqs[3u * i + 2u], rin0, rin1, rin2);
        }
        if (lid == 0u) {
            lds->min_src = ~(zd_u64)0u;
            lds->any[0] = 0u;
            lds->n_long[0] = 0u;
            lds->fail = 0u;
            lds->far = 0u;
            lds->long_lit = 0u;
        }
        zd_u64 tot = 0u;
        zd_u64 ex = zd_scan_excl_u64_group((zd_u64)ll | ((zd_u64)(ll + ml) << 32), lds->scan, &tot);
        zd_u32 lrel = (zd_u32)ex;
        zd_u32 brel = (zd_u32)(ex >> 32); /* in the batch's output */
        zd_u32 rel = carry_out + brel;
        zd_u32 m = rel + ll;
        zd_u64 abs_m = out_at + m;
        zd_u32 span = (zd_u32)(tot >> 32);
        /* cleared whether the batch runs in rounds or not: decided after the barrier below */
        for (zd_u32 w = lid; w < (span + 31u) / 32u; w += ls) written[w] = 0u;
        if (valid) {
            /* pass 2 kept the sequences inside out_len <= ZD_ZSTD_BLOCK_MAX; checked again here
               because a window overrun would corrupt local memory */
            if (off == 0u || (zd_u64)off > abs_m || (zd_u64)m + ml > out_len) {
                lds->fail = 1u;
            } else {
                lds->rel[lid] = rel;
                lds->ll[lid] = ll;
                lds->ml[lid] = ml;
                lds->off[lid] = off;
                lds->lit[lid] = lrel;
                if (ml > 0u && (zd_u64)off > m) zd_atomic_min_u64_local(&lds->min_src, abs_m - off);
                if (off > ZD_MPX_JUMP_MAX_OFF) lds->far = 1u; /* its pointers would not fit an i32 */
                if (ll > ZD_MPX_SEQ_LITS) lds->long_lit = 1u;
            }
        }
        ZD_BARRIER();
        if (lds->fail) {
            fail = 1u;
            break;
        }
        zd_u32 jumping = jump != NULL && span <= span_max && !lds->far;
        zd_u32 nlit = (zd_u32)tot;
        if (nlit >= ZD_MPX_LIT_WORDS_MIN_RUN * cnt) {
            /* warps of W items (fewer in small host groups), each taking ZD_MPX_LIT_WORDS * W
               consecutive words at a time, an item every W-th */
            zd_u32 wsz = ls < 32u ? ls : 32u, warps = ls / wsz, wv = lid / wsz, lane = lid % wsz;
            zd_u32 a = zd_addr_mod4(lit + carry_lit);
            const ZD_GLOBAL zd_u8 *la = lit + carry_lit - a;
            zd_u32 nwords = (nlit + a + 3u) >> 2;
            zd_u32 step = ZD_MPX_LIT_WORDS * wsz;
            if (wv < warps)
                for (zd_u32 c = wv * step; c < nwords; c += warps * step)
                    zd_mp_lit_words_thread(la, a, o, lds, cnt, c + lane, wsz, nlit);
        } else if (!lds->long_lit) {
            if (valid) zd_mp_seq_lits_thread(lit + carry_lit + lrel, ll, o + rel);
        } else {
            for (zd_u32 x0 = lid * ZD_MPX_RUN; x0 < nlit; x0 += ls * ZD_MPX_RUN) {
                zd_u32 x1 = nlit - x0 < ZD_MPX_RUN ? nlit : x0 + ZD_MPX_RUN;
                zd_mp_lit_run_thread(lit + carry_lit, o, lds, cnt, x0, x1);
            }
        }
        if (valid && !jumping) zd_mp_mark_thread(written, brel, brel + ll);
        zd_u64 need = lds->min_src;
        if (need < confirmed && !defer) {
            zd_mp_wait_items(blk, b, need, lid, ls);
            confirmed = need;
        }
        ZD_BARRIER();
        if (jumping) {
            zd_mp_jump_group(lds, jump, o, g, cnt, carry_out, span, flags, taint, refs, out_at);
            carry_out += span;
            carry_lit += nlit;
            ZD_BARRIER();
            continue;
        }
        /* Matches in rounds: a match runs once every byte of its source in this batch is marked
           written (bytes before the batch are final). Marks of a round's matches are set at the
           start of the next round, racing with its checks: a mark seen there was written before
           the last barrier, a mark missed is seen a round later. With ZD_MPX_F_SAME_ROUND a short
           match is marked as soon as it is copied instead (fences on both sides: an item that sees
           the mark sees the bytes), so a chain of matches may finish in one round when its items
           happen to run in order. The first pending match always finds its source written by
           then, so every round or two at least one runs. */
        zd_u32 pend = valid && ml > 0u;
        zd_u32 just = 0u;
        zd_u32 sa = 0u, se = 0u; /* source bytes inside the batch: [sa, se) of its output */
        {
            zd_i64 a = (zd_i64)m - (zd_i64)off, e = a + (zd_i64)(ml < off ? ml : off);
            zd_i64 lo = (zd_i64)carry_out;
            if (e > lo) {
                sa = (zd_u32)((a > lo ? a : lo) - lo);
                se = (zd_u32)(e - lo);
            }
        }
        for (zd_u32 r = 0;; r++) {
            zd_u32 cur = r & 1u;
            if (just) {
                zd_mp_mark_thread(written, brel + ll, brel + ll + ml);
                just = 0u;
            }
            if (lid == 0u) {
                lds->any[cur ^ 1u] = 0u;
                lds->n_long[cur ^ 1u] = 0u;
            }
            if (pend) {
                lds->any[cur] = 1u;
                if (zd_mp_marked_thread(written, sa, se)) {
                    if (defer && ml <= ZD_MPX_SHORT) {
                        /* forward, byte by byte: right for a match overlapping its own output */
                        for (zd_u32 k = 0; k < ml; k++)
                            zd_mp_defer_byte(o, taint, refs, out_at, m + k, (zd_i64)m + k - (zd_i64)off);
                        if (flags & ZD_MPX_F_SAME_ROUND) {
                            zd_fence_local();
                            zd_mp_mark_thread(written, brel + ll, brel + ll + ml);
                        } else {
                            just = 1u;
                        }
                    } else if (ml <= ZD_MPX_SHORT && (flags & ZD_MPX_F_SAME_ROUND)) {
                        zd_fence_local();
                        zd_mp_short_match_thread(o, g, m, ml, off, flags);
                        zd_fence_local();
                        zd_mp_mark_thread(written, brel + ll, brel + ll + ml);
                    } else if (ml <= ZD_MPX_SHORT) {
                        zd_mp_short_match_thread(o, g, m, ml, off, flags);
                        just = 1u;
                    } else {
                        lds->lng[zd_atomic_add_u32_local(&lds->n_long[cur], 1u)] = lid;
                        just = 1u;
                    }
                    pend = 0u;
                }
            }
            ZD_BARRIER();
            if (lds->any[cur] == 0u) break;
            zd_u32 nl = lds->n_long[cur];
            for (zd_u32 k = 0; k < nl; k++) {
                zd_u32 j = lds->lng[k];
                zd_u32 jm = lds->rel[j] + lds->ll[j], jml = lds->ml[j], joff = lds->off[j];
                for (zd_u32 q = lid; q < jml; q += ls) {
                    /* never a byte of this match: its first joff bytes' sources, final */
                    zd_i64 s = (zd_i64)jm - (zd_i64)joff + (zd_i64)(q < joff ? q : q % joff);
                    if (defer) zd_mp_defer_byte(o, taint, refs, out_at, jm + q, s);
                    else o[jm + q] = zd_mp_src_byte(o, g, s, flags);
                }
            }
            ZD_BARRIER();
        }
        carry_out += (zd_u32)(tot >> 32);
        carry_lit += nlit;
        ZD_BARRIER();
    }
    if ((flags & ZD_MPX_F_WIN) && !fail) {
        /* every item copies out bytes other items wrote: after the last batch's barrier, and
           this one for a block that ran no batch (its window was left as it was). The window
           goes through zd_copy_group as a generic pointer (CUDA and host: one address space;
           the H200 measured no difference against a copy with shared-memory loads). */
        ZD_BARRIER();
        zd_copy_group(g, (const ZD_GLOBAL zd_u8 *)o, out_len - trail);
        if (defer) /* the marked bytes' refs were written as they were marked */
            for (zd_u32 x = lid; x < out_len - trail; x += ls)
                if (!zd_mp_tainted(taint, x)) refs[out_at + x] = ZD_MP_REF_NONE;
    }
    return fail;
}

/* The same, building the block in `win` with ZD_MPX_F_WIN (else in place in dst). Two calls
   rather than one through a pointer chosen at run time: the CUDA compiler then sees that the
   window is shared memory and uses shared loads and stores for it (with the choice, every
   access to it went through generic addressing, 64-bit addresses and all). */
ZD_FUNC zd_u32 zd_mp_exec_seqs_group(const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *dst, ZD_GLOBAL zd_u8 *scratch,
                                     zd_u64 dst_len, zd_u64 src_len, ZD_GLOBAL zd_mp_block *blk, zd_u32 b,
                                     ZD_LOCAL zd_mp_exec_lds *lds, ZD_LOCAL zd_u8 *win, ZD_LOCAL zd_i32 *jump,
                                     ZD_LOCAL zd_u32 *written, zd_u32 flags, ZD_LOCAL zd_u32 *taint,
                                     ZD_GLOBAL zd_u32 *refs) {
    if (flags & ZD_MPX_F_WIN)
        return zd_mp_exec_seqs_in(src, dst, scratch, dst_len, src_len, blk, b, lds, (zd_u8 *)win, jump, written, flags,
                                  taint, refs);
    return zd_mp_exec_seqs_in(src, dst, scratch, dst_len, src_len, blk, b, lds, (zd_u8 *)(dst + blk[b].out_at), jump,
                              written, flags & ~ZD_MPX_F_DEFER, taint, refs);
}

/* Pass 3, cooperative: block `b` of a chunk in ZD_MP_MODE_RUN, then its done flag. */
ZD_FUNC void zd_mp_exec_block_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst, zd_u64 dst_len,
                                    ZD_GLOBAL zd_u8 *scratch, zd_u32 b, ZD_LOCAL zd_mp_exec_lds *lds,
                                    ZD_LOCAL zd_u8 *win, ZD_LOCAL zd_i32 *jump, ZD_LOCAL zd_u32 *written,
                                    zd_u32 flags, ZD_LOCAL zd_u32 *taint, ZD_GLOBAL zd_u32 *refs) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES);
    ZD_GLOBAL zd_mp_block *bk = blk + b;
    zd_u32 type = bk->type;
    zd_u32 fail = 0u;
    if (type == 0u) {
        zd_copy_group(dst + bk->out_at, src + bk->in, bk->out_len);
    } else if (type == 1u) {
        ZD_GLOBAL zd_u8 *to = dst + bk->out_at;
        zd_u8 v = src[bk->in];
        for (zd_u32 i = zd_local_id(); i < bk->out_len; i += zd_local_size()) to[i] = v;
    } else {
        fail = zd_mp_exec_seqs_group(src, dst, scratch, dst_len, src_len, blk, b, lds, win, jump, written, flags, taint,
                                     refs);
    }
    zd_fence();
    ZD_BARRIER();
    if (zd_local_id() == 0u) {
        if (fail) hdr->failed = 1u;
        zd_store_flag(&bk->done, 1u);
    }
}

/*
 * Pass 3, cooperative, persistent: takes tickets until the batch's blocks are all executed.
 * Ticket t is block t / n of chunk t % n. chunk(c) gives (src, src_len, dst, dst_len, scratch) of
 * chunk c through the arrays. `win`: ZD_ZSTD_BLOCK_MAX bytes of local memory to build each block
 * in, or NULL (see zd_mp_exec_seqs_group).
 */
ZD_FUNC void zd_zstd_mp_exec_group(const ZD_GLOBAL zd_u8 *src, const ZD_GLOBAL zd_u64 *src_offsets,
                                   const ZD_GLOBAL zd_u64 *src_sizes, ZD_GLOBAL zd_u8 *dst,
                                   const ZD_GLOBAL zd_u64 *dst_offsets, const ZD_GLOBAL zd_u64 *dst_sizes,
                                   ZD_GLOBAL zd_u8 *scratch, const ZD_GLOBAL zd_u64 *scratch_offsets, zd_u32 n,
                                   ZD_LOCAL zd_mp_exec_lds *lds, ZD_LOCAL zd_u8 *win, ZD_LOCAL zd_i32 *jump,
                                   ZD_LOCAL zd_u32 *written, zd_u32 flags, ZD_LOCAL zd_u32 *taint,
                                   ZD_GLOBAL zd_u32 *refs, const ZD_GLOBAL zd_u64 *ref_offsets) {
    ZD_GLOBAL zd_mp_hdr *ctl = (ZD_GLOBAL zd_mp_hdr *)(scratch + scratch_offsets[0]);
    if (!(flags & ZD_MPX_F_WIN)) flags &= ~ZD_MPX_F_DEFER;
    zd_u64 total = (zd_u64)n * ctl->max_blocks;
    if (!(flags & ZD_MPX_F_JUMP)) jump = NULL;
    for (;;) {
        if (zd_local_id() == 0u) lds->ticket = zd_atomic_add_u32(&ctl->ticket, 1u);
        ZD_BARRIER();
        zd_u64 t = lds->ticket;
        ZD_BARRIER();
        if (t >= total) return;
        zd_u32 c = (zd_u32)(t % n), b = (zd_u32)(t / n);
        ZD_GLOBAL zd_u8 *sc = scratch + scratch_offsets[c];
        ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)sc;
        if (hdr->mode != ZD_MP_MODE_RUN || b >= hdr->n_blocks) continue;
        zd_mp_exec_block_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c], sc, b, lds,
                               win, jump, written, flags, taint,
                               (flags & ZD_MPX_F_DEFER) ? refs + ref_offsets[c] : (ZD_GLOBAL zd_u32 *)0);
    }
}

#endif
