/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_huf.h - Huffman literals (RFC 8878 4.2): tree description (direct or FSE-compressed
 * weights), decoding table of up to 2^11 cells, and per-stream decoding.
 */
#ifndef ZD_HUF_H
#define ZD_HUF_H

#include "zd_portable.h"
#include "zstd/zd_status.h"
#include "zstd/zd_bits.h"
#include "zstd/zd_fse.h"

#define ZD_HUF_MAX_BITS 11u
#define ZD_HUF_TABLE_SIZE (1u << ZD_HUF_MAX_BITS)
#define ZD_HUF_TABLE_BYTES (2u * ZD_HUF_TABLE_SIZE) /* one zd_huf_cell is 2 bytes */

typedef struct {
    zd_u8 sym;
    zd_u8 nb;
} zd_huf_cell;

/*
 * Reads the Huffman tree description at p[0..avail) into weights[0..*nsyms) (256 bytes; the
 * implicit last weight included) and checks that they describe a complete code.
 * wt/norm/next: scratch for the FSE-compressed weights. On success *used is the description's
 * size in bytes and *max_bits the table log.
 */
ZD_FUNC zd_u32 zd_huf_read_weights_thread(const ZD_GLOBAL zd_u8 *p, zd_u64 avail, ZD_LOCAL zd_u8 *weights,
                                          ZD_LOCAL zd_fse_cell *wt, ZD_LOCAL zd_i16 *norm, ZD_LOCAL zd_u16 *next,
                                          zd_u32 *max_bits, zd_u32 *nsyms_out, zd_u64 *used) {
    if (avail < 1u) return ZD_STATUS_CORRUPT_TRUNCATED;
    zd_u32 hb = p[0];
    zd_u32 nw = 0; /* number of explicit weights */
    if (hb >= 128u) {
        nw = hb - 127u;
        zd_u64 nbytes = (nw + 1u) / 2u;
        if (avail < 1u + nbytes) return ZD_STATUS_CORRUPT_TRUNCATED;
        for (zd_u32 i = 0; i < nw; i++) {
            zd_u32 b = p[1u + i / 2u];
            weights[i] = (zd_u8)((i & 1u) ? (b & 15u) : (b >> 4));
        }
        *used = 1u + nbytes;
    } else {
        zd_u64 csize = hb;
        if (csize == 0u) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
        if (avail < 1u + csize) return ZD_STATUS_CORRUPT_TRUNCATED;
        const ZD_GLOBAL zd_u8 *q = p + 1;
        zd_u32 log = 0, nsym = 0;
        zd_u64 hdr = 0;
        zd_u32 st = zd_fse_read_ncount_thread(q, csize, 15u, ZD_HUFW_MAX_LOG, norm, &log, &nsym, &hdr);
        if (st != ZD_STATUS_OK) return st == ZD_STATUS_CORRUPT_TRUNCATED ? st : ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
        if (zd_fse_build_thread(wt, norm, nsym, log, next) != ZD_STATUS_OK) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
        zd_bwd_bits br;
        if (hdr >= csize || zd_bwd_init_thread(&br, q + hdr, csize - hdr) != 0) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
        zd_u32 s1 = zd_bwd_read_thread(&br, log);
        zd_u32 s2 = zd_bwd_read_thread(&br, log);
        if (br.pos < 0) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
        /* Two interleaved states; stop once an update reads past the start of the stream,
           then emit the other state's symbol. */
        for (;;) {
            if (nw >= 255u) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
            weights[nw++] = wt[s1].sym;
            s1 = wt[s1].base + zd_bwd_read_thread(&br, wt[s1].nb);
            if (nw >= 255u) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
            weights[nw++] = wt[s2].sym;
            if (br.pos < 0) break; /* s1's update overran: s2's symbol was the last */
            s2 = wt[s2].base + zd_bwd_read_thread(&br, wt[s2].nb);
            if (br.pos < 0) {
                if (nw >= 255u) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
                weights[nw++] = wt[s1].sym;
                break;
            }
        }
        *used = 1u + csize;
    }
    if (nw > 255u) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
    /* Complete with the implicit last weight. */
    zd_u32 rank[ZD_HUF_MAX_BITS + 2u];
    for (zd_u32 w = 0; w < ZD_HUF_MAX_BITS + 2u; w++) rank[w] = 0;
    zd_u32 sum = 0;
    for (zd_u32 i = 0; i < nw; i++) {
        zd_u32 w = weights[i];
        if (w > ZD_HUF_MAX_BITS) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
        rank[w]++;
        if (w > 0u) sum += 1u << (w - 1u);
    }
    if (sum == 0u) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
    zd_u32 mb = zd_highbit32(sum) + 1u;
    if (mb > ZD_HUF_MAX_BITS) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
    zd_u32 rest = (1u << mb) - sum;
    if ((rest & (rest - 1u)) != 0u) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
    zd_u32 lastw = zd_highbit32(rest) + 1u;
    weights[nw] = (zd_u8)lastw;
    rank[lastw]++;
    zd_u32 nsyms = nw + 1u;
    if (rank[1] < 2u || (rank[1] & 1u) != 0u) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
    zd_u32 acc = 0;
    for (zd_u32 w = 1; w <= ZD_HUF_MAX_BITS; w++) acc += rank[w] << (w - 1u);
    if (acc != (1u << mb)) return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
    *max_bits = mb;
    *nsyms_out = nsyms;
    return ZD_STATUS_OK;
}

