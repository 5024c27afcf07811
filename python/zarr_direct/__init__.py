# SPDX-License-Identifier: Apache-2.0
"""zarr-direct for Python: a PyTorch training loader over Zarr stores, decoded by zarr-direct.

Use ``from zarr_direct.torch import ZarrLoader``. The loader runs the JVM zarr-direct loader
server as a child process and maps its batches zero-copy (CUDA IPC or shared memory); see
``zarr_direct.torch`` for the contract and docs/loader-protocol.md for the wire protocol.
"""

from ._errors import LauncherNotFound, LoaderOptionError, LoaderServerError, ProtocolError, ServerDied

__version__ = "0.1.0"
__all__ = ["LauncherNotFound", "LoaderOptionError", "LoaderServerError", "ProtocolError", "ServerDied",
           "__version__"]
