# SPDX-License-Identifier: Apache-2.0
"""``ZarrLoader``: time windows of a Zarr store, decoded by zarr-direct, as PyTorch batches.

The loader runs in a JVM child process (``zarr-direct loader-serve``) that reads, decodes,
normalizes and assembles each batch into a *slot*: device memory shared with CUDA IPC when
batches are delivered on a CUDA device, a shared-memory file otherwise. The tensors handed out
are views of that slot, without a copy; hence the one rule to remember:

    **A batch's tensors are valid until the next batch is requested** (the next ``next()`` on the
    iterator, a new ``for`` loop, ``set_epoch`` to another epoch, ``load_state_dict`` or
    ``close``). Keep one longer with ``.clone()``.

Epochs work like ``DistributedSampler``: the order is a function of ``(seed, epoch)``, the epoch is
what ``set_epoch`` set (0 at first) and is never advanced by the loader itself, so call
``loader.set_epoch(e)`` before each epoch's loop to get a new shuffle.
"""

import warnings
import weakref

import torch as _torch

from . import _options
from ._errors import ProtocolError, from_server
from ._server import ServerProcess
from ._shm import ShmSlot

__all__ = ["ZarrLoader"]

STATE_VERSION = 1


class _Resources:
    """What a loader must free, apart from the loader, so that its finalizer can hold it."""

    def __init__(self, server, device):
        self.server = server
        self.device = device
        self.slots = []
        self.context = None  # the CUDA primary context we retained, for IPC slots


def _free(resources):
    """Closes the IPC mappings (before the server frees the memory), then the server. Never raises."""
    slots, resources.slots = resources.slots, []
    try:
        ipc = [s for s in slots if hasattr(s, "record_released")]
        if ipc:
            try:
                # Kernels the user queued may still read a slot: let them finish before unmapping.
                _torch.cuda.synchronize(resources.device)
            except Exception:  # noqa: BLE001 - at interpreter exit CUDA may be gone already
                pass
            for slot in ipc:
                slot.drop_views()
            if any(slot.still_referenced() for slot in ipc):
                warnings.warn("tensors of a ZarrLoader batch are still referenced after close(); they "
                              "point to device memory the loader no longer holds: .clone() what you keep",
                              ResourceWarning, stacklevel=3)
            for slot in ipc:
                try:
                    slot.close()
                except Exception:  # noqa: BLE001 - free the rest, and the server, regardless
                    pass
        for slot in slots:
            if not hasattr(slot, "record_released"):
                slot.close()
        if resources.context is not None:
            try:
                resources.context.release()
            except Exception:  # noqa: BLE001
                pass
            resources.context = None
    finally:
        resources.server.close(graceful=True)


