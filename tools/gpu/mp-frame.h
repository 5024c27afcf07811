/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mp-frame.h - for the host tools that study zstd frames through the multi-pass decoder's tables
 * (seq-deps.c, taint.c): read a frame file, and run passes 1-2 and link over it (host build of
 * kernels/src/main/c/zstd/zd_zstd_mp.h), leaving the block table and sequences in scratch.
 */
#ifndef ZD_TOOLS_MP_FRAME_H
#define ZD_TOOLS_MP_FRAME_H

#include "zd_portable.h"
#include "zstd/zd_zstd_mp.h"

#include <stdio.h>
#include <stdlib.h>

/* The whole file, malloc'd, its length in *len; NULL if it cannot be read. */
static zd_u8 *mp_frame_read(const char *path, long *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    rewind(f);
    zd_u8 *b = malloc((size_t)*len);
    if (b != NULL && fread(b, 1, (size_t)*len, f) != (size_t)*len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

/* Passes 1-2 and link over the n bytes of src (d decoded bytes) into new scratch (calloc'd, the
   caller frees it); NULL when out of memory. The header at its start says whether the frame took
   the multi-pass path (mode ZD_MP_MODE_RUN). */
static zd_u8 *mp_frame_tables(const zd_u8 *src, long n, zd_u64 d) {
    zd_u8 *scr = calloc(1, zd_zstd_mp_scratch_bytes(d, (zd_u64)n));
    /* pass 1 wants a zd_mp_scan_lds, pass 2 a zd_mp_entropy_lds: one buffer for both */
    void *lds = malloc(sizeof(zd_mp_scan_lds) + sizeof(zd_mp_entropy_lds));
    if (scr == NULL || lds == NULL) {
        free(scr), free(lds);
        return NULL;
    }
    zd_zstd_mp_scan_group(src, (zd_u64)n, d, scr, 1u, lds);
    zd_mp_hdr *h = (zd_mp_hdr *)scr;
    if (h->mode == ZD_MP_MODE_RUN)
        for (zd_u32 b = 0; b < h->n_blocks; b++) zd_zstd_mp_entropy_group(src, (zd_u64)n, d, scr, b, lds, 0u, h);
    if (h->mode == ZD_MP_MODE_RUN) zd_zstd_mp_link_group(d, scr, h);
    free(lds);
    return scr;
}

/* mp_frame_read then mp_frame_tables, exiting with a message if either fails: the frame in *src
   (*n bytes), its scratch returned. */
static zd_u8 *mp_frame_open(const char *path, zd_u64 d, zd_u8 **src, long *n) {
    *src = mp_frame_read(path, n);
    if (*src == NULL) {
        fprintf(stderr, "%s: cannot read\n", path);
        exit(1);
    }
    zd_u8 *scr = mp_frame_tables(*src, *n, d);
    if (scr == NULL) {
        fprintf(stderr, "%s: out of memory for %llu decoded bytes\n", path, (unsigned long long)d);
        exit(1);
    }
    return scr;
}

#endif
