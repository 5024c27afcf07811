/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_portable.h - the only file that knows which front end compiles the kernels.
 *
 * Three modes:
 *   OpenCL C  (__OPENCL_VERSION__ or __OPENCL_C_VERSION__ defined by the OpenCL compiler)
 *   CUDA      (__CUDACC__ defined by nvcc)
 *   host C    (anything else; ZD_HOST is defined here): plain C99/C11 + pthreads, used by the
 *             tests. A "work-group" is emulated by zd_host_group_run(): local_size threads share
 *             one ZD_LOCAL scratch and meet at zd_host_barrier_wait. With local_size 1 the barrier
 *             is a no-op and everything runs on the calling thread.
 *
 * Macros every other file may use:
 *   ZD_KERNEL        kernel entry qualifier (extern "C" __global__ on CUDA)
 *   ZD_GLOBAL        address space of device buffers (pointer qualifier)
 *   ZD_LOCAL         address space of work-group shared memory (pointer qualifier)
 *   ZD_LOCAL_DECL    storage class for a work-group shared variable declared in a kernel
 *   ZD_CONST_TABLE   storage class for a file-scope read-only lookup table
 *   ZD_INLINE        small per-item helper function
 *   ZD_FUNC          larger device function (not forced inline)
 *   ZD_BARRIER()     work-group barrier that also orders global and local memory
 *   ZD_TAIL_BARRIER_OK(first)  1 where items first .. local_size - 1 can meet at a barrier of their
 *                    own while the others run on (CUDA: whole warps; the host: any split), else 0
 *   ZD_TAIL_BARRIER(first)     that barrier, ordering global and local memory among those items;
 *                    only where ZD_TAIL_BARRIER_OK(first), with every one of them calling it
 *   zd_group_id(), zd_local_id(), zd_local_size(), zd_num_groups()
 *   ZD_STATIC_ASSERT(cond, name)
 *   ZD_UNROLL        before a loop with a small constant trip count: unroll it fully
 *   zd_u8 .. zd_u64, zd_i8 .. zd_i64
 *   zd_highbit32(x)  index of the highest set bit of x (x != 0)
 *   zd_popcount_u64(x) how many bits of the 64-bit x are set (a zd_u32)
 *   ZD_U64(c)        64-bit unsigned integer constant
 *   zd_addr_mod4(p)  the low two bits of a global pointer's address
 *   zd_addr_mod8(p)  the low three bits of a global pointer's address
 *   ZD_LITTLE_ENDIAN 1 where the device stores words little-endian (then a typed load of an aligned
 *                    global address reads a little-endian element), else 0
 *   zd_ld_u32a(p)    the little-endian 32-bit word at a 4-aligned global address p
 *   zd_st_u32a(p, v) stores v little-endian at a 4-aligned global address p
 *   zd_prefetch(p)   asks for the global memory at p to be brought near the item (CUDA: into
 *                    L1), without waiting for it or using a register
 *   ZD_TEST_MAX(slot, v)  the host build keeps the largest v (a zd_u32) seen at slot 0..7 for its
 *                    tests (zd_host_test_max); elsewhere it is nothing
 */