/* at[w]: the first table cell of the codes of weight w (1..ZD_HUF_MAX_BITS), codes in order of
   increasing weight (RFC 8878 4.2.1.3); weights as zd_huf_read_weights_thread left them. */
ZD_INLINE void zd_huf_weight_starts(const ZD_LOCAL zd_u8 *weights, zd_u32 nsyms, zd_u32 *at) {
    for (zd_u32 w = 0; w < ZD_HUF_MAX_BITS + 2u; w++) at[w] = 0;
    for (zd_u32 s = 0; s < nsyms; s++) at[weights[s]]++;
    zd_u32 acc = 0;
    for (zd_u32 w = 1; w <= ZD_HUF_MAX_BITS; w++) {
        zd_u32 n = at[w] << (w - 1u);
        at[w] = acc;
        acc += n;
    }
}

/* The first table cell of each of the nsyms symbols (start: nsyms entries; weight-0 symbols get
   none): symbols in natural order within a weight. */
ZD_FUNC void zd_huf_starts_thread(const ZD_LOCAL zd_u8 *weights, zd_u32 nsyms, ZD_LOCAL zd_u16 *start) {
    zd_u32 at[ZD_HUF_MAX_BITS + 2u];
    zd_huf_weight_starts(weights, nsyms, at);
    for (zd_u32 s = 0; s < nsyms; s++) {
        zd_u32 w = weights[s];
        if (w == 0u) continue;
        start[s] = (zd_u16)at[w];
        at[w] += 1u << (w - 1u);
    }
}

/* Per item: the table cells of symbols lid, lid + ls, ... (a symbol's 2^(w-1) cells from
   start[s]); with zd_huf_starts_thread's starts, the items together fill the whole table. */
ZD_INLINE void zd_huf_fill_items(ZD_LOCAL zd_huf_cell *table, const ZD_LOCAL zd_u8 *weights, zd_u32 nsyms,
                                 const ZD_LOCAL zd_u16 *start, zd_u32 mb, zd_u32 lid, zd_u32 ls) {
    for (zd_u32 s = lid; s < nsyms; s += ls) {
        zd_u32 w = weights[s];
        if (w == 0u) continue;
        zd_huf_cell c;
        c.sym = (zd_u8)s;
        c.nb = (zd_u8)(mb + 1u - w);
        ZD_LOCAL zd_huf_cell *t = table + start[s];
        for (zd_u32 k = 0, len = 1u << (w - 1u); k < len; k++) t[k] = c;
    }
}

/*
 * Reads the Huffman tree description at p[0..avail) and builds the decoding table, alone (the
 * symbols' starts kept per weight as it goes, where zd_huf_fill_items needs them in memory).
 * weights: 256 bytes of scratch; wt/norm/next: scratch for the FSE-compressed weights. On
 * success *used is the description's size in bytes and *max_bits the table log.
 */
