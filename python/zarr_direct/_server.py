# SPDX-License-Identifier: Apache-2.0
"""The JVM loader server as a child process, and the newline-JSON connection to it.

The protocol is docs/loader-protocol.md. This module knows its framing and lifetime rules, not its
messages' meaning: it starts the child in its own session (so that Ctrl-C reaches Python alone and
Python shuts the child down in order), accepts its connection while watching that it is still
alive, turns ``error`` messages into exceptions, and guarantees that the child is gone, reaped,
and that its ``/dev/shm`` files and our private directory are removed, whichever way the loader
ends (``close()``, garbage collection, interpreter exit, or the child dying on its own).
"""

import glob
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import weakref

from . import _launch
from ._errors import ProtocolError, ServerDied, from_server

DEFAULT_START_TIMEOUT = 600.0  # a source checkout's launcher builds the project on first use
GRACE_SECONDS = 5.0  # after close, and again after SIGTERM, before the next step
POLL_SECONDS = 0.5  # how often a blocked wait checks that the child is alive
SEND_TIMEOUT = 60.0
LOG_TAIL_LINES = 40
_SOCKET_PATH_MAX = 100  # sun_path holds 108 bytes; keep a margin


def _private_dir():
    base = tempfile.gettempdir()
    if len(os.path.join(base, "zarr-direct-XXXXXXXX", "loader.sock")) > _SOCKET_PATH_MAX:
        base = "/tmp"  # a long TMPDIR would not fit in a socket address
    return tempfile.mkdtemp(prefix="zarr-direct-", dir=base)


def _tail(state, lines=LOG_TAIL_LINES):
    """The last lines of the server's output (stdout and stderr), or ""."""
    try:
        if state.log_reader is not None:
            f = state.log_reader
        elif state.log_path and os.path.exists(state.log_path):
            f = state.log_reader = open(state.log_path, "rb")
        else:
            return ""
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 64 * 1024))
        text = f.read().decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


class _State:
    """What must be cleaned up, apart from the ``ServerProcess`` so that a finalizer can hold it."""

    def __init__(self):
        self.proc = None
        self.sock = None
        self.listener = None
        self.dir = None
        self.shm_prefix = None
        self.log_path = None
        self.log_file = None
        self.log_reader = None
        self.close_sent = False
        self.done = False


def _shutdown(state, graceful):
    """Ends the child and removes everything it and we created. Idempotent; never raises."""
    if state.done:
        return
    state.done = True
    proc = state.proc
    try:
        if graceful and not state.close_sent and proc is not None and proc.poll() is None \
                and state.sock is not None:
            try:
                state.sock.sendall(b'{"op": "close"}\n')
            except OSError:
                pass
        for s in (state.sock, state.listener):
            if s is not None:
                try:
                    s.close()  # end of file for the server, which then frees its slots and exits
                except OSError:
                    pass
        if proc is not None:
            _terminate(proc, wait_first=GRACE_SECONDS if graceful else 0.0)
    finally:
        for f in (state.log_file, state.log_reader):
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
        state.log_file = state.log_reader = None
        if state.shm_prefix:
            # A server killed with SIGKILL cannot delete its files; the prefix is ours alone.
            for path in glob.glob(os.path.join("/dev/shm", glob.escape(state.shm_prefix) + "*")):
                try:
                    os.unlink(path)
                except OSError:
                    pass
        if state.dir:
            shutil.rmtree(state.dir, ignore_errors=True)


def _signal_group(proc, sig):
    # The child leads its own session and process group: signalling the group also reaches what a
    # launcher script started (a Maven build on first use).
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass


def _terminate(proc, wait_first):
    """Waits ``wait_first`` s for a voluntary exit, then SIGTERM, then SIGKILL; always reaps."""
    try:
        proc.wait(timeout=wait_first)
        return
    except subprocess.TimeoutExpired:
        pass
    _signal_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=GRACE_SECONDS)
        return
    except subprocess.TimeoutExpired:
        pass
    _signal_group(proc, signal.SIGKILL)
    proc.wait()