#ifndef ZD_PORTABLE_H
#define ZD_PORTABLE_H

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
/* ------------------------------------------------------------------ OpenCL C */
typedef uchar zd_u8;
typedef ushort zd_u16;
typedef uint zd_u32;
typedef ulong zd_u64;
typedef char zd_i8;
typedef short zd_i16;
typedef int zd_i32;
typedef long zd_i64;
#define ZD_KERNEL __kernel
#define ZD_GLOBAL __global
#define ZD_LOCAL __local
#define ZD_LOCAL_DECL __local
#define ZD_CONST_TABLE __constant
#define ZD_INLINE static inline
#define ZD_FUNC static
#define ZD_BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
/* OpenCL 1.2 has no barrier for part of a group (sub-group barriers are optional) */
#define ZD_TAIL_BARRIER_OK(first) 0
#define ZD_TAIL_BARRIER(first) ZD_BARRIER()
#define zd_group_id() ((zd_u32)get_group_id(0))
#define zd_local_id() ((zd_u32)get_local_id(0))
#define zd_local_size() ((zd_u32)get_local_size(0))
#define zd_num_groups() ((zd_u32)get_num_groups(0))
#define ZD_STATIC_ASSERT(cond, name) typedef char zd_static_assert_##name[(cond) ? 1 : -1]
#define zd_highbit32(x) (31u - (zd_u32)clz((zd_u32)(x)))
#define zd_popcount_u64(x) ((zd_u32)popcount((zd_u64)(x)))
#define ZD_U64(c) c##ul /* ulong is 64-bit; "long long" is 128-bit in OpenCL C */
#define zd_addr_mod4(p) ((zd_u32)((size_t)(p) & 3u))
#define zd_addr_mod8(p) ((zd_u32)((size_t)(p) & 7u))
#if defined(__ENDIAN_LITTLE__)
#define ZD_LITTLE_ENDIAN 1
#define zd_ld_u32a(p) (*(const __global zd_u32 *)(p))
#define zd_st_u32a(p, v) (*(__global zd_u32 *)(p) = (v))
#else
#define ZD_LITTLE_ENDIAN 0
#define zd_ld_u32a(p) ((zd_u32)(p)[0] | ((zd_u32)(p)[1] << 8) | ((zd_u32)(p)[2] << 16) | ((zd_u32)(p)[3] << 24))
#define zd_st_u32a(p, v) \
    ((p)[0] = (zd_u8)(v), (p)[1] = (zd_u8)((v) >> 8), (p)[2] = (zd_u8)((v) >> 16), (p)[3] = (zd_u8)((v) >> 24))
#endif
#define zd_prefetch(p) prefetch((const __global zd_u8 *)(p), 1)
#define ZD_TEST_MAX(slot, v) ((void)0)
#define ZD_UNROLL _Pragma("unroll")

#elif defined(__CUDACC__)
/* ------------------------------------------------------------------ CUDA */
typedef unsigned char zd_u8;
typedef unsigned short zd_u16;
typedef unsigned int zd_u32;
typedef unsigned long long zd_u64;
typedef signed char zd_i8;
typedef short zd_i16;
typedef int zd_i32;
typedef long long zd_i64;
#define ZD_KERNEL extern "C" __global__
#define ZD_GLOBAL
#define ZD_LOCAL
#define ZD_LOCAL_DECL __shared__
#define ZD_CONST_TABLE static __constant__ const
#define ZD_INLINE static __device__ __forceinline__
#define ZD_FUNC static __device__
#define ZD_BARRIER() __syncthreads()
/* named barrier 1 (__syncthreads is 0), counted in threads: whole warps only */
#define ZD_TAIL_BARRIER_OK(first) ((first) > 0u && ((first) & 31u) == 0u && (zd_local_size() & 31u) == 0u)
#define ZD_TAIL_BARRIER(first) asm volatile("bar.sync 1, %0;" ::"r"(zd_local_size() - (first)) : "memory")
#define zd_group_id() ((zd_u32)blockIdx.x)
#define zd_local_id() ((zd_u32)threadIdx.x)
#define zd_local_size() ((zd_u32)blockDim.x)
#define zd_num_groups() ((zd_u32)gridDim.x)
#define ZD_STATIC_ASSERT(cond, name) static_assert((cond), #name)
#define zd_highbit32(x) (31u - (zd_u32)__clz((int)(x)))
#define zd_popcount_u64(x) ((zd_u32)__popcll((unsigned long long)(x)))
#define ZD_U64(c) c##ull
#define zd_addr_mod4(p) ((zd_u32)((size_t)(p) & 3u))
#define zd_addr_mod8(p) ((zd_u32)((size_t)(p) & 7u))
#define ZD_LITTLE_ENDIAN 1
#define zd_ld_u32a(p) (*(const zd_u32 *)(p))
#define zd_st_u32a(p, v) (*(zd_u32 *)(p) = (v))
#define zd_prefetch(p) asm volatile("prefetch.global.L1 [%0];" ::"l"((const void *)(p)))
#define ZD_TEST_MAX(slot, v) ((void)0)
#define ZD_UNROLL _Pragma("unroll")

