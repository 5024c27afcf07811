/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The DLPack 1.x ABI, declared for the tests from the specification's field list
 * (version, manager_ctx, deleter, flags, dl_tensor). Only what the tests use.
 */
#ifndef ZD_DLPACK_H
#define ZD_DLPACK_H

#include <stdint.h>

#define ZD_DLPACK_FLAG_READ_ONLY (UINT64_C(1) << 0)
#define ZD_DLPACK_FLAG_IS_COPIED (UINT64_C(1) << 1)

enum { ZD_DL_CPU = 1 };
enum { ZD_DL_INT = 0, ZD_DL_UINT = 1, ZD_DL_FLOAT = 2, ZD_DL_OPAQUE = 3, ZD_DL_COMPLEX = 5, ZD_DL_BOOL = 6 };

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef struct {
    int32_t device_type;
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* NULL: C-contiguous */
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* Layout checks: the Java side assumes exactly these offsets (LP64). */
_Static_assert(sizeof(DLTensor) == 48, "DLTensor size");
_Static_assert(sizeof(DLManagedTensorVersioned) == 80, "DLManagedTensorVersioned size");

#endif
