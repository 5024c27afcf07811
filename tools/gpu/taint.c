/* SPDX-License-Identifier: Apache-2.0 */
/*
 * taint: how many output bytes of a zstd frame come, through some chain of matches, from an
 * earlier block? Those are the bytes a block cannot produce without waiting for the blocks before
 * it, and the bytes deferred execution (ZD_MPX_F_DEFER) leaves to pass 3b. Runs the multi-pass
 * decoder's passes 1-2 and link (host build) over each frame, then follows every match byte to its
 * source within its block.
 *
 *   gcc -O2 -I kernels/src/main/c -o /tmp/taint tools/gpu/taint.c        (from the project root)
 *   /tmp/taint DECODED_BYTES FRAME...     (e.g. 66447360 /tmp/zdgen/era5/c/0/0/0/0)
 * Measured (2026-11-21, the plain ERA5 layout's 66 MB frames): 512 blocks, 89.4% of the bytes
 * are match bytes, 69.8% trace back to an earlier block, in runs of 4.8 bytes; 17.9% of the
 * sequences read an earlier block directly, 92.5% produce such bytes. Following a tainted byte's
 * ref (its source outside the block) through refs until an untainted byte takes 4.5 hops on
 * average (26% one, 14% 9-64, at most 39), 5.9 for the slowest byte of each 32: resolving by
 * jumping along refs, without waiting for the earlier blocks, would load ~5 refs a deferred byte
 * where pass 3b loads one, so pass 3b waits instead.
 */
#include "mp-frame.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s DECODED_BYTES FRAME...\n", argv[0]);
        return 2;
    }
    zd_u64 d = strtoull(argv[1], NULL, 10);
    for (int a = 2; a < argc; a++) {
        long n = 0;
        zd_u8 *src = NULL;
        zd_u8 *scr = mp_frame_open(argv[a], d, &src, &n);
        zd_u8 *t = calloc(1, d);
        zd_u32 *ref = malloc(4u * d); /* a tainted byte's source outside its block, as pass 3 defers it */
        if (t == NULL || ref == NULL) {
            fprintf(stderr, "%s: out of memory for %llu decoded bytes\n", argv[a], (unsigned long long)d);
            return 1;
        }
        zd_mp_hdr *h = (zd_mp_hdr *)scr;
        if (h->mode != ZD_MP_MODE_RUN) {
            printf("%s: not decodable by the multi-pass path (mode %u)\n", argv[a], h->mode);
            free(src), free(scr), free(t), free(ref);
            continue;
        }
        zd_mp_block *blk = (zd_mp_block *)(scr + ZD_MP_HDR_BYTES);
        const zd_u32 *seqs = (const zd_u32 *)(scr + zd_zstd_mp_seq_off(d, (zd_u64)n));
        long tainted = 0, runs = 0, matchb = 0, total = 0, extseq = 0, nseq = 0, taintseq = 0;
        long blocks_any = 0;
        for (zd_u32 b = 0; b < h->n_blocks; b++) {
            zd_mp_block *k = blk + b;
            zd_u64 st = k->out_at, p = st;
            total += k->out_len;
            if (k->type != 2u) continue;
            const zd_u32 *s = seqs + 3u * k->seq_at;
            long bt = 0;
            for (zd_u32 q = 0; q < k->nseq; q++) {
                zd_u32 ll = s[3*q], ml = s[3*q+1];
                zd_u32 off = zd_mp_rep_resolve(s[3*q+2], k->rep_in[0], k->rep_in[1], k->rep_in[2]);
                for (zd_u32 i = 0; i < ll; i++) t[p++] = 0;
                int any = 0, ext = 0;
                for (zd_u32 i = 0; i < ml; i++, p++) {
                    zd_u64 sq = p - off;
                    t[p] = sq < st ? 1 : t[sq];
                    if (t[p]) ref[p] = sq < st ? (zd_u32)sq : ref[sq];
                    if (sq < st) ext = 1;
                    any |= t[p];
                }
                matchb += ml; nseq++; extseq += ext; taintseq += any;
            }
            while (p < st + k->out_len) t[p++] = 0;
            for (zd_u64 i = st; i < st + k->out_len; i++) {
                bt += t[i];
                if (t[i] && (i == st || !t[i-1])) runs++;
            }
            tainted += bt; blocks_any += bt > 0;
        }
        /* Hops: refs followed from a tainted byte until an untainted one, i.e. the gathers a
           resolve pass would make if it jumped along refs instead of waiting for the blocks
           before; per warp of 32 consecutive bytes, the most any of its bytes takes. */
        long hops = 0, hmax = 0, warp_hops = 0, warps = 0;
        long hist[6] = {0, 0, 0, 0, 0, 0}; /* 1, 2, 3-4, 5-8, 9-64, more */
        for (zd_u64 w = 0; w < d; w += 32u) {
            long wm = 0;
            for (zd_u64 i = w; i < w + 32u && i < d; i++) {
                if (!t[i]) continue;
                long hh = 1;
                zd_u32 r = ref[i];
                while (t[r]) r = ref[r], hh++;
                hops += hh;
                if (hh > hmax) hmax = hh;
                if (hh > wm) wm = hh;
                hist[hh == 1 ? 0 : hh == 2 ? 1 : hh <= 4 ? 2 : hh <= 8 ? 3 : hh <= 64 ? 4 : 5]++;
            }
            if (wm > 0) warp_hops += wm, warps++;
        }
        printf("%s: hops a tainted byte %.2f (max %ld; 1: %.1f%%, 2: %.1f%%, 3-4: %.1f%%, 5-8: %.1f%%, 9-64: %.1f%%, "
               "more: %.1f%%), a warp of 32 bytes with any %.2f\n", argv[a], tainted ? (double)hops / tainted : 0, hmax,
               100.0 * hist[0] / tainted, 100.0 * hist[1] / tainted, 100.0 * hist[2] / tainted, 100.0 * hist[3] / tainted,
               100.0 * hist[4] / tainted, 100.0 * hist[5] / tainted, warps ? (double)warp_hops / warps : 0);
        printf("%s: %u blocks (%ld with tainted bytes), %ld bytes, match %.1f%%, tainted %.1f%%, runs %ld (%.1f B/run), "
               "seqs %ld: reading ext %.1f%%, producing tainted %.1f%%\n", argv[a], h->n_blocks, blocks_any, total,
               100.0*matchb/total, 100.0*tainted/total, runs, runs ? (double)tainted/runs : 0, nseq,
               100.0*extseq/nseq, 100.0*taintseq/nseq);
        free(src), free(scr), free(t), free(ref);
    }
    return 0;
}
