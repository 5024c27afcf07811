# SPDX-License-Identifier: Apache-2.0
"""CUDA slots: device memory the server exported with CUDA IPC, wrapped as tensors zero-copy.

We call the driver API (``libcuda.so.1``, present wherever the NVIDIA driver is) through ctypes,
so the package needs nothing compiled and nothing torch does not expose. The memory and events are
opened in the primary context of the device, the one torch's runtime uses, so that the tensors we
make are ordinary torch CUDA tensors.

Ordering, per docs/loader-protocol.md: before a batch is handed out, the consumer's current stream
waits on the slot's ``ready`` event (recorded by the server after writing it); before the slot is
given back (``release``/``stop``), its ``released`` event is recorded on the current stream, and
the server waits on it before writing the slot again. Neither side blocks its host thread.
"""

import ctypes
import threading
import weakref

import torch

CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1
_TYPESTR = {torch.float32: "<f4", torch.float16: "<f2", torch.bfloat16: "<i2", torch.uint8: "|u1"}


class _IpcHandle(ctypes.Structure):
    """``CUipcMemHandle`` / ``CUipcEventHandle``: 64 opaque bytes, passed by value."""

    _fields_ = [("reserved", ctypes.c_char * 64)]

    @classmethod
    def from_hex(cls, text, what):
        try:
            raw = bytes.fromhex(text)
        except (TypeError, ValueError):
            raw = b""
        if len(raw) != 64:
            raise ValueError(f"the server sent a {what} that is not 64 bytes of hex: {str(text)[:40]!r}")
        handle = cls()
        ctypes.memmove(ctypes.addressof(handle), raw, 64)
        return handle


class Driver:
    """The few driver API entry points the loader needs, each result checked."""

    _instance = None
    _lock = threading.Lock()

    @classmethod
    def get(cls):
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def __init__(self):
        try:
            self._lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise RuntimeError(f"cannot load the CUDA driver library libcuda.so.1: {e}") from e
        c_int, c_uint, vp = ctypes.c_int, ctypes.c_uint, ctypes.c_void_p
        p = ctypes.POINTER
        self._bind("cuGetErrorName", [c_int, p(ctypes.c_char_p)])
        self._bind("cuGetErrorString", [c_int, p(ctypes.c_char_p)])
        self._bind("cuInit", [c_uint])
        self._bind("cuDeviceGet", [p(c_int), c_int])
        self._bind("cuDevicePrimaryCtxRetain", [p(vp), c_int])
        self._bind("cuDevicePrimaryCtxRelease", [c_int], "cuDevicePrimaryCtxRelease_v2")
        self._bind("cuCtxGetCurrent", [p(vp)])
        self._bind("cuCtxPushCurrent", [vp], "cuCtxPushCurrent_v2")
        self._bind("cuCtxPopCurrent", [p(vp)], "cuCtxPopCurrent_v2")
        self._bind("cuIpcOpenMemHandle", [p(ctypes.c_uint64), _IpcHandle, c_uint], "cuIpcOpenMemHandle_v2")
        self._bind("cuIpcCloseMemHandle", [ctypes.c_uint64])
        self._bind("cuIpcOpenEventHandle", [p(vp), _IpcHandle])
        self._bind("cuEventRecord", [vp, vp])
        self._bind("cuStreamWaitEvent", [vp, vp, c_uint])
        self._bind("cuEventDestroy", [vp], "cuEventDestroy_v2")
        self.call("cuInit", 0)

    def _bind(self, name, argtypes, preferred=None):
        for symbol in (preferred, name):
            if symbol and hasattr(self._lib, symbol):
                fn = getattr(self._lib, symbol)
                fn.argtypes = argtypes
                fn.restype = ctypes.c_int
                setattr(self, "_" + name, fn)
                return
        raise RuntimeError(f"the CUDA driver library has no {preferred or name}: driver too old")

    def error_text(self, code):
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        self._cuGetErrorName(code, ctypes.byref(name))
        self._cuGetErrorString(code, ctypes.byref(text))
        n = name.value.decode() if name.value else f"CUresult {code}"
        return n + (f" ({text.value.decode()})" if text.value else "")

    def call(self, name, *args):
        code = getattr(self, "_" + name)(*args)
        if code != 0:
            raise RuntimeError(f"{name} failed: {self.error_text(code)}")


class DeviceContext:
    """The primary context of one device, made current around our driver calls when it is not.

    torch's runtime makes the primary context current on threads where it ran; a consumer thread
    where it did not (or a user who made another context current) gets it pushed and popped.
    """

    def __init__(self, index):
        self.index = index
        self.driver = Driver.get()
        # Have torch create (and make current) the primary context, as for any CUDA tensor.
        with torch.cuda.device(index):
            torch.empty(1, device=f"cuda:{index}")
        dev = ctypes.c_int()
        self.driver.call("cuDeviceGet", ctypes.byref(dev), index)
        self._device = dev.value
        ctx = ctypes.c_void_p()
        self.driver.call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), self._device)
        self.handle = ctx.value
        self._pushed = []

    def __enter__(self):
        current = ctypes.c_void_p()
        self.driver.call("cuCtxGetCurrent", ctypes.byref(current))
        push = current.value != self.handle
        if push:
            self.driver.call("cuCtxPushCurrent", ctypes.c_void_p(self.handle))
        self._pushed.append(push)
        return self

    def __exit__(self, *exc):
        if self._pushed.pop():
            self.driver.call("cuCtxPopCurrent", ctypes.byref(ctypes.c_void_p()))

    def release(self):
        if self.handle is not None:
            self.handle = None
            self.driver.call("cuDevicePrimaryCtxRelease", self._device)