#else
/* ------------------------------------------------------------------ host C (tests) */
#ifndef ZD_HOST
#define ZD_HOST 1
#endif
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
typedef uint8_t zd_u8;
typedef uint16_t zd_u16;
typedef uint32_t zd_u32;
typedef uint64_t zd_u64;
typedef int8_t zd_i8;
typedef int16_t zd_i16;
typedef int32_t zd_i32;
typedef int64_t zd_i64;
#define ZD_KERNEL __attribute__((visibility("default")))
#define ZD_GLOBAL
#define ZD_LOCAL
#define ZD_LOCAL_DECL static
#define ZD_CONST_TABLE static const
#define ZD_INLINE static inline
#define ZD_FUNC static
#define ZD_STATIC_ASSERT(cond, name) _Static_assert((cond), #name)
#define zd_highbit32(x) (31u - (zd_u32)__builtin_clz((unsigned)(x)))
#define zd_popcount_u64(x) ((zd_u32)__builtin_popcountll((unsigned long long)(x)))
#define ZD_U64(c) c##ull
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the host build of the kernels assumes a little-endian machine"
#endif
#define zd_addr_mod4(p) ((zd_u32)((uintptr_t)(p) & 3u))
#define zd_addr_mod8(p) ((zd_u32)((uintptr_t)(p) & 7u))
#define ZD_LITTLE_ENDIAN 1
static inline zd_u32 zd_ld_u32a(const zd_u8 *p) {
    zd_u32 v;
    __builtin_memcpy(&v, p, 4);
    return v;
}
static inline void zd_st_u32a(zd_u8 *p, zd_u32 v) { __builtin_memcpy(p, &v, 4); }
#define zd_prefetch(p) __builtin_prefetch((const void *)(p))
static zd_u32 zd_host_test_maxima[8];
static inline void zd_host_test_note(zd_u32 slot, zd_u32 v) {
    zd_u32 m = __atomic_load_n(&zd_host_test_maxima[slot & 7u], __ATOMIC_RELAXED);
    while (v > m && !__atomic_compare_exchange_n(&zd_host_test_maxima[slot & 7u], &m, v, 1, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED)) {
    }
}
#define ZD_TEST_MAX(slot, v) zd_host_test_note((slot), (zd_u32)(v))
#define ZD_UNROLL

/* A work-group's barrier: the last item to arrive resets the count and flips the sense, the others
   spin on the sense, giving their core away after a few tries. The tests run groups of up to 1024
   emulated items on a few cores, where glibc's futex barrier took 35 us a crossing for 2 items and
   264 us for 64 (2 cores, 20,000 crossings); this one 0.5 and 79. Sequentially consistent atomics
   order every item's writes, to "global" and "local" memory alike, before the crossing. */
typedef struct {
    zd_u32 count, sense, n;
} zd_host_barrier_t;

/* n: the items that meet there (b->n for the group's) */
static inline void zd_host_barrier_wait(zd_host_barrier_t *b, zd_u32 *sense, zd_u32 n) {
    zd_u32 s = *sense ^= 1u;
    if (__atomic_add_fetch(&b->count, 1u, __ATOMIC_SEQ_CST) == n) {
        __atomic_store_n(&b->count, 0u, __ATOMIC_SEQ_CST);
        __atomic_store_n(&b->sense, s, __ATOMIC_SEQ_CST);
        return;
    }
    for (zd_u32 spins = 0; __atomic_load_n(&b->sense, __ATOMIC_SEQ_CST) != s;)
        if (++spins > 64u) sched_yield();
}

/* Per-thread identity of an emulated work-item, and its side of the group's barrier. */
typedef struct {
    zd_u32 group_id;
    zd_u32 local_id;
    zd_u32 local_size;
    zd_u32 num_groups;
    zd_host_barrier_t *barrier;
    zd_u32 sense;
    zd_host_barrier_t *tail; /* ZD_TAIL_BARRIER's */
    zd_u32 tsense;
} zd_host_item;
static __thread zd_host_item zd_host_self = {0u, 0u, 1u, 1u, NULL, 0u, NULL, 0u};

