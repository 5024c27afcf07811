"""A loader server written in Python, for testing the client: ``loader-serve`` of
docs/loader-protocol.md, computed with zarr-python and numpy on the host.

It is a test double and a readable reference of the semantics the tests check (windows, channel
selection, crop, normalization as a float32 fused multiply-add, NaN replacement, round-to-nearest-
even float16/bfloat16, the epoch order and rank shards that the JVM's EpochSampler documents,
resume, statistics files of ``zarr-direct stats``). Slots are ``/dev/shm`` files, or, for
``device: cuda``, device memory exported with CUDA IPC through the driver API (ctypes), so that the
client's CUDA path can be tested on a GPU machine without the JVM.

Run as ``fake_loader_server.py loader-serve --socket PATH --shm-prefix PREFIX`` (the client appends
these arguments to ``ZARR_DIRECT_SERVER_COMMAND``). Test hooks, through ``settings``:
``fake.fail_at_batch`` (an error instead of that batch) and ``fake.exit_at_batch`` (exit 3 there).
"""

import argparse
import ctypes
import json
import mmap
import os
import socket
import sys
import traceback

import numpy as np
import torch

try:
    import zarr

    def open_group(path):
        return zarr.open_group(path, mode="r")
except ImportError:  # the GPU machine's image: uncompressed stores written by zarr_v2_minimal
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import zarr_v2_minimal

    def open_group(path):
        return zarr_v2_minimal.Group(path)

ALIGN = 256


class ReadError(Exception):
    """A batch could not be read; reported as an error message that ends the epoch."""


class OptionError(Exception):
    """Becomes an IllegalArgumentException error message, as the JVM server's option errors do."""


def require(ok, message):
    if not ok:
        raise OptionError(message)


# -- CUDA IPC producer -------------------------------------------------------------------------------

class _Handle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]


