#!/usr/bin/env python3
"""Which native library replaces the process's SIGSEGV/SIGBUS handlers? The JVM relies on its own
(implicit null checks, safepoint polls); a library that swaps them out without chaining makes the
JVM die of a plain 'Segmentation fault' with no hs_err report. Prints the handlers before and
after cuInit and cuFileDriverOpen."""
import ctypes

libc = ctypes.CDLL("libc.so.6", use_errno=True)
SIGNALS = {"SEGV": 11, "BUS": 7, "ILL": 4, "FPE": 8, "ABRT": 6}


def handlers():
    out = {}
    for name, num in SIGNALS.items():
        buf = ctypes.create_string_buffer(256)
        libc.sigaction(num, None, buf)
        out[name] = hex(ctypes.c_void_p.from_buffer(buf).value or 0)
    return out


print("start               ", handlers())
cuda = ctypes.CDLL("libcuda.so.1")
print("cuInit", cuda.cuInit(0), "          ", handlers())
try:
    cufile = ctypes.CDLL("libcufile.so.0")
    print("cuFileDriverOpen", cufile.cuFileDriverOpen(), handlers())
except OSError as e:
    print("no libcufile:", e)