class ServerProcess:
    """One ``loader-serve`` child and its connection.

    ``send`` writes one message; ``receive`` returns the next one, raising ``ServerDied`` when the
    child is gone. ``request`` sends and waits for one reply, turning ``error`` replies into
    ``ValueError``/``RuntimeError``. Not thread-safe: one loader, one consumer thread.
    """

    def __init__(self, start_timeout=None, launch=None, env=None):
        if start_timeout is None:
            start_timeout = float(os.environ.get("ZARR_DIRECT_START_TIMEOUT", DEFAULT_START_TIMEOUT))
        self._state = _State()
        self._finalizer = weakref.finalize(self, _shutdown, self._state, True)
        self._buffer = bytearray()
        self._launch = launch if launch is not None else _launch.find_launch()
        self._env = dict(env or {})
        try:
            self._start(float(start_timeout))
        except BaseException:
            self._finalizer()
            raise

    # -- start -------------------------------------------------------------------------------

    def _start(self, timeout):
        st = self._state
        st.dir = _private_dir()
        st.shm_prefix = f"zd-{os.getpid()}-{secrets.token_hex(4)}"
        sock_path = os.path.join(st.dir, "loader.sock")
        st.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        st.listener.bind(sock_path)
        st.listener.listen(1)
        st.log_path = os.path.join(st.dir, "server.log")
        st.log_file = open(st.log_path, "wb")
        argv = self._launch.command(["loader-serve", "--socket", sock_path, "--shm-prefix", st.shm_prefix])
        try:
            st.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=st.log_file,
                                       stderr=subprocess.STDOUT, env={**self._launch.environment(), **self._env},
                                       start_new_session=True, close_fds=True)
        except OSError as e:
            raise ServerDied(f"cannot run the loader server ({self._launch.description}): {e}") from e
        st.listener.settimeout(POLL_SECONDS)
        deadline = time.monotonic() + timeout
        announced = False
        started = time.monotonic()
        while True:
            try:
                conn, _ = st.listener.accept()
                break
            except socket.timeout:
                pass
            self._check_alive("while starting")
            if time.monotonic() > deadline:
                raise ServerDied(f"the loader server ({self._launch.description}) did not connect within "
                                 f"{timeout:.0f} s (start_timeout, or ZARR_DIRECT_START_TIMEOUT)",
                                 None, _tail(st))
            if not announced and self._launch.may_build and time.monotonic() - started > 5:
                print(f"zarr-direct: waiting for the loader server to start; {self._launch.description} "
                      f"builds the project on first use, which can take minutes (log: {st.log_path})",
                      file=sys.stderr, flush=True)
                announced = True
        st.listener.close()
        st.listener = None
        conn.settimeout(POLL_SECONDS)
        st.sock = conn
        # Nothing needs the files any more: the connection is made, and the log stays readable
        # through an open handle. Removing them now leaves nothing behind even if Python is killed.
        st.log_reader = open(st.log_path, "rb")
        try:
            os.unlink(sock_path)
            os.unlink(st.log_path)
            os.rmdir(st.dir)
            st.dir = None
        except OSError:
            pass  # removed at close instead

    # -- properties ----------------------------------------------------------------------------

    @property
    def pid(self):
        return self._state.proc.pid if self._state.proc is not None else None

    @property
    def shm_prefix(self):
        return self._state.shm_prefix

    @property
    def description(self):
        return self._launch.description

    @property
    def closed(self):
        return self._state.done

    # -- messages ------------------------------------------------------------------------------

    def _check_alive(self, when):
        proc = self._state.proc
        code = proc.poll()
        if code is not None:
            raise self._died(code, when)

    def _died(self, code, when):
        st = self._state
        tail = _tail(st)
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        error = ServerDied(f"the zarr-direct loader server (pid {st.proc.pid}, {self._launch.description}) "
                           f"{how} {when}", code, tail)
        _shutdown(st, graceful=False)
        return error

    def _gone(self, when):
        """The connection ended: wait briefly for the exit code, then raise."""
        proc = self._state.proc
        try:
            code = proc.wait(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            _shutdown(self._state, graceful=False)
            raise ServerDied(f"the zarr-direct loader server (pid {proc.pid}) closed the connection {when}",
                             proc.returncode, _tail(self._state))
        raise self._died(code, when)

    def _ensure_open(self):
        if self._state.done:
            raise RuntimeError("the loader is closed (or its server died); create a new ZarrLoader")

    def send(self, message):
        self._ensure_open()
        data = (json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n").encode("utf-8")
        sock = self._state.sock
        try:
            # Messages are small and the server reads all the time: a send that blocks this long
            # means the server is stuck.
            sock.settimeout(SEND_TIMEOUT)
            try:
                sock.sendall(data)
            finally:
                sock.settimeout(POLL_SECONDS)
        except socket.timeout:
            # sendall with a timeout may have written part of the line; the stream is unusable.
            _shutdown(self._state, graceful=False)
            raise ServerDied("the loader server stopped reading its socket", None,
                             _tail(self._state)) from None
        except OSError:
            self._gone(f"while sending {message.get('op')!r}")

    def receive(self, timeout=None):
        """The next message; blocks (checking that the child lives) up to ``timeout`` s, or forever."""
        self._ensure_open()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[:newline + 1]
                try:
                    message = json.loads(line.decode("utf-8"))
                except ValueError as e:
                    raise ProtocolError(f"the loader server sent a line that is not JSON: {line[:200]!r}") from e
                if not isinstance(message, dict) or "op" not in message:
                    raise ProtocolError(f"the loader server sent a message without 'op': {line[:200]!r}")
                return message
            try:
                chunk = self._state.sock.recv(1 << 16)
            except socket.timeout:
                self._check_alive("while the loader waited for it")
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"no message from the loader server within {timeout} s")
                continue
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self._gone("(its connection ended)")
            self._buffer += chunk

    def request(self, message, reply_op, timeout=None):
        """Sends ``message`` and returns the reply whose op is ``reply_op``; ``error`` raises."""
        self.send(message)
        reply = self.receive(timeout)
        if reply["op"] == "error":
            raise from_server(reply)
        if reply["op"] != reply_op:
            raise ProtocolError(f"the loader server answered {message['op']!r} with {reply['op']!r}, "
                                f"not {reply_op!r}")
        return reply

    def close(self, graceful=True):
        """Ends the server and removes its files; idempotent.

        Graceful: sends ``close`` and waits up to 5 s for ``closed`` (discarding what comes before
        it), then closes the socket and waits for the exit; SIGTERM, then SIGKILL after 5 s more.
        """
        if self._finalizer.detach() is None:
            return
        st = self._state
        if graceful and not st.done and st.proc.poll() is None:
            try:
                self.send({"op": "close"})
                st.close_sent = True
                deadline = time.monotonic() + GRACE_SECONDS
                while time.monotonic() < deadline:
                    if self.receive(timeout=max(0.0, deadline - time.monotonic()))["op"] == "closed":
                        break
            except (OSError, RuntimeError, TimeoutError, ValueError):
                pass  # it is ended below whatever it answered
        _shutdown(st, graceful)

    def log_tail(self):
        return _tail(self._state)