class CudaProducer:
    """Device memory and interprocess events of one device, through the driver API."""

    def __init__(self, index):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), index), "cuDeviceGet")
        self.dev = dev.value
        ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), self.dev), "cuDevicePrimaryCtxRetain")
        self.check(self.lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        self.lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
        self.lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
        self.lib.cuIpcGetMemHandle.argtypes = [ctypes.POINTER(_Handle), ctypes.c_uint64]
        self.lib.cuIpcGetEventHandle.argtypes = [ctypes.POINTER(_Handle), ctypes.c_void_p]
        self.lib.cuMemcpyHtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        self.lib.cuEventCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
        self.lib.cuEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.lib.cuEventSynchronize.argtypes = [ctypes.c_void_p]
        self.lib.cuEventDestroy_v2.argtypes = [ctypes.c_void_p]

    @staticmethod
    def check(code, what):
        if code != 0:
            raise RuntimeError(f"{what} failed with CUresult {code}")

    def alloc(self, nbytes):
        ptr = ctypes.c_uint64()
        self.check(self.lib.cuMemAlloc_v2(ctypes.byref(ptr), nbytes), "cuMemAlloc")
        handle = _Handle()
        self.check(self.lib.cuIpcGetMemHandle(ctypes.byref(handle), ptr.value), "cuIpcGetMemHandle")
        return ptr.value, bytes(ctypes.string_at(ctypes.addressof(handle), 64)).hex()

    def event(self):
        ev = ctypes.c_void_p()
        self.check(self.lib.cuEventCreate(ctypes.byref(ev), 0x2 | 0x4), "cuEventCreate")  # no timing, interprocess
        handle = _Handle()
        self.check(self.lib.cuIpcGetEventHandle(ctypes.byref(handle), ev), "cuIpcGetEventHandle")
        return ev.value, bytes(ctypes.string_at(ctypes.addressof(handle), 64)).hex()

    def write(self, ptr, data):
        buf = (ctypes.c_char * len(data)).from_buffer_copy(data)
        self.check(self.lib.cuMemcpyHtoD_v2(ptr, buf, len(data)), "cuMemcpyHtoD")

    def record(self, event):
        self.check(self.lib.cuEventRecord(event, None), "cuEventRecord")

    def synchronize(self, event):
        self.check(self.lib.cuEventSynchronize(event), "cuEventSynchronize")

    def free(self, ptr):
        self.lib.cuMemFree_v2(ptr)

    def destroy(self, event):
        self.lib.cuEventDestroy_v2(event)


# -- the dataset ---------------------------------------------------------------------------------------

class Dataset:
    """The samples of an ``open`` request and how to assemble a batch of them."""

    def __init__(self, req):
        self.path = path = req["path"]
        try:
            group = open_group(path)
        except Exception as e:  # noqa: BLE001
            raise OptionError(f"cannot open the store {path}: {e}") from e
        names = list(req["variables"])
        require(names, "a loader needs at least one variable")
        members = sorted(group.array_keys())
        self.arrays, self.selected, self.channel_names = [], [], []
        first = None
        for name in names:
            require(name in members, f"no variable '{name}' in store {path} (its arrays: {', '.join(members)})")
            a = group[name]
            dims = list(a.attrs.get("_ARRAY_DIMENSIONS", []))
            td = req.get("time_dim")
            if td is None:
                t_axis = dims.index("time") if "time" in dims else 0
            elif isinstance(td, str):
                require(td in dims, f"'{name}' has no dimension named '{td}' (its dimensions: {dims})")
                t_axis = dims.index(td)
            else:
                t_axis = int(td)
            require(a.ndim in (3, 4), f"'{name}' has {a.ndim} dimensions; a variable needs 3 or 4")
            require(t_axis < a.ndim - 2, f"time axis {t_axis} of '{name}' is one of its last two axes")
            c_axis = next((ax for ax in range(a.ndim - 2) if ax != t_axis), None)
            n_ch = a.shape[c_axis] if c_axis is not None else 1
            key = (a.shape[t_axis], a.shape[-2], a.shape[-1])
            if first is None:
                first = (name, key)
            require(key == first[1], f"'{name}' has time, lat, lon {list(key)} but '{first[0]}' has "
                                     f"{list(first[1])}: the variables must share them")
            chosen = req["channels"].get(name)
            if chosen is None:
                chosen = list(range(n_ch))
            for c in chosen:
                require(0 <= c < n_ch, f"channel {c} of '{name}' does not exist: it has {n_ch}")
            self.arrays.append((name, a, t_axis, c_axis))
            self.selected.append(list(chosen))
            self.channel_names += [name] if c_axis is None else [f"{name}[{c}]" for c in chosen]
        self.T, H, W = first[1]
        crop = req.get("crop")
        if crop is not None:
            require(crop[1] <= H and crop[3] <= W, f"crop {crop} is outside the {H} x {W} grid")
            self.crop = crop
        else:
            self.crop = [0, H, 0, W]
        self.H, self.W = self.crop[1] - self.crop[0], self.crop[3] - self.crop[2]
        self.history, self.future, self.stride = req["history"], req["future"], req["stride"]
        tr = req.get("time_range") or [0, None]
        start, stop = tr[0], self.T if tr[1] is None else tr[1]
        require(stop <= self.T, f"time_range stop {stop} is past the time axis ({self.T} steps)")
        span = (self.history + self.future - 1) * self.stride + 1
        require(stop - start >= span, f"a sample spans {span} time steps, more than time_range "
                                      f"[{start}, {stop}) holds ({stop - start})")
        self.samples = list(range(start, stop - span + 1))
        self.scale, self.shift = self._normalization(req.get("normalize"))
        self.nan = req.get("nan")
        self.dtype = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[req["dtype"]]
        self.batch_size, self.shuffle, self.seed = req["batch_size"], req["shuffle"], req["seed"]
        self.drop_last, self.rank, self.world = req["drop_last"], req["rank"], req["world_size"]
        n, w = len(self.samples), self.world
        self.per_rank = n // w if self.drop_last else -(-n // w)
        self.batches = self.per_rank // self.batch_size if self.drop_last else -(-self.per_rank // self.batch_size)
        require(self.batches > 0, f"rank {self.rank} of {w} gets no batch of {self.batch_size} from {n} samples")

    def _normalization(self, spec):
        C = len(self.channel_names)
        scale, shift = np.ones(C, np.float32), np.zeros(C, np.float32)
        if spec is None:
            return scale, shift
        if "file" in spec:
            with open(spec["file"]) as f:
                document = json.load(f)
            require(document.get("format") == "zarr-direct-stats" and document.get("version") == 1,
                    f"{spec['file']} is not a zarr-direct statistics file of version 1")
            stats = document["variables"]
        c = 0
        for (name, _, _, c_axis), chosen in zip(self.arrays, self.selected):
            if "file" in spec:
                require(name in stats, f"the statistics file {spec['file']} has no '{name}'")
                entry = stats[name]
                listed = entry["channels"] if entry["channels"] is not None else [0]
                for i in chosen:
                    require(i in listed, f"the statistics of '{name}' have no channel {i}")
                mean = [entry["mean"][listed.index(i)] for i in chosen]
                std = [entry["std"][listed.index(i)] for i in chosen]
            elif name in spec["values"]:
                mean, std = spec["values"][name]
                if not isinstance(mean, list):
                    mean, std = [mean] * len(chosen), [std] * len(chosen)
                require(len(mean) == len(chosen), f"normalize['{name}'] has {len(mean)} values for "
                                                  f"{len(chosen)} channels")
            else:
                mean, std = [0.0] * len(chosen), [1.0] * len(chosen)
            for m, s in zip(mean, std):
                require(s > 0, f"a standard deviation must be positive, not {s}")
                scale[c], shift[c] = np.float32(1.0 / s), np.float32(-m / s)
                c += 1
        return scale, shift

    def order(self, epoch):
        """This rank's samples of ``epoch``, in order, as the JVM's EpochSampler documents them: the
        SplitMix64 Fisher-Yates permutation of (seed, epoch), positions ``rank + k * world_size``,
        wrapping around the order without drop_last (DistributedSampler's padding)."""
        n = len(self.samples)
        order = permutation(n, self.seed, epoch) if self.shuffle else list(range(n))
        return [self.samples[order[(self.rank + k * self.world) % n]] for k in range(self.per_rank)]

    def window(self, s):
        """[history + future, C, H, W] float32 of the sample starting at ``s``, normalized."""
        steps = [s + k * self.stride for k in range(self.history + self.future)]
        y0, y1, x0, x1 = self.crop
        out = np.empty((len(steps), len(self.channel_names), self.H, self.W), np.float32)
        for i, t in enumerate(steps):
            c = 0
            for (name, a, t_axis, c_axis), chosen in zip(self.arrays, self.selected):
                index = [slice(None)] * a.ndim
                index[t_axis] = t
                index[-2], index[-1] = slice(y0, y1), slice(x0, x1)
                try:
                    field = np.asarray(a[tuple(index)], dtype=np.float32)  # [channels, H, W] or [H, W]
                except Exception as e:  # noqa: BLE001 - reported as the JVM server does: what, where
                    raise ReadError(f"sample {s}: reading '{name}' at time step {t} of {self.path}: "
                                    f"{type(e).__name__}: {e}") from e
                if c_axis is None:
                    field = field[None]
                out[i, c:c + len(chosen)] = field[chosen]
                c += len(chosen)
        y = (out.astype(np.float64) * self.scale[None, :, None, None].astype(np.float64)
             + self.shift[None, :, None, None].astype(np.float64)).astype(np.float32)
        if self.nan is not None:
            y = np.where(np.isnan(out), np.float32(self.nan), y)
        return y

    def batch_bytes(self, samples):
        w = np.stack([self.window(s) for s in samples])  # [B, T, C, H, W]
        t = torch.from_numpy(np.ascontiguousarray(w)).to(self.dtype)
        inputs, targets = t[:, :self.history].contiguous(), t[:, self.history:].contiguous()
        return _bytes(inputs), _bytes(targets)


M64 = (1 << 64) - 1


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def permutation(n, seed, epoch):
    """The epoch order of docs and EpochSampler (SplitMix64 draws, Fisher-Yates from the top)."""
    state = mix64(mix64(seed & M64) ^ epoch)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        state = (state + 0x9E3779B97F4A7C15) & M64
        j = (mix64(state) * (i + 1)) >> 64
        order[i], order[j] = order[j], order[i]
    return order


def _bytes(t):
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def _align(n):
    return -(-n // ALIGN) * ALIGN


# -- the server ------------------------------------------------------------------------------------------

class Server:
    def __init__(self, sock, prefix):
        self.sock, self.prefix = sock, prefix
        self.reader = sock.makefile("rb")
        self.slots = []  # dicts: bytes, input_offset, target_offset, and either map/path or ptr/events
        self.cuda = None
        self.data = None
        self.settings = {}

    def send(self, message):
        self.sock.sendall((json.dumps(message) + "\n").encode())

    def error(self, message, java_type="IllegalArgumentException"):
        self.send({"op": "error", "message": message, "type": java_type})

    def run(self):
        while True:
            line = self.reader.readline()
            if not line:
                return
            request = json.loads(line)
            op = request["op"]
            try:
                if op == "open":
                    self.open(request)
                elif op == "mapped":
                    for slot in self.slots:
                        if "path" in slot:
                            os.unlink(slot.pop("path"))
                    self.send({"op": "ready"})
                elif op == "epoch":
                    self.epoch(request)
                elif op == "stop":
                    self.send({"op": "stopped"})
                elif op == "release":
                    pass  # the consumer held the last batch of an epoch until after its end
                elif op == "close":
                    self.send({"op": "closed"})
                    return
                else:
                    self.error(f"unknown op {op!r}")
            except OptionError as e:
                self.error(str(e))

    def open(self, req):
        self.data = d = Dataset(req)
        self.settings = req.get("settings") or {}
        in_shape = [d.batch_size, d.history, len(d.channel_names), d.H, d.W]
        tg_shape = [d.batch_size, d.future, len(d.channel_names), d.H, d.W]
        esize = torch.empty((), dtype=d.dtype).element_size()
        in_bytes = int(np.prod(in_shape)) * esize
        tg_bytes = int(np.prod(tg_shape)) * esize
        total = _align(in_bytes) + tg_bytes
        memory = "cuda-ipc" if req["device"] == "cuda" else "shm"
        if memory == "cuda-ipc":
            self.cuda = CudaProducer(0)  # the client narrowed CUDA_VISIBLE_DEVICES to the consumer's GPU
        described = []
        for i in range(req["prefetch"]):
            slot = {"bytes": total, "input_offset": 0, "target_offset": _align(in_bytes)}
            desc = {"slot": i, "bytes": total, "input_offset": 0, "target_offset": _align(in_bytes)}
            if self.cuda is not None:
                slot["ptr"], desc["handle"] = self.cuda.alloc(total)
                slot["ready"], desc["ready_event"] = self.cuda.event()
                slot["released"], desc["released_event"] = self.cuda.event()
            else:
                path = f"/dev/shm/{self.prefix}-slot{i}"
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
                os.ftruncate(fd, total)
                slot["map"] = mmap.mmap(fd, total)
                os.close(fd)
                slot["path"] = desc["handle"] = path
            self.slots.append(slot)
            described.append(desc)
        self.send({"op": "opened", "samples": len(d.samples), "batches": d.batches, "batch_size": d.batch_size,
                   "input_shape": in_shape, "target_shape": tg_shape, "dtype": req["dtype"],
                   "channels": d.channel_names, "time_dim": d.arrays[0][2], "backend": "python",
                   "device": "fake", "prefetch": req["prefetch"], "memory": memory, "slots": described})

    def fill(self, slot, inputs, targets):
        if self.cuda is not None:
            self.cuda.synchronize(slot["released"])  # the consumer's work on the slot is done
            self.cuda.write(slot["ptr"] + slot["input_offset"], inputs)
            if targets:
                self.cuda.write(slot["ptr"] + slot["target_offset"], targets)
            self.cuda.record(slot["ready"])
        else:
            m = slot["map"]
            m[slot["input_offset"]:slot["input_offset"] + len(inputs)] = inputs
            m[slot["target_offset"]:slot["target_offset"] + len(targets)] = targets

    def epoch(self, req):
        d = self.data
        order = d.order(req["epoch"])
        position = req["position"]
        require(0 <= position <= d.batches, f"position {position} is not in [0, {d.batches}]")
        free = list(range(len(self.slots)))
        fail_at = int(self.settings.get("fake.fail_at_batch", -1))
        exit_at = int(self.settings.get("fake.exit_at_batch", -1))
        index = position
        while True:
            while free and index < d.batches:
                if index == exit_at:
                    os._exit(3)
                if index == fail_at:
                    self.error(f"fake failure reading batch {index}", "IOException")
                    return
                samples = order[index * d.batch_size:(index + 1) * d.batch_size]
                slot = free.pop(0)
                try:
                    inputs, targets = d.batch_bytes(samples)
                except ReadError as e:
                    self.error(str(e), "IOException")
                    return
                self.fill(self.slots[slot], inputs, targets)
                self.send({"op": "batch", "index": index, "slot": slot, "rows": len(samples),
                           "time": [int(s) for s in samples]})
                index += 1
            if index == d.batches:
                self.send({"op": "end", "epoch": req["epoch"], "batches": d.batches})
                return
            line = self.reader.readline()
            if not line:
                raise SystemExit(0)
            message = json.loads(line)
            if message["op"] == "release":
                free.append(message["slot"])
            elif message["op"] == "stop":
                self.send({"op": "stopped"})
                return
            elif message["op"] == "close":
                self.send({"op": "closed"})
                raise SystemExit(0)
            else:
                self.error(f"{message['op']!r} during an epoch", "IllegalStateException")
                return

    def cleanup(self):
        for slot in self.slots:
            if "path" in slot:
                try:
                    os.unlink(slot["path"])
                except OSError:
                    pass
            if self.cuda is not None:
                self.cuda.destroy(slot["ready"])
                self.cuda.destroy(slot["released"])
                self.cuda.free(slot["ptr"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["loader-serve"])
    parser.add_argument("--socket", required=True)
    parser.add_argument("--shm-prefix", required=True)
    args = parser.parse_args()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(args.socket)
    server = Server(sock, args.shm_prefix)
    try:
        server.run()
    except SystemExit:
        pass
    except BrokenPipeError:
        pass
    except Exception as e:  # noqa: BLE001 - report it like the JVM server would, then exit
        traceback.print_exc()
        try:
            server.error(f"{type(e).__name__}: {e}", "RuntimeException")
        except OSError:
            pass
    finally:
        server.cleanup()


if __name__ == "__main__":
    sys.exit(main())
