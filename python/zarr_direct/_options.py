# SPDX-License-Identifier: Apache-2.0
"""The loader's options, checked and turned into the ``open`` request of docs/loader-protocol.md.

Simple checks are made here so that a wrong argument fails at once, without starting a JVM, with
the message the server would give; what needs the store (variables, shapes, channels, the time
axis) is checked by the server.
"""

import numbers
import os

import torch

DTYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}
DTYPE_NAMES = {"float32": torch.float32, "float": torch.float32, "float16": torch.float16,
               "half": torch.float16, "bfloat16": torch.bfloat16}
BACKENDS = ("auto", "cpu", "cuda", "opencl")
ORDER_OPTIONS = ("seed", "batch_size", "world_size", "rank", "shuffle", "drop_last")


def dtype_of(dtype):
    """``(torch dtype, protocol name)`` for torch.float32/float16/bfloat16 or their names."""
    if isinstance(dtype, str):
        key = dtype.lower().removeprefix("torch.")
        if key in DTYPE_NAMES:
            dtype = DTYPE_NAMES[key]
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be torch.float32, torch.float16 or torch.bfloat16, not {dtype!r}")
    return dtype, DTYPES[dtype]


def device_of(device):
    """The torch device batches are delivered on: None means CUDA when torch has it, else the CPU;
    a CUDA device without an index is ``cuda:LOCAL_RANK`` (torchrun), else torch's current one."""
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        device = torch.device(device)
    except (RuntimeError, TypeError) as e:
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', not {device!r}") from e
    if device.type == "cpu":
        return torch.device("cpu")
    if device.type != "cuda":
        raise ValueError(f"device must be 'cpu' or a CUDA device, not {device}")
    if not torch.cuda.is_available():
        raise ValueError(f"device {device} was asked for, but this torch has no CUDA device "
                         "(torch.cuda.is_available() is False); use device='cpu'")
    index = device.index
    if index is None:
        local = os.environ.get("LOCAL_RANK")
        index = int(local) if local not in (None, "") else torch.cuda.current_device()
    if not 0 <= index < torch.cuda.device_count():
        raise ValueError(f"CUDA device {index} does not exist: torch sees {torch.cuda.device_count()}")
    return torch.device("cuda", index)


def visible_device(index):
    """The ``CUDA_VISIBLE_DEVICES`` of the server child for our CUDA device ``index``: that entry of
    our own list (an ordinal, a UUID or a MIG id), or the index when the variable is unset. The
    server then sees the consumer's GPU alone, as its device 0 (docs/loader-protocol.md)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None or visible.strip() == "":
        return str(index)
    entries = [e.strip() for e in visible.split(",")]
    if index >= len(entries):
        raise ValueError(f"CUDA device {index} is not in CUDA_VISIBLE_DEVICES={visible}")
    return entries[index]


def rank_of(rank, world_size):
    """(rank, world_size): given ones win; the others come from torch.distributed when it is
    initialized, else from the RANK and WORLD_SIZE variables (torchrun), else 0 and 1."""
    d_rank, d_world = 0, 1
    dist = getattr(torch, "distributed", None)
    if dist is not None and dist.is_available() and dist.is_initialized():
        d_rank, d_world = dist.get_rank(), dist.get_world_size()
    elif os.environ.get("WORLD_SIZE") not in (None, ""):
        d_rank, d_world = int(os.environ.get("RANK") or 0), int(os.environ["WORLD_SIZE"])
    rank = d_rank if rank is None else _int("rank", rank)
    world_size = d_world if world_size is None else _int("world_size", world_size)
    _require(world_size >= 1, f"world_size must be at least 1, not {world_size}")
    _require(0 <= rank < world_size, f"rank {rank} is not in [0, {world_size})")
    return rank, world_size


def _require(ok, message):
    if not ok:
        raise ValueError(message)


def _int(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, not {value!r}")
    return int(value)


def _floats(name, value):
    """A number or a sequence of numbers (lists, tuples, tensors, arrays) as float(s)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
        return [float(v) for v in value]
    raise TypeError(f"{name} must be a number or a list of numbers, not {value!r}")


def _setting(value):
    return str(value).lower() if isinstance(value, bool) else str(value)


def _local_path(path):
    path = os.fspath(path)
    return path if "://" in path else os.path.abspath(path)


