# SPDX-License-Identifier: Apache-2.0
"""CPU slots: files in ``/dev/shm`` that the server fills and we map, wrapped as tensors zero-copy.

Lifetime. The server creates the files, we map them, answer ``mapped``, and the server unlinks
them before it answers ``ready``; from then on nothing is left in ``/dev/shm`` whatever happens,
and the memory is returned once both mappings are gone.

We never call ``mmap.close()``: ``torch.frombuffer`` keeps a reference to the mmap object but does
not hold its buffer export, so an explicit close unmaps memory under live tensors (a later access
is a segmentation fault). Instead every tensor made here keeps the mmap object alive, and the
mapping goes away with the last reference: ours when the loader closes, or a tensor the user kept.
"""

import mmap
import os

import torch

SHM_DIR = "/dev/shm"


def _element_size(dtype):
    return torch.empty((), dtype=dtype).element_size()


def _check_path(path, prefix):
    # The server names the files; only map what it may have created: ours, under /dev/shm.
    real = os.path.realpath(path)
    if os.path.dirname(real) != SHM_DIR or not os.path.basename(real).startswith(prefix):
        raise ValueError(f"slot file {path!r} is not a file {SHM_DIR}/{prefix}* of this loader")
    return real


class ShmSlot:
    """One slot file mapped read-write; ``input``/``target`` are the whole-batch tensor views."""

    def __init__(self, path, nbytes, prefix, input_offset, input_shape, target_offset, target_shape, dtype):
        real = _check_path(path, prefix)
        fd = os.open(real, os.O_RDWR)
        try:
            size = os.fstat(fd).st_size
            if size < nbytes:
                raise ValueError(f"slot file {real} holds {size} bytes, the server announced {nbytes}")
            self._map = mmap.mmap(fd, nbytes, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        raw = torch.frombuffer(self._map, dtype=torch.uint8)
        self.input = view(raw, input_offset, input_shape, dtype)
        self.target = view(raw, target_offset, target_shape, dtype)

    def close(self):
        """Drops our references; the mapping ends with the last tensor that uses it."""
        self.input = self.target = None
        self._map = None


def view(raw, offset, shape, dtype):
    """``raw[offset:]`` (uint8, C-contiguous) seen as a C-contiguous ``dtype`` tensor of ``shape``."""
    count = 1
    for extent in shape:
        count *= int(extent)
    nbytes = count * _element_size(dtype)
    if offset < 0 or offset + nbytes > raw.numel():
        raise ValueError(f"a {list(shape)} {dtype} tensor at byte {offset} does not fit in a slot of "
                         f"{raw.numel()} bytes")
    piece = raw[offset:offset + nbytes]
    if nbytes == 0:
        return torch.empty(tuple(shape), dtype=dtype)
    if offset % _element_size(dtype):
        raise ValueError(f"offset {offset} is not aligned for {dtype}")
    try:
        typed = piece.view(dtype)
    except RuntimeError:
        # Older torch cannot reinterpret uint8 as bfloat16 directly: go through int16.
        if dtype is not torch.bfloat16:
            raise
        typed = piece.view(torch.int16).view(torch.bfloat16)
    return typed.view(tuple(int(e) for e in shape))
