/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A native consumer and producer of DLPack tensors for DLPackTest; built with gcc at test time.
 */
#include "zd_dlpack.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ZD_MAX_RANK 16

/* Error codes of zd_consume; the test prints the code, so each names one check. */
enum {
    ZD_OK = 0,
    ZD_ERR_NULL = 1,
    ZD_ERR_VERSION = 2,
    ZD_ERR_DEVICE = 3,
    ZD_ERR_DTYPE = 4,
    ZD_ERR_NDIM = 5,
    ZD_ERR_SHAPE = 6,
    ZD_ERR_NO_DELETER = 7,
    ZD_ERR_FLAGS = 8,
};

static int deleted_count;

/*
 * Reads every float32 element through shape, strides and byte_offset and sums them in
 * index order. Calls the deleter whenever there is one: the consumer took ownership, and the
 * deleter's place in the struct is ABI-stable across major versions.
 */
int64_t zd_consume(DLManagedTensorVersioned *t, double *sum_out) {
    if (t == NULL || sum_out == NULL) {
        return ZD_ERR_NULL;
    }
    int64_t err = ZD_OK;
    const DLTensor *x = &t->dl_tensor;
    if (t->version.major != 1) {
        err = ZD_ERR_VERSION;
    } else if (x->device.device_type != ZD_DL_CPU || x->device.device_id != 0) {
        err = ZD_ERR_DEVICE;
    } else if (x->dtype.code != ZD_DL_FLOAT || x->dtype.bits != 32 || x->dtype.lanes != 1) {
        err = ZD_ERR_DTYPE;
    } else if (x->ndim < 0 || x->ndim > ZD_MAX_RANK || (x->ndim > 0 && x->shape == NULL)) {
        err = ZD_ERR_NDIM;
    } else if (t->flags & ~(ZD_DLPACK_FLAG_READ_ONLY | ZD_DLPACK_FLAG_IS_COPIED)) {
        err = ZD_ERR_FLAGS;
    } else if (t->deleter == NULL) {
        err = ZD_ERR_NO_DELETER;
    }
    if (err == ZD_OK) {
        int64_t strides[ZD_MAX_RANK];
        int64_t index[ZD_MAX_RANK];
        int64_t count = 1;
        int64_t step = 1;
        for (int d = x->ndim - 1; d >= 0; d--) {
            if (x->shape[d] < 0) {
                err = ZD_ERR_SHAPE;
            }
            strides[d] = x->strides != NULL ? x->strides[d] : step;
            step *= x->shape[d] > 0 ? x->shape[d] : 1;
            count *= x->shape[d];
            index[d] = 0;
        }
        double sum = 0.0;
        const char *base = (const char *) x->data + x->byte_offset;
        for (int64_t n = 0; err == ZD_OK && n < count; n++) {
            int64_t off = 0;
            for (int d = 0; d < x->ndim; d++) {
                off += index[d] * strides[d];
            }
            float v;
            memcpy(&v, base + off * (int64_t) sizeof(float), sizeof v);
            sum += v;
            for (int d = x->ndim - 1; d >= 0; d--) { /* odometer, last index fastest */
                if (++index[d] < x->shape[d]) {
                    break;
                }
                index[d] = 0;
            }
        }
        *sum_out = sum;
    }
    if (t->deleter != NULL) {
        t->deleter(t);
    }
    return err;
}

static void *call_deleter(void *arg) {
    DLManagedTensorVersioned *t = arg;
    t->deleter(t);
    return NULL;
}

/* Calls t's deleter on a fresh native thread, one the JVM has never seen; 0 on success. */
int zd_delete_on_thread(DLManagedTensorVersioned *t) {
    pthread_t th;
    if (pthread_create(&th, NULL, call_deleter, t) != 0) {
        return -1;
    }
    return pthread_join(th, NULL);
}

typedef struct {
    DLManagedTensorVersioned managed;
    int64_t shape[2];
    int64_t strides[2];
    float *allocation;
} zd_owner;

static void zd_free(DLManagedTensorVersioned *self) {
    zd_owner *o = self->manager_ctx;
    free(o->allocation);
    free(o);
    __atomic_fetch_add(&deleted_count, 1, __ATOMIC_SEQ_CST);
}

static DLManagedTensorVersioned *make(int rows, int cols, int column_major, int pad, uint64_t flags) {
    zd_owner *o = calloc(1, sizeof *o);
    if (o == NULL) {
        return NULL;
    }
    size_t n = (size_t) rows * (size_t) cols;
    o->allocation = malloc((n + (size_t) pad) * sizeof(float) + 1);
    if (o->allocation == NULL) {
        free(o);
        return NULL;
    }
    float *elems = o->allocation + pad;
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            size_t at = column_major ? (size_t) j * rows + i : (size_t) i * cols + j;
            elems[at] = (float) (i * cols + j);
        }
    }
    for (int k = 0; k < pad; k++) {
        o->allocation[k] = -1e30f; /* poison: a reader that ignores byte_offset sums these */
    }
    o->shape[0] = rows;
    o->shape[1] = cols;
    o->strides[0] = column_major ? 1 : cols;
    o->strides[1] = column_major ? rows : 1;
    DLManagedTensorVersioned *m = &o->managed;
    m->version.major = 1;
    m->version.minor = 1;
    m->manager_ctx = o;
    m->deleter = zd_free;
    m->flags = flags;
    m->dl_tensor.data = o->allocation;
    m->dl_tensor.device.device_type = ZD_DL_CPU;
    m->dl_tensor.device.device_id = 0;
    m->dl_tensor.ndim = 2;
    m->dl_tensor.dtype.code = ZD_DL_FLOAT;
    m->dl_tensor.dtype.bits = 32;
    m->dl_tensor.dtype.lanes = 1;
    m->dl_tensor.shape = o->shape;
    m->dl_tensor.strides = column_major ? o->strides : NULL;
    m->dl_tensor.byte_offset = (uint64_t) pad * sizeof(float);
    return m;
}

/* A C-order float32 [rows, cols] tensor with values i*cols+j, strides NULL, byte_offset 0. */
DLManagedTensorVersioned *zd_produce(int rows, int cols) {
    return make(rows, cols, 0, 0, 0);
}

/*
 * The same values stored column-major with explicit strides {1, rows}, behind 4 poisoned floats
 * skipped by byte_offset 16, and flagged read-only.
 */
DLManagedTensorVersioned *zd_produce_strided(int rows, int cols) {
    return make(rows, cols, 1, 4, ZD_DLPACK_FLAG_READ_ONLY);
}

int zd_deleted_count(void) {
    return __atomic_load_n(&deleted_count, __ATOMIC_SEQ_CST);
}
