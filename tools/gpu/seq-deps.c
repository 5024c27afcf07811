/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seq-deps: how serial is the execution of zstd frames? Runs the multi-pass decoder's passes 1-2
 * and link (kernels/src/main/c/zstd/zd_zstd_mp.h, host build) over each frame, then measures on
 * the sequences of its compressed blocks, for batches of B consecutive sequences:
 *   - P-rounds: rounds of "every pending match whose source ends at or before the first pending
 *     match's output runs" (what an executor without pointer jumping needs), averaged per batch;
 *   - exact depth: the longest chain of matches in a batch whose sources overlap an earlier
 *     match's output in the same batch, averaged per batch;
 * plus the share of sequences reading an earlier block and a histogram of the offsets.
 *
 *   gcc -O2 -I kernels/src/main/c -o /tmp/seq-deps tools/gpu/seq-deps.c   (from the project root)
 *   /tmp/seq-deps DECODED_BYTES BATCH FRAME...      (e.g. 4152960 32 /tmp/zdgen/shard-frames/0000*)
 * Frames: python3 tools/gpu/shard-frames.py STORE OUT writes a sharded store's inner frames.
 */
#include "mp-frame.h"

#define MAX_BATCH 4096

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s DECODED_BYTES BATCH FRAME...\n", argv[0]);
        return 2;
    }
    zd_u64 d = strtoull(argv[1], NULL, 10);
    int batch = atoi(argv[2]);
    if (batch < 1 || batch > MAX_BATCH) {
        fprintf(stderr, "BATCH must be 1..%d\n", MAX_BATCH);
        return 2;
    }
    static zd_u32 M[MAX_BATCH], O[MAX_BATCH], L[MAX_BATCH];
    static int dep[MAX_BATCH], pend[MAX_BATCH], ready[MAX_BATCH];
    double sum_rounds = 0, sum_depth = 0;
    int frames = 0;
    for (int a = 3; a < argc; a++) {
        long n = 0;
        zd_u8 *src = NULL;
        zd_u8 *scr = mp_frame_open(argv[a], d, &src, &n);
        zd_mp_hdr *h = (zd_mp_hdr *)scr;
        if (h->mode != ZD_MP_MODE_RUN) {
            printf("%s: not decodable by the multi-pass path (mode %u)\n", argv[a], h->mode);
            free(src), free(scr);
            continue;
        }
        zd_mp_block *blk = (zd_mp_block *)(scr + ZD_MP_HDR_BYTES);
        const zd_u32 *seqs = (const zd_u32 *)(scr + zd_zstd_mp_seq_off(d, (zd_u64)n));
        long hist[32] = {0}, total = 0, cross = 0, batches = 0, rounds = 0, depth = 0;
        for (zd_u32 b = 0; b < h->n_blocks; b++) {
            zd_mp_block *k = blk + b;
            if (k->type != 2u) continue;
            const zd_u32 *s = seqs + 3u * k->seq_at;
            zd_u32 rel = 0;
            for (zd_u32 s0 = 0; s0 < k->nseq; s0 += (zd_u32)batch) {
                int cnt = (int)(k->nseq - s0 < (zd_u32)batch ? k->nseq - s0 : (zd_u32)batch);
                for (int i = 0; i < cnt; i++) {
                    zd_u32 q = s0 + (zd_u32)i;
                    zd_u32 ll = s[3u * q], ml = s[3u * q + 1u];
                    zd_u32 off = zd_mp_rep_resolve(s[3u * q + 2u], k->rep_in[0], k->rep_in[1], k->rep_in[2]);
                    M[i] = rel + ll;
                    L[i] = ml;
                    O[i] = off;
                    rel += ll + ml;
                    int lg = 0;
                    while (lg < 31 && (1u << lg) < off) lg++;
                    hist[lg]++;
                    total++;
                    if (off > M[i]) cross++;
                }
                /* exact: a match depends on every earlier match of the batch whose output overlaps its source */
                int maxd = 0;
                for (int i = 0; i < cnt; i++) {
                    dep[i] = 0;
                    if (L[i] == 0) continue;
                    dep[i] = 1;
                    long lo = (long)M[i] - O[i], hi = lo + (L[i] < O[i] ? L[i] : O[i]);
                    for (int j = 0; j < i; j++)
                        if (L[j] && (long)M[j] < hi && (long)(M[j] + L[j]) > lo && dep[j] + 1 > dep[i]) dep[i] = dep[j] + 1;
                    if (dep[i] > maxd) maxd = dep[i];
                }
                /* P-rule rounds */
                int left = 0, r = 0;
                for (int i = 0; i < cnt; i++) left += pend[i] = L[i] > 0;
                while (left) {
                    long p = -1;
                    for (int i = 0; i < cnt && p < 0; i++)
                        if (pend[i]) p = M[i];
                    for (int i = 0; i < cnt; i++)
                        ready[i] = pend[i] && (long)M[i] - O[i] + (L[i] < O[i] ? L[i] : O[i]) <= p;
                    for (int i = 0; i < cnt; i++)
                        if (ready[i]) pend[i] = 0, left--;
                    r++;
                }
                rounds += r;
                depth += maxd;
                batches++;
            }
        }
        double ar = batches ? (double)rounds / batches : 0, ad = batches ? (double)depth / batches : 0;
        printf("%s: %u blocks, %ld sequences, %.1f%% read an earlier block; batch %d: P-rounds %.1f, exact depth %.1f; "
               "offsets <= 2^k:",
               argv[a], h->n_blocks, total, total ? 100.0 * cross / total : 0, batch, ar, ad);
        for (int lg = 0; lg < 32; lg++)
            if (hist[lg]) printf(" %d:%ld", lg, hist[lg]);
        printf("\n");
        sum_rounds += ar;
        sum_depth += ad;
        frames++;
        free(src), free(scr);
    }
    if (frames > 1) printf("mean over %d frames: P-rounds %.2f, exact depth %.2f\n", frames, sum_rounds / frames,
                           sum_depth / frames);
    return 0;
}
