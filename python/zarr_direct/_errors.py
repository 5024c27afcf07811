# SPDX-License-Identifier: Apache-2.0
"""Exceptions of the loader client.

Every error keeps to the two built-in types a PyTorch user already catches: options the server
rejects are ``ValueError`` (its ``IllegalArgumentException``), everything else is ``RuntimeError``.
The subclasses only add what a caller may want to inspect (the Java type, the exit code, the log).
"""


class LoaderOptionError(ValueError):
    """The server rejected an option or the store's contents as the options name them."""

    def __init__(self, message, java_type="IllegalArgumentException"):
        super().__init__(message)
        self.java_type = java_type


class LoaderServerError(RuntimeError):
    """The server reported a failure (a read failed, a chunk is corrupt, a device error, ...)."""

    def __init__(self, message, java_type=None):
        super().__init__(message if not java_type else f"{message} [{java_type}]")
        self.java_type = java_type


class ServerDied(RuntimeError):
    """The loader server process ended while the loader was using it (or never came up)."""

    def __init__(self, message, returncode=None, log_tail=""):
        if log_tail:
            message = f"{message}\n--- last lines of the server's output ---\n{log_tail}"
        super().__init__(message)
        self.returncode = returncode
        self.log_tail = log_tail


class LauncherNotFound(RuntimeError):
    """No way to start the JVM loader server was found; the message lists what was tried."""


class ProtocolError(RuntimeError):
    """The server sent something the protocol (docs/loader-protocol.md) does not allow."""


def from_server(message):
    """The exception for an ``{"op": "error"}`` message of the server."""
    text = message.get("message") or "the loader server reported an error without a message"
    java_type = message.get("type")
    if java_type == "IllegalArgumentException":
        return LoaderOptionError(text, java_type)
    return LoaderServerError(text, java_type)