static inline void zd_host_barrier(void) {
    if (zd_host_self.local_size > 1u)
        zd_host_barrier_wait(zd_host_self.barrier, &zd_host_self.sense, zd_host_self.barrier->n);
}
#define ZD_BARRIER() zd_host_barrier()
/* Items first .. local_size - 1 only: each of them counts them the same. */
static inline void zd_host_tail_barrier(zd_u32 first) {
    zd_u32 n = zd_host_self.local_size - first;
    if (n > 1u) zd_host_barrier_wait(zd_host_self.tail, &zd_host_self.tsense, n);
}
/* Tests turn it off (zd_host_set_tail_barrier) to run the loops OpenCL runs with several items. */
static zd_u32 zd_host_tail_off = 0u;
#define ZD_TAIL_BARRIER_OK(first) ((first) > 0u && !__atomic_load_n(&zd_host_tail_off, __ATOMIC_SEQ_CST))
#define ZD_TAIL_BARRIER(first) zd_host_tail_barrier(first)
#define zd_group_id() (zd_host_self.group_id)
#define zd_local_id() (zd_host_self.local_id)
#define zd_local_size() (zd_host_self.local_size)
#define zd_num_groups() (zd_host_self.num_groups)

/* Runs body(arg) once per emulated work-item of group `group_id` with `local_size` items. */
typedef void (*zd_host_body)(void *arg);
typedef struct {
    zd_host_body body;
    void *arg;
    zd_host_item item;
    zd_u32 *go; /* 0: wait, 1: run, 2: every item could not be started: return */
} zd_host_thread_arg;
static void *zd_host_thread_main(void *p) {
    zd_host_thread_arg *a = (zd_host_thread_arg *)p;
    zd_host_self = a->item;
    zd_u32 go;
    while ((go = __atomic_load_n(a->go, __ATOMIC_ACQUIRE)) == 0u) sched_yield();
    if (go == 1u) a->body(a->arg);
    return NULL;
}
/* 0, or -1 if memory or threads ran out (then body ran on no item: a group short of an item would
   wait at its first barrier for ever). */
static inline int zd_host_group_run(zd_u32 group_id, zd_u32 num_groups, zd_u32 local_size, zd_host_body body,
                                    void *arg) {
    if (local_size <= 1u) {
        zd_host_item saved = zd_host_self;
        zd_host_self.group_id = group_id;
        zd_host_self.local_id = 0u;
        zd_host_self.local_size = 1u;
        zd_host_self.num_groups = num_groups;
        zd_host_self.barrier = NULL;
        zd_host_self.tail = NULL;
        body(arg);
        zd_host_self = saved;
        return 0;
    }
    zd_host_barrier_t bar = {0u, 0u, local_size}, tail = {0u, 0u, 0u}; /* the tail's callers give their count */
    zd_u32 go = 0u;
    pthread_t *th = (pthread_t *)malloc(sizeof(pthread_t) * local_size);
    zd_host_thread_arg *ta = (zd_host_thread_arg *)malloc(sizeof(zd_host_thread_arg) * local_size);
    if (th == NULL || ta == NULL) { free(th); free(ta); return -1; }
    zd_u32 started = 0u;
    for (; started < local_size; started++) {
        zd_host_thread_arg *t = &ta[started];
        t->body = body;
        t->arg = arg;
        t->item.group_id = group_id;
        t->item.local_id = started;
        t->item.local_size = local_size;
        t->item.num_groups = num_groups;
        t->item.barrier = &bar;
        t->item.sense = 0u;
        t->item.tail = &tail;
        t->item.tsense = 0u;
        t->go = &go;
        if (pthread_create(&th[started], NULL, zd_host_thread_main, t) != 0) break;
    }
    __atomic_store_n(&go, started == local_size ? 1u : 2u, __ATOMIC_RELEASE);
    for (zd_u32 i = 0; i < started; i++) pthread_join(th[i], NULL);
    free(th);
    free(ta);
    return started == local_size ? 0 : -1;
}
#endif