ZD_FUNC zd_u32 zd_huf_read_table_thread(const ZD_GLOBAL zd_u8 *p, zd_u64 avail, ZD_LOCAL zd_huf_cell *table,
                                        ZD_LOCAL zd_u8 *weights, ZD_LOCAL zd_fse_cell *wt,
                                        ZD_LOCAL zd_i16 *norm, ZD_LOCAL zd_u16 *next, zd_u32 *max_bits,
                                        zd_u64 *used) {
    zd_u32 nsyms = 0, mb = 0;
    zd_u32 st = zd_huf_read_weights_thread(p, avail, weights, wt, norm, next, &mb, &nsyms, used);
    if (st != ZD_STATUS_OK) return st;
    zd_u32 at[ZD_HUF_MAX_BITS + 2u];
    zd_huf_weight_starts(weights, nsyms, at);
    for (zd_u32 s = 0; s < nsyms; s++) {
        zd_u32 w = weights[s];
        if (w == 0u) continue;
        zd_huf_cell c;
        c.sym = (zd_u8)s;
        c.nb = (zd_u8)(mb + 1u - w);
        for (zd_u32 k = 0, len = 1u << (w - 1u); k < len; k++) table[at[w] + k] = c;
        at[w] += 1u << (w - 1u);
    }
    *max_bits = mb;
    return ZD_STATUS_OK;
}

/*
 * Fast part of a stream (the caller finishes it with checked reads): the unread bits sit
 * left-aligned in a 64-bit register x (its top bit is the next to read) and are topped up a
 * 4-aligned 32-bit word at a time. The next word is loaded one top-up ahead (and its sector
 * prefetched further ahead), so its latency overlaps the table lookups instead of stalling the
 * next refill, and a symbol costs one shift of x, one shift for its index and one lookup. A
 * word at or below the stream's start may hold bytes before it (same buffer: buffers are at
 * least 4-aligned); they only ever fill the low, don't-care bits of a lookup, as every fast read
 * lies within the stream (pos >= k * max_bits).
 * The top word is read byte by byte, as it may extend past the stream's end.
 * Decodes while at least 4 symbols and 4 * max_bits bits remain (byte stores until out is
 * 4-aligned, then one 32-bit store per 4 symbols); returns how many and leaves *pos_io at the
 * unread bits. Needs in_len >= 8 and max_bits in 1..11.
 */
/* When a top-up loads the top word of a 32-byte sector, it asks for the word ZD_HUF_PREFETCH
   words further down (the next sector) to be brought into L1, so that the loads of the next 8
   top-ups find it there. Without it, the refills waited on loads that missed L1 (ncu, 1 MiB
   level-1 frames: 42% of the entropy pass's stall samples). Measured on the H200 (GB/s, 1 MiB
   frames at levels 1/3/9): none 93.8/48.6/39.6, once a sector 94.6/49.7/40.3, at every top-up
   89.3/50.4/40.9 (the extra requests cost level 1 more than they save). Loading words further
   ahead into registers did not help: shifting the queue waited for the newest load. 0: off. */
#ifndef ZD_HUF_PREFETCH
#define ZD_HUF_PREFETCH 8
#endif
typedef struct {
    zd_u64 x;       /* unread bits, left-aligned */
    zd_u32 have;    /* bits in x (those below the stream's start included) */
    zd_i32 kn;      /* index of the word in nw (from the aligned base); < 0: none left */
    zd_u32 nw;      /* the next word, loaded ahead */
} zd_huf_words;

ZD_INLINE void zd_huf_words_top_up(zd_huf_words *w, const ZD_GLOBAL zd_u8 *base) {
    if (w->have <= 32u && w->kn >= 0) {
        w->x |= (zd_u64)w->nw << (32u - w->have);
        w->have += 32u;
        w->kn--;
        w->nw = zd_ld_u32a(base + 4u * (zd_u32)(w->kn > 0 ? w->kn : 0));
#if ZD_HUF_PREFETCH > 0
        if ((w->kn & 7) == 7) {
            zd_i32 kp = w->kn - ZD_HUF_PREFETCH;
            zd_prefetch(base + 4u * (zd_u32)(kp > 0 ? kp : 0));
        }
#endif
    }
}

ZD_INLINE zd_huf_cell zd_huf_words_next(zd_huf_words *w, const ZD_LOCAL zd_huf_cell *table, zd_u32 mb) {
    zd_huf_cell e = table[(zd_u32)(w->x >> 32) >> (32u - mb)];
    w->x <<= e.nb;
    w->have -= e.nb;
    return e;
}