class _DeviceArray:
    """A device pointer as ``__cuda_array_interface__`` for ``torch.as_tensor``.

    torch keeps this object alive as long as the tensor's storage, so a weak reference to it tells
    whether any tensor made from the slot is still around. ``stream: None`` (version 3) says the
    consumer needs no synchronization: ordering is done with the slot's events.
    """

    def __init__(self, ptr, shape, typestr):
        self.__cuda_array_interface__ = {
            "shape": tuple(int(e) for e in shape), "typestr": typestr, "data": (int(ptr), False),
            "strides": None, "version": 3, "stream": None,
        }


def wrap(ptr, shape, dtype, device):
    """A C-contiguous ``dtype`` tensor of ``shape`` at device address ``ptr``, without a copy.

    Returns (tensor, weak reference to the object torch keeps for it)."""
    shape = tuple(int(e) for e in shape)
    if 0 in shape:
        return torch.empty(shape, dtype=dtype, device=device), None
    if dtype not in _TYPESTR:
        raise ValueError(f"cannot wrap {dtype} device memory")
    array = _DeviceArray(ptr, shape, _TYPESTR[dtype])
    tensor = torch.as_tensor(array, device=device)
    if dtype is torch.bfloat16:
        tensor = tensor.view(torch.bfloat16)  # no typestr for bfloat16: read int16, reinterpret
    if tensor.data_ptr() != ptr:
        raise RuntimeError("torch copied the IPC memory instead of wrapping it")
    return tensor, weakref.ref(array)


class IpcSlot:
    """One exported slot: its memory, its two events, and the whole-batch tensor views."""

    def __init__(self, context, device, nbytes, handle, ready_event, released_event,
                 input_offset, input_shape, target_offset, target_shape, dtype):
        self._ctx = context
        self._driver = context.driver
        self.nbytes = nbytes
        self.ptr = None
        self._ready = None
        self._released = None
        self._arrays = []
        try:
            with context:
                ptr = ctypes.c_uint64()
                self._driver.call("cuIpcOpenMemHandle", ctypes.byref(ptr),
                                  _IpcHandle.from_hex(handle, "memory handle"), CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
                self.ptr = ptr.value
                self._ready = self._open_event(ready_event, "ready event handle")
                self._released = self._open_event(released_event, "released event handle")
            for offset, shape in ((input_offset, input_shape), (target_offset, target_shape)):
                size = _numel(shape) * torch.empty((), dtype=dtype).element_size()
                if offset < 0 or offset + size > nbytes:
                    raise ValueError(f"a {list(shape)} {dtype} tensor at byte {offset} does not fit in a "
                                     f"slot of {nbytes} bytes")
            self.input, ref_in = wrap(self.ptr + input_offset, input_shape, dtype, device)
            self.target, ref_tg = wrap(self.ptr + target_offset, target_shape, dtype, device)
            self._arrays = [r for r in (ref_in, ref_tg) if r is not None]
        except BaseException:
            self.close()
            raise

    def _open_event(self, text, what):
        event = ctypes.c_void_p()
        self._driver.call("cuIpcOpenEventHandle", ctypes.byref(event), _IpcHandle.from_hex(text, what))
        return event.value

    def wait_ready(self, stream):
        """Makes ``stream`` wait for the server's writes to this slot (no host blocking)."""
        with self._ctx:
            self._driver.call("cuStreamWaitEvent", ctypes.c_void_p(stream), ctypes.c_void_p(self._ready), 0)

    def record_released(self, stream):
        """Marks the point of ``stream`` after which the server may overwrite this slot."""
        with self._ctx:
            self._driver.call("cuEventRecord", ctypes.c_void_p(self._released), ctypes.c_void_p(stream))

    def still_referenced(self):
        """Whether a tensor made from this slot is alive outside the loader (after ``drop_views``)."""
        return any(r() is not None for r in self._arrays)

    def drop_views(self):
        self.input = self.target = None

    def close(self):
        """Closes the events and the mapping. The caller has synchronized the device first."""
        self.drop_views()
        with self._ctx:
            for name in ("_ready", "_released"):
                event = getattr(self, name)
                if event is not None:
                    setattr(self, name, None)
                    self._driver.call("cuEventDestroy", ctypes.c_void_p(event))
            if self.ptr is not None:
                ptr, self.ptr = self.ptr, None
                self._driver.call("cuIpcCloseMemHandle", ctypes.c_uint64(ptr))


def _numel(shape):
    n = 1
    for e in shape:
        n *= int(e)
    return n
