/* SPDX-License-Identifier: Apache-2.0 */
/* Manual OpenCL check of the deflate/zlib/gzip entries (not part of mvn test): builds the flat
 * program, decodes every stream of a zd_inflate_gen.py manifest one launch each, and compares
 * status, bytes and 64 poisoned guard bytes on either side. Runs on PoCL's CPU device, which
 * also checks that its work-group compiler accepts the kernels' barriers. No OpenCL headers
 * needed: the few entry points used are declared here.
 *   mvn -o -q -pl kernels process-resources    (writes target/classes/.../opencl/zd_inflate_flat.cl)
 *   python3 src/test/cuda/zd_inflate_gen.py /tmp/zdinf --distinct 2
 *   gcc -O1 src/test/c/zd_inflate_opencl_check.c -o ocl_check -l:libOpenCL.so.1
 *   ./ocl_check target/classes/dev/zarrdirect/kernels/opencl/zd_inflate_flat.cl /tmp/zdinf/manifest.txt 64 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef void *P;
cl_int clGetPlatformIDs(cl_uint, P *, cl_uint *);
cl_int clGetDeviceIDs(P, cl_ulong, cl_uint, P *, cl_uint *);
P clCreateContext(const intptr_t *, cl_uint, const P *, P, P, cl_int *);
P clCreateCommandQueue(P, P, cl_ulong, cl_int *);
P clCreateProgramWithSource(P, cl_uint, const char **, const size_t *, cl_int *);
cl_int clBuildProgram(P, cl_uint, const P *, const char *, P, P);
cl_int clGetProgramBuildInfo(P, P, cl_uint, size_t, void *, size_t *);
P clCreateKernel(P, const char *, cl_int *);
P clCreateBuffer(P, cl_ulong, size_t, void *, cl_int *);
cl_int clReleaseMemObject(P);
cl_int clSetKernelArg(P, cl_uint, size_t, const void *);
cl_int clEnqueueNDRangeKernel(P, P, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint, const P *, P *);
cl_int clEnqueueReadBuffer(P, P, cl_uint, size_t, size_t, void *, cl_uint, const P *, P *);
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define CL_MEM_READ_WRITE 1u
#define CL_MEM_COPY_HOST_PTR (1u << 5)
#define CL_PROGRAM_BUILD_LOG 0x1183u
#define GUARD 64

static char *slurp(const char *f, size_t *n) {
    FILE *fp = fopen(f, "rb");
    if (fp == NULL) { perror(f); exit(2); }
    fseek(fp, 0, SEEK_END);
    *n = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc(*n + 1);
    if (*n && fread(b, 1, *n, fp) != *n) exit(2);
    b[*n] = 0;
    fclose(fp);
    return b;
}

static P buffer(P ctx, void *host, size_t n) {
    cl_int e;
    static char one;
    P b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n ? n : 1, n ? host : &one, &e);
    if (e) { fprintf(stderr, "clCreateBuffer: %d\n", e); exit(3); }
    return b;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s flat.cl manifest.txt [local size]\n", argv[0]); return 2; }
    size_t sl, ls = argc > 3 ? (size_t)atoi(argv[3]) : 64;
    char *text = slurp(argv[1], &sl);
    P plat, dev;
    cl_int e;
    cl_uint n;
    if (clGetPlatformIDs(1, &plat, &n) || clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, &n)) { fprintf(stderr, "no OpenCL device\n"); return 3; }
    P ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    P q = clCreateCommandQueue(ctx, dev, 0, &e);
    const char *s = text;
    P prog = clCreateProgramWithSource(ctx, 1, &s, &sl, &e);
    e = clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL);
    static char log[65536];
    size_t ll = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, &ll);
    if (ll > 1) printf("build log:\n%.*s\n", (int)(ll > 8000 ? 8000 : ll), log);
    if (e) { printf("build failed: %d\n", e); return 1; }
    const char *names[3] = {"zd_deflate_decode_batch", "zd_zlib_decode_batch", "zd_gzip_decode_batch"};
    P k[3];
    for (int i = 0; i < 3; i++) {
        k[i] = clCreateKernel(prog, names[i], &e);
        if (e) { printf("kernel %s: %d\n", names[i], e); return 1; }
    }
    FILE *m = fopen(argv[2], "r");
    if (m == NULL) { perror(argv[2]); return 2; }
    char label[256], zf[4096], of[4096];
    int fmt, timed, bad = 0, count = 0;
    while (fscanf(m, "%d %255s %d %4095s %4095s", &fmt, label, &timed, zf, of) == 5) {
        size_t zn, on;
        char *z = slurp(zf, &zn), *o = slurp(of, &on);
        size_t dl = on + 2 * GUARD;
        unsigned char *out = malloc(dl);
        memset(out, 0xA5, dl);
        cl_ulong so = 0, ss = zn, doff = GUARD, ds = on, zero = 0;
        cl_uint st = 0xFFFFFFFFu, one = 1;
        P bs = buffer(ctx, z, zn), bd = buffer(ctx, out, dl), b1 = buffer(ctx, &so, 8), b2 = buffer(ctx, &ss, 8);
        P b3 = buffer(ctx, &doff, 8), b4 = buffer(ctx, &ds, 8), bst = buffer(ctx, &st, 4), nul = NULL;
        P kk = k[fmt];
        clSetKernelArg(kk, 0, sizeof(P), &bs);
        clSetKernelArg(kk, 1, sizeof(P), &b1);
        clSetKernelArg(kk, 2, sizeof(P), &b2);
        clSetKernelArg(kk, 3, sizeof(P), &bd);
        clSetKernelArg(kk, 4, sizeof(P), &b3);
        clSetKernelArg(kk, 5, sizeof(P), &b4);
        clSetKernelArg(kk, 6, sizeof(P), &nul);
        clSetKernelArg(kk, 7, 8, &zero);
        clSetKernelArg(kk, 8, sizeof(P), &bst);
        clSetKernelArg(kk, 9, 4, &one);
        size_t g = ls;
        e = clEnqueueNDRangeKernel(q, kk, 1, NULL, &g, &ls, 0, NULL, NULL);
        if (e) { printf("enqueue: %d\n", e); return 1; }
        clEnqueueReadBuffer(q, bd, 1, 0, dl, out, 0, NULL, NULL);
        clEnqueueReadBuffer(q, bst, 1, 0, 4, &st, 0, NULL, NULL);
        int ok = st == 0 && memcmp(out + GUARD, o, on) == 0;
        for (int i = 0; i < GUARD; i++) ok &= out[i] == 0xA5 && out[GUARD + on + i] == 0xA5;
        if (!ok) { bad++; printf("FAIL %s (%s) status %u\n", zf, label, st); }
        count++;
        clReleaseMemObject(bs), clReleaseMemObject(bd), clReleaseMemObject(b1), clReleaseMemObject(b2);
        clReleaseMemObject(b3), clReleaseMemObject(b4), clReleaseMemObject(bst);
        free(z), free(o), free(out);
    }
    fclose(m);
    printf("%d of %d streams wrong (local size %zu)\n", bad, count, ls);
    return bad != 0;
}