/* ------------------------------------------------------------------ cross-group synchronisation
 * Used only where one group waits for another group's output inside one launch (the multi-pass
 * zstd executor): groups take work in ticket order from a global counter, so a group only ever
 * waits for work already taken by a running group, and every wait ends.
 *   zd_atomic_add_u32(p, v)       global, returns the old value
 *   zd_atomic_max_u32(p, v)       global
 *   zd_atomic_min_u32_local(p, v), zd_atomic_add_u32_local(p, v), zd_atomic_or_u32_local(p, v):
 *                                 local, return the old value
 *   zd_atomic_min_u64_local(p, v)
 *   zd_fence()                    orders this item's global writes before its later ones, and its
 *                                 earlier reads of a flag before its later reads (device scope)
 *   zd_fence_local()              the same, as seen by the items of its own group (cheaper)
 *   zd_load_flag(p), zd_store_flag(p, v): a u32 flag in global memory read/written past caches
 *   zd_ld_cg_u8(p)                a byte of global memory written by another group, read past the
 *                                 group's non-coherent cache (CUDA: L1)
 *   zd_spin_pause()               back off while spinning on a flag
 */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define zd_atomic_add_u32(p, v) atomic_add((volatile __global zd_u32 *)(p), (v))
#define zd_atomic_max_u32(p, v) atomic_max((volatile __global zd_u32 *)(p), (v))
#define zd_atomic_min_u32_local(p, v) atomic_min((volatile __local zd_u32 *)(p), (v))
#define zd_atomic_add_u32_local(p, v) atomic_add((volatile __local zd_u32 *)(p), (v))
#define zd_atomic_or_u32_local(p, v) atomic_or((volatile __local zd_u32 *)(p), (v))
#define zd_fence() mem_fence(CLK_GLOBAL_MEM_FENCE)
#define zd_fence_local() mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define zd_load_flag(p) (*(volatile __global zd_u32 *)(p))
#define zd_ld_cg_u8(p) (*(p))
#define zd_store_flag(p, v) (*(volatile __global zd_u32 *)(p) = (v))
#define zd_spin_pause() ((void)0)
#elif defined(__CUDACC__)
#define zd_atomic_add_u32(p, v) atomicAdd((zd_u32 *)(p), (zd_u32)(v))
#define zd_atomic_max_u32(p, v) atomicMax((zd_u32 *)(p), (zd_u32)(v))
#define zd_atomic_min_u32_local(p, v) atomicMin((zd_u32 *)(p), (zd_u32)(v))
#define zd_atomic_add_u32_local(p, v) atomicAdd((zd_u32 *)(p), (zd_u32)(v))
#define zd_atomic_or_u32_local(p, v) atomicOr((zd_u32 *)(p), (zd_u32)(v))
#define zd_atomic_min_u64_local(p, v) atomicMin((zd_u64 *)(p), (zd_u64)(v))
#define zd_fence() __threadfence()
#define zd_fence_local() __threadfence_block()
#define zd_load_flag(p) (*(volatile zd_u32 *)(p))
#define zd_ld_cg_u8(p) __ldcg((const unsigned char *)(p))
#define zd_store_flag(p, v) (*(volatile zd_u32 *)(p) = (v))
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
#define zd_spin_pause() __nanosleep(64)
#else
#define zd_spin_pause() ((void)0)
#endif
#else
#define zd_atomic_add_u32(p, v) __atomic_fetch_add((zd_u32 *)(p), (zd_u32)(v), __ATOMIC_SEQ_CST)
#define zd_atomic_max_u32(p, v) zd_host_atomic_max_u32((zd_u32 *)(p), (zd_u32)(v))
#define zd_atomic_min_u32_local(p, v) zd_host_atomic_min_u32((zd_u32 *)(p), (zd_u32)(v))
#define zd_atomic_add_u32_local(p, v) __atomic_fetch_add((zd_u32 *)(p), (zd_u32)(v), __ATOMIC_SEQ_CST)
#define zd_atomic_or_u32_local(p, v) __atomic_fetch_or((zd_u32 *)(p), (zd_u32)(v), __ATOMIC_SEQ_CST)
#define zd_atomic_min_u64_local(p, v) zd_host_atomic_min_u64((zd_u64 *)(p), (zd_u64)(v))
#define zd_fence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define zd_fence_local() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define zd_load_flag(p) __atomic_load_n((zd_u32 *)(p), __ATOMIC_ACQUIRE)
#define zd_ld_cg_u8(p) (*(p))
#define zd_store_flag(p, v) __atomic_store_n((zd_u32 *)(p), (zd_u32)(v), __ATOMIC_RELEASE)
#define zd_spin_pause() sched_yield() /* emulated groups outnumber the cores */
static inline zd_u32 zd_host_atomic_max_u32(zd_u32 *p, zd_u32 v) {
    zd_u32 o = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (o < v && !__atomic_compare_exchange_n(p, &o, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return o;
}
static inline zd_u32 zd_host_atomic_min_u32(zd_u32 *p, zd_u32 v) {
    zd_u32 o = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (o > v && !__atomic_compare_exchange_n(p, &o, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return o;
}
static inline zd_u64 zd_host_atomic_min_u64(zd_u64 *p, zd_u64 v) {
    zd_u64 o = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (o > v && !__atomic_compare_exchange_n(p, &o, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return o;
}
#endif

/* ------------------------------------------------------------------ work-group collectives
 * zd_scan_excl_u64_group(v, tmp, &total): exclusive prefix sum of v over the items of the group
 * (in local id order); total gets the sum of all. Every item calls. tmp: ZD_SCAN_TMP_WORDS u64 of
 * local memory, free again when the call returns. On CUDA the group must be whole warps.
 */
#define ZD_SCAN_MAX_ITEMS 1024u
#if defined(__CUDACC__)
#define ZD_SCAN_TMP_WORDS 32u
ZD_INLINE zd_u64 zd_scan_excl_u64_group(zd_u64 v, ZD_LOCAL zd_u64 *tmp, zd_u64 *total) {
    zd_u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, nw = (blockDim.x + 31u) >> 5;
    zd_u64 x = v;
    for (zd_u32 o = 1u; o < 32u; o <<= 1) {
        zd_u64 y = __shfl_up_sync(0xFFFFFFFFu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31u) tmp[warp] = x;
    __syncthreads();
    if (warp == 0u) {
        zd_u64 w = lane < nw ? tmp[lane] : 0u;
        for (zd_u32 o = 1u; o < 32u; o <<= 1) {
            zd_u64 y = __shfl_up_sync(0xFFFFFFFFu, w, o);
            if (lane >= o) w += y;
        }
        tmp[lane] = w;
    }
    __syncthreads();
    zd_u64 base = warp > 0u ? tmp[warp - 1u] : 0u;
    *total = tmp[nw - 1u];
    __syncthreads();
    return base + x - v;
}
#else
#define ZD_SCAN_TMP_WORDS ZD_SCAN_MAX_ITEMS
ZD_INLINE zd_u64 zd_scan_excl_u64_group(zd_u64 v, ZD_LOCAL zd_u64 *tmp, zd_u64 *total) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    tmp[lid] = v;
    ZD_BARRIER();
    for (zd_u32 o = 1u; o < ls; o <<= 1) {
        zd_u64 y = lid >= o ? tmp[lid - o] : 0u;
        ZD_BARRIER();
        tmp[lid] += y;
        ZD_BARRIER();
    }
    zd_u64 incl = tmp[lid];
    *total = tmp[ls - 1u];
    ZD_BARRIER();
    return incl - v;
}
#endif

/* ------------------------------------------------------------------ floating point
 * IEEE arithmetic with one defined result on every front end (the plane gather needs the same bits
 * from CUDA, OpenCL and the host). No front end may contract, flush or reassociate these:
 *   zd_f32_bits(x), zd_f32_from_bits(u)   float <-> its bits (zd_u32)
 *   zd_fma_f32(a, b, c)                   a * b + c rounded once, to nearest even
 *   ZD_HAS_F64                            1 where double exists (OpenCL: with cl_khr_fp64), else 0; then
 *   zd_f64_from_bits(u)                   the double whose bits are u (zd_u64)
 *   zd_f64_bits(x)                        the bits of the double x (zd_u64)
 *   zd_fma_f64(a, b, c)                   a * b + c in double, rounded once, to nearest even
 *   zd_f64_to_f32(x)                      double to float, to nearest even
 *   ZD_HAS_F16_RNE                        1 where zd_f32_to_f16_rne(x) converts in hardware (float to the
 *                                         bits of an IEEE half, to nearest even, overflow to infinity;
 *                                         NaN inputs are the caller's business); 0: convert in software
 *   zd_u32x4, zd_u16x4, zd_u64x2          small vectors with members x, y (, z, w), aligned to their size,
 *                                         for one wide load or store
 */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define zd_f32_bits(x) as_uint(x)
#define zd_f32_from_bits(u) as_float(u)
#define zd_fma_f32(a, b, c) fma((float)(a), (float)(b), (float)(c)) /* correctly rounded in every profile */
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define ZD_HAS_F64 1
#define zd_f64_from_bits(u) as_double(u)
#define zd_f64_bits(x) as_ulong(x)
#define zd_fma_f64(a, b, c) fma((double)(a), (double)(b), (double)(c))
#define zd_f64_to_f32(x) convert_float_rte(x)
#else
#define ZD_HAS_F64 0
#endif
#define ZD_HAS_F16_RNE 0
typedef uint4 zd_u32x4;
typedef ushort4 zd_u16x4;
typedef ulong2 zd_u64x2;
#elif defined(__CUDACC__)
#include <cuda_fp16.h>
#define zd_f32_bits(x) __float_as_uint(x)
#define zd_f32_from_bits(u) __uint_as_float(u)
#define zd_fma_f32(a, b, c) __fmaf_rn((a), (b), (c))
#define ZD_HAS_F64 1
#define zd_f64_from_bits(u) __longlong_as_double((long long)(u))
#define zd_f64_bits(x) ((zd_u64)__double_as_longlong(x))
#define zd_fma_f64(a, b, c) __fma_rn((a), (b), (c))
#define zd_f64_to_f32(x) __double2float_rn(x)
#define ZD_HAS_F16_RNE 1
#define zd_f32_to_f16_rne(x) ((zd_u32)__half_as_ushort(__float2half_rn(x)))
typedef uint4 zd_u32x4;
typedef ushort4 zd_u16x4;
typedef ulonglong2 zd_u64x2;
#else
#include <math.h>
#include <string.h>
static inline zd_u32 zd_f32_bits(float x) {
    zd_u32 u;
    memcpy(&u, &x, 4);
    return u;
}
static inline float zd_f32_from_bits(zd_u32 u) {
    float x;
    memcpy(&x, &u, 4);
    return x;
}
static inline double zd_f64_from_bits(zd_u64 u) {
    double x;
    memcpy(&x, &u, 8);
    return x;
}
static inline zd_u64 zd_f64_bits(double x) {
    zd_u64 u;
    memcpy(&u, &x, 8);
    return u;
}
#define zd_fma_f32(a, b, c) fmaf((a), (b), (c))
#define ZD_HAS_F64 1
#define zd_fma_f64(a, b, c) fma((a), (b), (c))
#define zd_f64_to_f32(x) ((float)(x)) /* the default rounding mode: to nearest even */
#define ZD_HAS_F16_RNE 0
typedef struct { zd_u32 x, y, z, w; } __attribute__((aligned(16))) zd_u32x4;
typedef struct { zd_u16 x, y, z, w; } __attribute__((aligned(8))) zd_u16x4;
typedef struct { zd_u64 x, y; } __attribute__((aligned(16))) zd_u64x2;
#endif

/* ------------------------------------------------------------------ shared helpers */
ZD_INLINE zd_u64 zd_min_u64(zd_u64 a, zd_u64 b) { return a < b ? a : b; }
ZD_INLINE zd_u64 zd_max_u64(zd_u64 a, zd_u64 b) { return a > b ? a : b; }
ZD_INLINE zd_u64 zd_rotl64(zd_u64 x, zd_u32 r) { return (x << r) | (x >> (64u - r)); }

#endif /* ZD_PORTABLE_H */