class ZarrLoader:
    """Batches of time windows of one or more variables of a Zarr group, stacked as channels.

    Sample ``s`` has inputs at time steps ``s, s+stride, ..., s+(history-1)*stride`` and targets
    at ``s+history*stride, ..., s+(history+future-1)*stride``; every ``s`` whose steps all lie in
    ``time_range`` (half-open; None for the whole axis) is a sample. Each batch is a dict:

    - ``input``: ``[B, history, C, H, W]`` and ``target``: ``[B, future, C, H, W]``, of ``dtype``,
      on ``device``; ``B`` is ``batch_size`` except for a last partial batch (``drop_last=False``).
    - ``time``: int64 ``[B]`` on the CPU, each sample's first input step (an index on the store's
      time axis). It stays on the CPU on purpose: it is bookkeeping (dates, logging), and moving it
      to the GPU would make every ``next()`` wait for the GPU.

    Channels are the variables in the order given, each contributing the channels listed in
    ``channels[name]`` (all by default; a variable without a channel axis is one channel).

    Args:
        path: the store: a directory, a ``.zip`` file, an http(s) URL, or an object store
            (``s3://bucket/path``, ``gs://bucket/path``: the server reads the AWS configuration of
            its environment; ``ZARRDIRECT_NO_SIGN_REQUEST=1`` for a public bucket) of a Zarr group.
        variables: array names in the group, in channel order.
        channels: ``{variable: [channel indices]}``, for the variables that contribute only some.
        history, future, stride: the window (steps of input, steps of target, steps between).
        batch_size, shuffle, seed, drop_last: as in ``torch.utils.data.DataLoader``; the order of
            an epoch depends on ``seed`` and the epoch only.
        time_range: ``(start, stop)`` in time indices (``stop`` None: the end); for train and
            validation splits by time.
        rank, world_size: the shard of this process; each rank gets ``len(loader)`` batches, the
            same number on every rank. Default: from ``torch.distributed`` when it is initialized,
            else the ``RANK``/``WORLD_SIZE`` variables that torchrun sets, else 0 and 1.
        normalize: None; a statistics file written by ``zarr-direct stats``; or
            ``{variable: (mean, std)}`` with two numbers or two lists of one value per selected
            channel. Applied as ``(x - mean) / std`` while the batch is assembled.
        dtype: ``torch.float32``, ``torch.float16`` or ``torch.bfloat16`` (rounded to nearest even).
        device: ``"cuda"``, ``"cuda:N"`` or ``"cpu"``; None: CUDA when available. ``"cuda"`` alone
            is ``cuda:LOCAL_RANK`` under torchrun, else the current device. On CUDA with the
            ``cuda`` backend the batch stays in the server's device memory (no copy); with a
            ``cpu`` or ``opencl`` backend it is assembled in shared memory and copied to the GPU
            (``.to(device)``, which waits for the copy).
        prefetch: batches assembled ahead of the consumer (lowered to fit ``memory_budget``).
        backend: ``"auto"``, ``"cpu"``, ``"cuda"`` or ``"opencl"``: where the server decodes.
        time_dim: the time axis, a dimension name or an index; None: the dimension named
            ``time``, else axis 0.
        crop: ``(y0, y1, x0, x1)``, half-open, on the last two axes.
        nan: None keeps NaNs; a number replaces them (in output units: it is not normalized).
        settings: zarr-direct settings for the server, e.g. ``{"zarrdirect.threads": 16}``.
        memory_budget: bytes of slot and staging memory the server may use (None: 40% of the
            device's, or of the host's for the CPU).
        start_timeout: seconds to wait for the server to come up (default 600, or
            ``ZARR_DIRECT_START_TIMEOUT``): a source checkout builds itself on first use.

    The server is found as ``zarr_direct._launch`` describes (``ZARR_DIRECT_HOME``, bundled jars,
    or the checkout this package sits in). One loader is one JVM; ``close()`` it (or use ``with``)
    to end it at once; it also ends when the loader is garbage collected or Python exits. Not
    thread-safe: iterate a loader from one thread.
    """

    def __init__(self, path, variables, channels=None, history=1, future=1, stride=1, batch_size=1,
                 shuffle=False, seed=0, drop_last=False, time_range=None, rank=None, world_size=None,
                 normalize=None, dtype=_torch.float32, device=None, prefetch=4, backend="auto", *,
                 time_dim=None, crop=None, nan=None, settings=None, memory_budget=None, start_timeout=None):
        self._closed = True
        self.dtype, dtype_name = _options.dtype_of(dtype)
        self.device = _options.device_of(device)
        rank, world_size = _options.rank_of(rank, world_size)
        # The server delivers into device memory only with a CUDA backend; a cpu or opencl backend
        # fills shared memory, which this side copies to the GPU.
        server_device = "cuda" if self.device.type == "cuda" and backend in ("auto", "cuda") else "cpu"
        request = _options.open_request(
            path, variables, channels, history, future, stride, batch_size, shuffle, seed, drop_last,
            time_range, rank, world_size, normalize, dtype_name, server_device,
            self.device.index if server_device == "cuda" else None, prefetch, backend, time_dim, crop,
            nan, settings, memory_budget)
        self._order = {k: request[k] for k in _options.ORDER_OPTIONS}
        self._batch_size = request["batch_size"]
        self._info = {}
        self._batches = 0
        self._ipc = False
        self._epoch = 0  # the epoch of the next pass
        self._resume = 0  # the position of the next pass (set by load_state_dict)
        self._current = None  # [epoch, position] of the pass in progress, None between passes
        self._running = False  # the server is producing an epoch (no end, error or stopped yet)
        self._idle = True  # the server answered stopped (or never started an epoch) since the last epoch
        self._held = None  # the slot of the batch last handed out, until the next request
        self._token = None  # identifies the live iterator; older ones raise when resumed

        env = {"CUDA_VISIBLE_DEVICES": _options.visible_device(self.device.index)} if self.device.type == "cuda" else {}
        self._server = ServerProcess(start_timeout=start_timeout, env=env)
        self._resources = _Resources(self._server, self.device)
        self._finalizer = weakref.finalize(self, _free, self._resources)
        self._closed = False
        try:
            info = self._server.request(request, "opened")
            self._map_slots(info)
            self._server.request({"op": "mapped"}, "ready")
        except BaseException:
            self.close()
            raise
        self._info = {k: v for k, v in info.items() if k not in ("op", "slots")}
        self._batches = int(info["batches"])

    # -- setup ---------------------------------------------------------------------------------

    def _map_slots(self, info):
        if info.get("dtype") != _options.DTYPES[self.dtype]:
            raise ProtocolError(f"the server answered dtype {info.get('dtype')!r} to {self.dtype}")
        in_shape, tg_shape = list(info["input_shape"]), list(info["target_shape"])
        if len(in_shape) != 5 or len(tg_shape) != 5 or in_shape[0] != self._batch_size:
            raise ProtocolError(f"the server announced batch shapes {in_shape} and {tg_shape}")
        memory = info.get("memory")
        slots = sorted(info.get("slots") or [], key=lambda s: s["slot"])
        if not slots or [s["slot"] for s in slots] != list(range(len(slots))):
            raise ProtocolError(f"the server announced slots {[s.get('slot') for s in slots]}")
        self._ipc = memory == "cuda-ipc"
        if self._ipc:
            if self.device.type != "cuda":
                raise ProtocolError("the server answered cuda-ipc memory to a loader on the CPU")
            from ._cuda import DeviceContext, IpcSlot
            self._resources.context = DeviceContext(self.device.index)
            for s in slots:
                self._resources.slots.append(IpcSlot(
                    self._resources.context, self.device, int(s["bytes"]), s["handle"], s["ready_event"],
                    s["released_event"], int(s["input_offset"]), in_shape, int(s["target_offset"]),
                    tg_shape, self.dtype))
        elif memory == "shm":
            for s in slots:
                self._resources.slots.append(ShmSlot(
                    s["handle"], int(s["bytes"]), self._server.shm_prefix, int(s["input_offset"]), in_shape,
                    int(s["target_offset"]), tg_shape, self.dtype))
        else:
            raise ProtocolError(f"the server answered an unknown memory kind {memory!r}")

    # -- information ---------------------------------------------------------------------------

    def __len__(self):
        """Batches per epoch on this rank."""
        return self._batches

    @property
    def channels(self):
        """The channel names in order: ``t2m``, ``u[0]``, ``u[3]``, ..."""
        return list(self._info.get("channels", []))

    @property
    def input_shape(self):
        """``[batch_size, history, C, H, W]`` of a full batch."""
        return list(self._info["input_shape"])

    @property
    def target_shape(self):
        """``[batch_size, future, C, H, W]`` of a full batch."""
        return list(self._info["target_shape"])

    @property
    def info(self):
        """What the server reported: samples, backend, device, prefetch, memory kind, ..."""
        return dict(self._info)

    @property
    def epoch(self):
        """The epoch the next pass will produce (``set_epoch``)."""
        return self._epoch

    @property
    def server_pid(self):
        """The process id of the JVM loader server (for diagnostics)."""
        return self._server.pid

    # -- epochs and resumption -----------------------------------------------------------------

    def set_epoch(self, epoch):
        """Sets the epoch of the next pass (the shuffle order depends on it), as
        ``DistributedSampler.set_epoch`` does. Another epoch than the one in progress ends that
        pass (its batch tensors become invalid); the same epoch keeps a position restored with
        ``load_state_dict``, so the usual ``set_epoch(e)`` at the top of a resumed loop is safe."""
        epoch = _options._int("epoch", epoch)
        if epoch < 0:
            raise ValueError(f"epoch must be 0 or more, not {epoch}")
        if self._current is not None and self._current[0] != epoch:
            self._abandon()
        if epoch != self._epoch:
            self._resume = 0
        self._epoch = epoch

    def state_dict(self):
        """Where the loader is: the epoch, the batches already handed out in it (``position``),
        and the options that define the order. A new loader given this state with
        ``load_state_dict`` yields exactly the batches the uninterrupted one would have."""
        epoch, position = self._current if self._current is not None else (self._epoch, self._resume)
        return {"version": STATE_VERSION, "epoch": epoch, "position": position, "batches": self._batches,
                **self._order}

    def load_state_dict(self, state):
        """Resumes at ``state`` on the next ``iter()``; refuses one from a loader whose order differs."""
        self._check_open()
        if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
            raise ValueError(f"not a ZarrLoader state (version {STATE_VERSION}): {state!r}")
        differ = [f"{k}: {state.get(k)!r} in the state, {v!r} here" for k, v in self._order.items()
                  if state.get(k) != v]
        if state.get("batches") != self._batches:
            differ.append(f"batches per epoch: {state.get('batches')!r} in the state, {self._batches} here")
        if differ:
            raise ValueError("this state comes from a loader with another order: " + "; ".join(differ))
        epoch, position = _options._int("epoch", state["epoch"]), _options._int("position", state["position"])
        if epoch < 0 or not 0 <= position <= self._batches:
            raise ValueError(f"state epoch {epoch}, position {position} out of range "
                             f"(position must be in [0, {self._batches}])")
        self._abandon()
        self._epoch, self._resume = epoch, position

    # -- iteration -----------------------------------------------------------------------------

    def __iter__(self):
        """A pass over the epoch set with ``set_epoch``, from the restored position if any. A pass
        still running (a loop left with ``break``) is stopped first."""
        self._check_open()
        self._abandon()
        epoch, start = self._epoch, self._resume
        self._resume = 0
        self._token = token = object()
        self._current = [epoch, start]
        return self._pass(token, epoch, start)

    def _pass(self, token, epoch, start):
        if start >= self._batches:
            self._current = None
            return
        if not self._idle:
            # After end or error the server's producer may still be winding down; stop waits for it
            # (and with no epoch running just answers stopped), so the epoch below never finds one
            # "under way".
            self._server.request({"op": "stop"}, "stopped")
        self._server.send({"op": "epoch", "epoch": epoch, "position": start})
        self._running = True
        self._idle = False
        expected = start
        while True:
            if self._token is not token:
                raise RuntimeError("this ZarrLoader iterator was ended by a newer iter(), set_epoch, "
                                   "load_state_dict or close of its loader")
            self._release_held()
            message = self._server.receive()
            op = message["op"]
            if op == "batch":
                if message.get("index") != expected:
                    raise ProtocolError(f"the server sent batch {message.get('index')}, expected {expected}")
                batch = self._deliver(message)
                expected += 1
                self._current[1] = expected
                yield batch
            elif op == "end":
                self._running = False
                self._current = None
                self._token = None
                if expected != self._batches:
                    raise ProtocolError(f"the server ended epoch {epoch} after batch {expected - 1}, but an "
                                        f"epoch has {self._batches} batches")
                return
            elif op == "error":
                # The server is idle again; the position stays where the failure happened, so that
                # state_dict() can resume there.
                self._running = False
                self._token = None
                raise from_server(message)
            else:
                raise ProtocolError(f"the server sent {op!r} during an epoch")

    def _deliver(self, message):
        slot_index, rows = message.get("slot"), message.get("rows")
        if not isinstance(slot_index, int) or not 0 <= slot_index < len(self._resources.slots):
            raise ProtocolError(f"the server sent a batch in slot {slot_index!r}")
        if not isinstance(rows, int) or not 0 < rows <= self._batch_size or len(message.get("time", ())) != rows:
            raise ProtocolError(f"the server sent a batch of {rows!r} rows with times {message.get('time')!r}")
        slot = self._resources.slots[slot_index]
        inputs, targets = slot.input, slot.target
        if rows != self._batch_size:
            inputs, targets = inputs[:rows], targets[:rows]
        times = _torch.tensor(message["time"], dtype=_torch.int64)
        if self._ipc:
            slot.wait_ready(_torch.cuda.current_stream(self.device).cuda_stream)
            self._held = slot_index
        elif self.device.type == "cuda":
            # Assembled in shared memory by a cpu/opencl backend: copy, then give the slot back at
            # once (the copy has finished when .to returns).
            inputs, targets = inputs.to(self.device), targets.to(self.device)
            self._server.send({"op": "release", "slot": slot_index})
        else:
            self._held = slot_index
        return {"input": inputs, "target": targets, "time": times}

    def _release_held(self):
        if self._held is None:
            return
        slot_index, self._held = self._held, None
        if self._ipc:
            self._resources.slots[slot_index].record_released(_torch.cuda.current_stream(self.device).cuda_stream)
        self._server.send({"op": "release", "slot": slot_index})

    def _abandon(self):
        """Ends the pass in progress: ``stop`` if the server is producing, and forgets the pass."""
        self._token = None
        self._current = None
        if not self._running:
            return
        if self._held is not None and self._ipc:
            self._resources.slots[self._held].record_released(_torch.cuda.current_stream(self.device).cuda_stream)
        self._held = None
        self._server.send({"op": "stop"})
        while True:
            message = self._server.receive()
            if message["op"] == "stopped":
                break
            if message["op"] not in ("batch", "end", "error"):
                raise ProtocolError(f"the server sent {message['op']!r} while stopping an epoch")
        self._running = False
        self._idle = True

    # -- lifetime ------------------------------------------------------------------------------

    def _check_open(self):
        if self._closed:
            raise RuntimeError("this ZarrLoader is closed")
        if self._server.closed:
            raise RuntimeError("the loader server of this ZarrLoader is gone (it died or was closed); "
                               "create a new ZarrLoader")

    def close(self):
        """Stops the epoch in progress, unmaps the slots and ends the server; idempotent. Batch
        tensors are invalid afterwards."""
        if self._closed:
            return
        self._closed = True
        try:
            if not self._server.closed:
                self._abandon()
        except Exception:  # noqa: BLE001 - the server is ended below whatever it answered
            pass
        finally:
            self._token = None
            self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self._closed else f"{len(self)} batches, epoch {self._epoch}"
        return f"<ZarrLoader {state}, {self.device}, {_options.DTYPES[self.dtype]}>"
