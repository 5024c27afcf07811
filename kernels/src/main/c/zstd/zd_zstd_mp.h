/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_mp.h - multi-pass, block-parallel decoding of large zstd frames (RFC 8878): the design
 * below, and each pass in a header of its own (zd_zstd_mp_scan.h, _entropy.h, _seqs.h, _link.h,
 * _exec.h, _resolve.h, _finish.h) over what they share (zd_zstd_mp_layout.h).
 *
 * The single-pass decoder (zd_zstd_frame.h) gives one work-group to a whole frame, so a batch
 * of a few large frames leaves the device idle. Here both the entropy work and the execution of
 * a frame are spread over one work-group per BLOCK:
 *
 *   Pass 1  zd_zstd_mp_scan_group       one group per chunk: item 0 walks the frame header and
 *           the chain of block headers; then the items share the blocks and, for compressed
 *           ones, parse the literals section header and the Huffman / FSE table descriptions
 *           (to find where each section ends); then item 0 records, block after block, where
 *           its Huffman table and each of its three FSE tables are DESCRIBED (the block that
 *           defined them: treeless literals and repeat modes inherit), and where its decoded
 *           literals and sequences go in scratch (running sums over the frame).
 *   Pass 2  zd_zstd_mp_entropy_group    one group per block slot: rebuilds the block's tables
 *           from those descriptions, decodes its Huffman streams (one item per stream) into
 *           the chunk's literal region, and decodes its sequences (item 0) into
 *           (litLen, matchLen, offset) triples. Repeat offsets depend on earlier blocks, so an
 *           offset is written either resolved or SYMBOLIC ("repeat offset j at the block's
 *           start, minus d"), and the block records its repeat offsets at its end in the same
 *           form, plus its output size.
 *   Link    zd_zstd_mp_link_group       one group per chunk, item 0: walks the block table once,
 *           giving each block its output position and its repeat offsets at entry.
 *   Pass 3  zd_zstd_mp_exec_group       persistent groups taking blocks in ticket order (block
 *           index major, so all chunks advance together): each block's sequences are executed
 *           by the whole group, a batch of one sequence per item: positions by prefix sums,
 *           literals byte-parallel, matches in rounds (a match runs once nothing pending in its
 *           batch writes its source). A match reading from before the block waits until the
 *           blocks it reads are done (their flags); they hold smaller tickets, so they belong
 *           to groups already running and every wait ends.
 *   Pass 4  zd_zstd_mp_finish_group     one group per chunk: the XXH64 checksum, or the
 *           single-pass decoder for chunks that fell back.
 *
 * Fallback: any chunk that is not exactly one zstd frame, that needs more block slots or
 * sequence scratch than its layout provides, or in which any pass finds an error, is decoded
 * again from scratch by zd_zstd_decode_frame_group in pass 4. Invalid input therefore gets
 * exactly the single-pass status, and the multi-pass code only has to be right on valid frames
 * and safe (in bounds, and never waiting forever) on every input.
 *
 * Scratch per chunk (caller-owned, ZD_GLOBAL, 8-byte aligned offsets), for dst_len D:
 *   slots(D,S) = min(D / ZD_MP_BYTES_PER_SLOT, S / 3) + 16  (S: src_len)  block table entries
 *   max_seq(D) = D / ZD_MP_BYTES_PER_SEQ + 1024                        sequences
 *   lit(D)     = round8(max(D, ZD_ZSTD_SCRATCH_PER_FRAME))             decoded literals
 *   bytes(D,S) = 64 + slots(D,S) * sizeof(zd_mp_block) + lit(D) + 12 * max_seq(D)
 * (zd_zstd_mp_scratch_bytes). The literal region doubles as the single-pass scratch when the
 * chunk falls back. Pass 2's grid strides over the sum of slots(D) over the chunks; slot_base[c]
 * is the first global slot of chunk c (slot_base[n] = total). The header of chunk 0 also holds
 * the batch's ticket counter and its largest block count (reset by pass 1).
 */
#ifndef ZD_ZSTD_MP_H
#define ZD_ZSTD_MP_H

#include "zstd/zd_zstd_mp_layout.h"
#include "zstd/zd_zstd_mp_scan.h"
#include "zstd/zd_zstd_mp_entropy.h"
#include "zstd/zd_zstd_mp_seqs.h"
#include "zstd/zd_zstd_mp_link.h"
#include "zstd/zd_zstd_mp_exec.h"
#include "zstd/zd_zstd_mp_resolve.h"
#include "zstd/zd_zstd_mp_finish.h"

#endif