ZD_INLINE zd_u32 zd_huf_decode_fast_thread(const ZD_LOCAL zd_huf_cell *table, zd_u32 mb, const ZD_GLOBAL zd_u8 *in,
                                           zd_u64 in_len, ZD_GLOBAL zd_u8 *out, zd_u32 cnt, zd_i32 *pos_io) {
    zd_i32 pos = *pos_io;
    zd_u32 s = zd_addr_mod4(in);
    const ZD_GLOBAL zd_u8 *base = in - s;
    zd_u32 g = 8u * s + (zd_u32)pos; /* unread bits: [0, g) counted from base */
    zd_huf_words w;
    w.kn = (zd_i32)((g - 1u) >> 5); /* >= 1: in_len >= 8 */
    zd_u32 top = 0u;
    for (zd_u32 b = 0; b < 4u; b++) {
        zd_i64 at = (zd_i64)(4u * (zd_u32)w.kn + b) - (zd_i64)s;
        if (at >= 0 && (zd_u64)at < in_len) top |= (zd_u32)in[at] << (8u * b);
    }
    w.have = g - 32u * (zd_u32)w.kn; /* 1..32 */
    w.x = (zd_u64)(top << (32u - w.have)) << 32;
    w.kn--;
    w.nw = zd_ld_u32a(base + 4u * (zd_u32)w.kn);
    zd_u32 i = 0;
    zd_i32 smb = (zd_i32)mb;
    /* byte stores until out + i is 4-aligned (at most 3) */
    while (i < cnt && zd_addr_mod4(out + i) != 0u && pos >= 4 * smb) {
        zd_huf_words_top_up(&w, base);
        zd_huf_cell e = zd_huf_words_next(&w, table, mb);
        out[i++] = e.sym;
        pos -= (zd_i32)e.nb;
    }
    if (zd_addr_mod4(out + i) == 0u) {
        while (cnt - i >= 4u && pos >= 4 * smb) {
            zd_huf_words_top_up(&w, base); /* >= 2 * mb bits after it */
            zd_huf_cell e0 = zd_huf_words_next(&w, table, mb);
            zd_huf_cell e1 = zd_huf_words_next(&w, table, mb);
            zd_huf_words_top_up(&w, base);
            zd_huf_cell e2 = zd_huf_words_next(&w, table, mb);
            zd_huf_cell e3 = zd_huf_words_next(&w, table, mb);
            zd_st_u32a(out + i, (zd_u32)e0.sym | ((zd_u32)e1.sym << 8) | ((zd_u32)e2.sym << 16) | ((zd_u32)e3.sym << 24));
            pos -= (zd_i32)(e0.nb + e1.nb + e2.nb + e3.nb);
            i += 4u;
        }
    }
    *pos_io = pos;
    return i;
}

/* Decodes exactly n literals of one stream; the stream must be consumed exactly. The fast part
   (zd_huf_decode_fast_thread) runs while every read lies within the stream; the last bits take
   the checked path, where bits below the stream's start read as zero. */
ZD_FUNC zd_u32 zd_huf_decode_stream_thread(const ZD_LOCAL zd_huf_cell *table, zd_u32 max_bits,
                                           const ZD_GLOBAL zd_u8 *in, zd_u64 in_len, ZD_GLOBAL zd_u8 *out,
                                           zd_u64 n) {
    zd_bwdf_bits br;
    if (zd_bwdf_init_thread(&br, in, in_len) != 0) return ZD_STATUS_CORRUPT_HUFFMAN_STREAM;
    zd_u32 cnt = (zd_u32)n;
    zd_u32 i = 0;
    if (in_len >= 8u && max_bits >= 1u && max_bits <= ZD_HUF_MAX_BITS) {
        zd_i32 pos = br.pos;
        i = zd_huf_decode_fast_thread(table, max_bits, in, in_len, out, cnt, &pos);
        br.pos = pos;
        br.cbits = 1; /* forces the reload below */
        zd_bwdf_reload_thread(&br);
    }
    while (i < cnt) {
        zd_bwdf_refill_thread(&br, (zd_i32)max_bits);
        zd_huf_cell e = table[zd_bwdf_peek_thread(&br, max_bits)];
        out[i] = e.sym;
        br.pos -= (zd_i32)e.nb;
        i++;
        if (br.pos < 0) return ZD_STATUS_CORRUPT_HUFFMAN_STREAM;
    }
    return br.pos == 0 ? ZD_STATUS_OK : ZD_STATUS_CORRUPT_HUFFMAN_STREAM;
}

#endif
