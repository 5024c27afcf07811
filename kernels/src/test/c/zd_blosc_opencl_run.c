/* SPDX-License-Identifier: Apache-2.0 */
/* Runs the OpenCL blosc kernels (the generated opencl/zd_blosc_flat.cl) on the first OpenCL platform
 * (PoCL on the CPU in CI) over the c-blosc corpus, and checks statuses, bytes and guard bytes as
 * BloscKernelTest does. Run by BloscOpenClTest where libOpenCL.so.1 and a platform exist.
 *   gcc -O1 -o blosc-ocl src/test/c/zd_blosc_opencl_run.c -ldl
 *   ./blosc-ocl target/classes/dev/zarrdirect/kernels/opencl/zd_blosc_flat.cl src/test/resources/blosc/corpus.bin [quick]
 * quick: zd_blosc_decode_lz on groups of 8, zd_blosc_decode_lz_thread on groups of 1,
 * zd_blosc_decode_lz_resolve on groups of 32 and zd_blosc_decode_lz_overlap on groups of 64 only (each
 * work-group size is a compilation of its own on PoCL). ZD_OCL_ZSTD=1 adds zd_blosc_decode (the entry
 * with the zstd and zlib decoders), which PoCL 3.1 fails to compile (an assertion in its ParallelRegion pass).
 * No OpenCL headers needed: the few entry points are looked up with dlsym. Exit 0: all good; 1: a
 * check failed; 2: bad input; 77: no OpenCL platform or device. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef void *cl_platform_id, *cl_device_id, *cl_context, *cl_program, *cl_kernel, *cl_command_queue, *cl_mem;

static cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
static cl_int (*GetDeviceIDs)(cl_platform_id, cl_ulong, cl_uint, cl_device_id *, cl_uint *);
static cl_context (*CreateContext)(void *, cl_uint, cl_device_id *, void *, void *, cl_int *);
static cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, cl_ulong, cl_int *);
static cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *, cl_int *);
static cl_int (*BuildProgram)(cl_program, cl_uint, cl_device_id *, const char *, void *, void *);
static cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_uint, size_t, void *, size_t *);
static cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
static cl_mem (*CreateBuffer)(cl_context, cl_ulong, size_t, void *, cl_int *);
static cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
static cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                                      const size_t *, cl_uint, const void *, void *);
static cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void *, cl_uint, const void *,
                                   void *);
static cl_int (*EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void *, cl_uint,
                                    const void *, void *);
static cl_int (*Finish)(cl_command_queue);
static cl_int (*ReleaseMemObject)(cl_mem);

#define CL_MEM_READ_WRITE 1u
#define CL_MEM_COPY_HOST_PTR (1u << 5)
#define CL_PROGRAM_BUILD_LOG 0x1183u
#define CHECK(e, what)                                                                                               \
    do {                                                                                                             \
        cl_int e_ = (e);                                                                                             \
        if (e_ != 0) {                                                                                               \
            fprintf(stderr, "%s failed: %d\n", what, e_);                                                            \
            exit(1);                                                                                                 \
        }                                                                                                            \
    } while (0)

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = (unsigned char *)malloc(*n + 1u);
    if (b == NULL || fread(b, 1, *n, f) != *n) exit(2);
    b[*n] = 0;
    fclose(f);
    return b;
}
static uint32_t rd32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static void *sym(void *h, const char *name) {
    void *p = dlsym(h, name);
    if (p == NULL) {
        fprintf(stderr, "libOpenCL.so.1 lacks %s\n", name);
        exit(77);
    }
    return p;
}

static cl_context ctx;
static cl_command_queue q;
static cl_mem buffer(size_t n, const void *init) {
    cl_int e;
    cl_mem m = CreateBuffer(ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0u), n ? n : 1u, (void *)init, &e);
    CHECK(e, "clCreateBuffer");
    return m;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s zd_blosc_flat.cl corpus.bin\n", argv[0]);
        return 2;
    }
    void *h = dlopen("libOpenCL.so.1", RTLD_NOW);
    if (h == NULL) {
        fprintf(stderr, "no libOpenCL.so.1: %s\n", dlerror());
        return 77;
    }
    *(void **)&GetPlatformIDs = sym(h, "clGetPlatformIDs");
    *(void **)&GetDeviceIDs = sym(h, "clGetDeviceIDs");
    *(void **)&CreateContext = sym(h, "clCreateContext");
    *(void **)&CreateCommandQueue = sym(h, "clCreateCommandQueue");
    *(void **)&CreateProgramWithSource = sym(h, "clCreateProgramWithSource");
    *(void **)&BuildProgram = sym(h, "clBuildProgram");
    *(void **)&GetProgramBuildInfo = sym(h, "clGetProgramBuildInfo");
    *(void **)&CreateKernel = sym(h, "clCreateKernel");
    *(void **)&CreateBuffer = sym(h, "clCreateBuffer");
    *(void **)&SetKernelArg = sym(h, "clSetKernelArg");
    *(void **)&EnqueueNDRangeKernel = sym(h, "clEnqueueNDRangeKernel");
    *(void **)&EnqueueReadBuffer = sym(h, "clEnqueueReadBuffer");
    *(void **)&EnqueueWriteBuffer = sym(h, "clEnqueueWriteBuffer");
    *(void **)&Finish = sym(h, "clFinish");
    *(void **)&ReleaseMemObject = sym(h, "clReleaseMemObject");
    cl_platform_id plat;
    cl_uint np = 0;
    cl_device_id dev;
    if (GetPlatformIDs(1, &plat, &np) != 0 || np == 0 || GetDeviceIDs(plat, 0xFFFFFFFFu, 1, &dev, NULL) != 0) {
        fprintf(stderr, "no OpenCL platform or device\n");
        return 77;
    }
    cl_int e;
    ctx = CreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CHECK(e, "clCreateContext");
    q = CreateCommandQueue(ctx, dev, 0, &e);
    CHECK(e, "clCreateCommandQueue");
    size_t sl, cl;
    unsigned char *source = slurp(argv[1], &sl), *c = slurp(argv[2], &cl);
    if (source == NULL || c == NULL || cl < 12 || memcmp(c, "ZDBLOSC1", 8) != 0) return 2;
    const char *srcs = (const char *)source;
    cl_program prog = CreateProgramWithSource(ctx, 1, &srcs, NULL, &e);
    CHECK(e, "clCreateProgramWithSource");
    if (BuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL) != 0) {
        static char log[1 << 16];
        GetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        fprintf(stderr, "build failed:\n%s\n", log);
        return 1;
    }
    /* the corpus, one batch; dst chunks separated by 64 poisoned guard bytes */
    size_t p = 8;
    uint32_t nd = rd32(c + p);
    p += 4;
    const unsigned char **data = malloc(sizeof(*data) * nd);
    uint32_t *dlen = malloc(4u * nd);
    for (uint32_t i = 0; i < nd; i++) {
        dlen[i] = rd32(c + p);
        data[i] = c + p + 4;
        p += 4u + dlen[i];
    }
    uint32_t n = rd32(c + p);
    p += 4;
    cl_ulong *so = malloc(8u * n), *ss = malloc(8u * n), *dof = malloc(8u * n), *ds = malloc(8u * n);
    uint32_t *which = malloc(4u * n);
    unsigned char *src = malloc(cl);
    size_t srcn = 0, dstn = 64;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t nl = c[p] | c[p + 1] << 8;
        p += 2u + nl;
        uint32_t d = rd32(c + p), fl = rd32(c + p + 4);
        memcpy(src + srcn, c + p + 8, fl);
        so[k] = srcn;
        ss[k] = fl;
        srcn += fl;
        dof[k] = dstn;
        ds[k] = dlen[d];
        dstn += dlen[d] + 64u;
        which[k] = d;
        p += 8u + fl;
    }
    unsigned char *out = malloc(dstn), *poison = malloc(dstn);
    memset(poison, 0xA5, dstn);
    uint32_t *st = malloc(4u * n);
    cl_mem m_src = buffer(srcn, src), m_so = buffer(8u * n, so), m_ss = buffer(8u * n, ss);
    cl_mem m_dof = buffer(8u * n, dof), m_ds = buffer(8u * n, ds), m_plan = buffer(8u * (n + 1u), NULL);
    cl_mem m_status = buffer(4u * n, NULL), m_dst = buffer(dstn, NULL);
    const cl_ulong spg = (1u << 20) + 256u * 1024u; /* ZD_BLOSC_SCRATCH_PER_GROUP(1 MiB) */
    const char *entries[] = {"zd_blosc_decode", "zd_blosc_decode_lz", "zd_blosc_decode_lz_thread",
                             "zd_blosc_decode_lz_resolve", "zd_blosc_decode_lz_overlap"};
    const size_t locals[] = {1u, 8u, 32u, 64u};
    cl_kernel plan = CreateKernel(prog, "zd_blosc_plan", &e);
    CHECK(e, "clCreateKernel zd_blosc_plan");
    int fails = 0;
    int first = getenv("ZD_OCL_ZSTD") != NULL ? 0 : 1; /* see BloscOpenClTest: PoCL 3.1 cannot compile the zstd entry */
    for (int en = first; en < 5; en++) {
        for (int li = 0; li < 4; li++) {
            if (argc > 3 && !((en == 1 && li == 1) || (en == 2 && li == 0) || (en == 3 && li == 2) || (en == 4 && li == 3)))
                continue;
            cl_uint groups = 5u;
            size_t local = locals[li], global = local * groups, plan_local = 64u;
            cl_mem m_scratch = buffer(spg * groups, NULL);
            cl_kernel k = CreateKernel(prog, entries[en], &e);
            CHECK(e, "clCreateKernel");
            CHECK(EnqueueWriteBuffer(q, m_dst, 1, 0, dstn, poison, 0, NULL, NULL), "clEnqueueWriteBuffer");
            cl_uint a = 0;
            SetKernelArg(plan, a++, sizeof(cl_mem), &m_src);
            SetKernelArg(plan, a++, sizeof(cl_mem), &m_so);
            SetKernelArg(plan, a++, sizeof(cl_mem), &m_ss);
            SetKernelArg(plan, a++, sizeof(cl_mem), &m_ds);
            SetKernelArg(plan, a++, sizeof(cl_mem), &m_plan);
            SetKernelArg(plan, a++, sizeof(cl_mem), &m_status);
            CHECK(SetKernelArg(plan, a++, sizeof(cl_uint), &n), "clSetKernelArg plan");
            CHECK(EnqueueNDRangeKernel(q, plan, 1, NULL, &plan_local, &plan_local, 0, NULL, NULL), "plan launch");
            a = 0;
            SetKernelArg(k, a++, sizeof(cl_mem), &m_src);
            SetKernelArg(k, a++, sizeof(cl_mem), &m_so);
            SetKernelArg(k, a++, sizeof(cl_mem), &m_ss);
            SetKernelArg(k, a++, sizeof(cl_mem), &m_dst);
            SetKernelArg(k, a++, sizeof(cl_mem), &m_dof);
            SetKernelArg(k, a++, sizeof(cl_mem), &m_ds);
            SetKernelArg(k, a++, sizeof(cl_mem), &m_plan);
            SetKernelArg(k, a++, sizeof(cl_mem), &m_scratch);
            SetKernelArg(k, a++, sizeof(cl_ulong), &spg);
            SetKernelArg(k, a++, sizeof(cl_mem), &m_status);
            CHECK(SetKernelArg(k, a++, sizeof(cl_uint), &n), "clSetKernelArg decode");
            CHECK(EnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), "decode launch");
            CHECK(Finish(q), "clFinish");
            CHECK(EnqueueReadBuffer(q, m_dst, 1, 0, dstn, out, 0, NULL, NULL), "read dst");
            CHECK(EnqueueReadBuffer(q, m_status, 1, 0, 4u * n, st, 0, NULL, NULL), "read status");
            int bad = 0;
            for (uint32_t i = 0; i < n; i++) {
                const unsigned char *f = src + so[i];
                uint32_t codec = f[2] >> 5, memcpyed = (f[2] & 2u) != 0;
                uint32_t want = (memcpyed || ds[i] == 0 || codec != 2u) ? 0u : 20u;
                /* only zd_blosc_decode (entry 0) has the zstd and zlib decoders */
                int ok = st[i] == want || (en > 0 && (codec == 4u || codec == 3u) && st[i] == 20u);
                if (ok && st[i] == 0u && memcmp(out + dof[i], data[which[i]], ds[i]) != 0) ok = 0;
                for (int g = 0; g < 64 && ok; g++)
                    if (out[dof[i] + ds[i] + g] != 0xA5) ok = 0;
                if (!ok && bad++ < 5) fprintf(stderr, "  chunk %u: status %u, want %u\n", i, st[i], want);
            }
            for (int g = 0; g < 64; g++)
                if (out[g] != 0xA5) {
                    bad++;
                    break;
                }
            printf("opencl %-25s %u groups x %2zu items: %u frames, %d bad\n", entries[en], groups, local, n, bad);
            fails += bad;
            ReleaseMemObject(m_scratch);
        }
    }
    return fails ? 1 : 0;
}