def normalization(normalize, variables):
    """None; a stats file (str or path); or ``{variable: (mean, std)}`` with scalars or one value
    per selected channel."""
    if normalize is None:
        return None
    if isinstance(normalize, (str, os.PathLike)):
        return {"file": _local_path(normalize)}
    if not isinstance(normalize, dict):
        raise TypeError("normalize must be None, a stats file path, or {variable: (mean, std)}, "
                        f"not {type(normalize).__name__}")
    values = {}
    for name, pair in normalize.items():
        if name not in variables:
            raise ValueError(f"normalize names '{name}', which is not one of the variables {variables}")
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"normalize['{name}'] must be (mean, std), not {pair!r}")
        mean, std = _floats(f"the mean of '{name}'", pair[0]), _floats(f"the std of '{name}'", pair[1])
        if isinstance(mean, list) != isinstance(std, list) or (isinstance(mean, list) and len(mean) != len(std)):
            raise ValueError(f"normalize['{name}']: mean and std must both be scalars or lists of one "
                             f"length, not {pair!r}")
        for s in std if isinstance(std, list) else [std]:
            _require(s > 0 and s != float("inf"), f"normalize['{name}']: a standard deviation must be "
                                                  f"positive and finite, not {s}")
        values[name] = [mean, std]
    return {"values": values}


def open_request(path, variables, channels, history, future, stride, batch_size, shuffle, seed,
                 drop_last, time_range, rank, world_size, normalize, dtype_name, server_device,
                 device_index, prefetch, backend, time_dim, crop, nan, settings, memory_budget):
    """The ``open`` message; raises ValueError/TypeError for what is wrong on its face."""
    if isinstance(variables, str):
        variables = [variables]
    variables = list(variables)
    _require(len(variables) > 0, "a loader needs at least one variable")
    for v in variables:
        if not isinstance(v, str):
            raise TypeError(f"variables must be names (str), not {v!r}")
    _require(len(set(variables)) == len(variables), f"variables {variables} name one more than once")
    chosen = {}
    for name, indices in (channels or {}).items():
        _require(name in variables, f"channels are given for '{name}', which is not one of the variables {variables}")
        if isinstance(indices, numbers.Integral):
            indices = [indices]
        chosen[name] = [_int(f"a channel of '{name}'", i) for i in (indices.tolist() if hasattr(indices, "tolist") else indices)]
        _require(len(chosen[name]) > 0, f"channels['{name}'] is empty")
    history, future, stride = _int("history", history), _int("future", future), _int("stride", stride)
    batch_size, prefetch = _int("batch_size", batch_size), _int("prefetch", prefetch)
    _require(history >= 1, f"history must be at least 1, not {history}")
    _require(future >= 0, f"future must be 0 or more, not {future}")
    _require(stride >= 1, f"stride must be at least 1, not {stride}")
    _require(batch_size >= 1, f"batch_size must be at least 1, not {batch_size}")
    _require(prefetch >= 1, f"prefetch must be at least 1, not {prefetch}")
    if time_range is not None:
        _require(isinstance(time_range, (list, tuple)) and len(time_range) == 2,
                 f"time_range must be (start, stop) or None, not {time_range!r}")
        start = _int("time_range's start", time_range[0])
        stop = None if time_range[1] is None else _int("time_range's stop", time_range[1])
        _require(start >= 0 and (stop is None or stop > start),
                 f"time_range [{start}, {stop}) is empty or negative")
        time_range = [start, stop]
    if crop is not None:
        _require(isinstance(crop, (list, tuple)) and len(crop) == 4, f"crop must be (y0, y1, x0, x1), not {crop!r}")
        crop = [_int("crop", c) for c in crop]
        _require(crop[0] >= 0 and crop[1] > crop[0] and crop[2] >= 0 and crop[3] > crop[2],
                 "crop must be (y0, y1, x0, x1) with y0 < y1 and x0 < x1")
    if time_dim is not None and not isinstance(time_dim, str):
        time_dim = _int("time_dim", time_dim)
    if nan is not None:
        nan = _floats("nan", nan)
        _require(isinstance(nan, float) and nan == nan, f"nan must be None or a number, not {nan!r}")
    _require(backend in BACKENDS, f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if memory_budget is not None:
        memory_budget = _int("memory_budget", memory_budget)
        _require(memory_budget > 0, f"memory_budget must be positive, not {memory_budget}")
    if settings is not None and not isinstance(settings, dict):
        raise TypeError(f"settings must be a dict of setting names to values, not {type(settings).__name__}")
    return {
        "op": "open", "path": _local_path(path), "variables": variables, "channels": chosen,
        "time_dim": time_dim, "history": history, "future": future, "stride": stride,
        "batch_size": batch_size, "shuffle": bool(shuffle), "seed": _int("seed", seed),
        "drop_last": bool(drop_last), "time_range": time_range, "crop": crop, "rank": rank,
        "world_size": world_size, "normalize": normalization(normalize, variables), "dtype": dtype_name,
        "nan": nan, "device": server_device, "device_index": device_index, "prefetch": prefetch,
        "backend": backend, "settings": {str(k): _setting(v) for k, v in (settings or {}).items()},
        "memory_budget": memory_budget,
    }
