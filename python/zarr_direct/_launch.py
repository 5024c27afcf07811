# SPDX-License-Identifier: Apache-2.0
"""Finding how to start the JVM loader server (``zarr-direct loader-serve``).

The Python package is pure Python; the loader itself runs in a JVM child process. It can be
started in four ways, tried in this order (the explicit settings first, so that a user who names
a server gets that one even when a wheel bundles another):

1. ``ZARR_DIRECT_SERVER_COMMAND``: a command line (split like a shell would) to which the
   ``loader-serve`` arguments are appended; for debugging, profiling or a test double.
2. ``$ZARR_DIRECT_HOME/zarr-direct``: the launcher of a source checkout. It builds the project with
   Maven on first use, which can take minutes, hence the long default start timeout.
3. Jars: those in ``ZARR_DIRECT_JARS`` (a directory), else those a wheel bundles in
   ``zarr_direct/_jars``, run with a Java 25 or newer found through ``ZARR_DIRECT_JAVA`` (a
   ``java`` binary or a Java home), ``JAVA_HOME``, ``/usr/lib/jvm/*`` or ``java`` on the PATH.
4. The checkout this package sits in (``python/../zarr-direct``) when it is used from the repository.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ._errors import LauncherNotFound

MAIN_CLASS = "dev.zarrdirect.cli.ZarrDirectCli"
# The flags the repository's launcher passes: foreign-memory access for the backends, Unsafe for
# the libraries that still use it, and the OpenCL loader's soname (LWJGL looks for libOpenCL.so).
JVM_FLAGS = (
    "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow",
    "-Dorg.lwjgl.opencl.libname=libOpenCL.so.1",
)
MIN_JAVA = 25
PACKAGE_DIR = Path(__file__).resolve().parent


@dataclass
class Launch:
    """A way to start the server: ``argv + server arguments``, with ``env`` added to ours."""

    argv: list
    description: str
    env: dict = field(default_factory=dict)
    may_build: bool = False  # the first start may build the project (minutes)

    def command(self, server_args):
        return list(self.argv) + list(server_args)

    def environment(self):
        merged = dict(os.environ)
        merged.update(self.env)
        return merged


def find_launch():
    """The first way to start the server that is present here, or ``LauncherNotFound``."""
    tried = []
    for finder in (_from_command_variable, _from_home_variable, _from_jars, _from_checkout):
        launch = finder(tried)
        if launch is not None:
            return launch
    raise LauncherNotFound(
        "cannot start the zarr-direct loader server; tried:\n  - " + "\n  - ".join(tried)
        + "\nInstall a zarr_direct wheel that bundles the jars (python/scripts/build_wheel.sh) and a "
        "Java 25 runtime, or set ZARR_DIRECT_HOME to a zarr-direct source checkout."
    )


def _from_command_variable(tried):
    value = os.environ.get("ZARR_DIRECT_SERVER_COMMAND", "").strip()
    if not value:
        tried.append("ZARR_DIRECT_SERVER_COMMAND: not set")
        return None
    return Launch(shlex.split(value), f"ZARR_DIRECT_SERVER_COMMAND ({value})")


def _launcher(path, what, tried):
    if path.is_file() and os.access(path, os.X_OK):
        return Launch([str(path)], f"{what} ({path})", may_build=True)
    tried.append(f"{what}: {path} is not an executable file")
    return None


def _from_home_variable(tried):
    home = os.environ.get("ZARR_DIRECT_HOME", "").strip()
    if not home:
        tried.append("ZARR_DIRECT_HOME: not set")
        return None
    return _launcher(Path(home) / "zarr-direct", "the launcher in ZARR_DIRECT_HOME", tried)


def _from_checkout(tried):
    repo = PACKAGE_DIR.parent.parent
    if not (repo / "pom.xml").is_file():
        tried.append(f"a source checkout around this package: {repo} has no pom.xml")
        return None
    return _launcher(repo / "zarr-direct", "the launcher of the checkout holding this package", tried)


def _from_jars(tried):
    variable = os.environ.get("ZARR_DIRECT_JARS", "").strip()
    where = Path(variable) if variable else PACKAGE_DIR / "_jars"
    what = f"ZARR_DIRECT_JARS ({where})" if variable else f"jars bundled in the package ({where})"
    jars = sorted(glob.glob(str(where / "*.jar")))
    if not jars:
        tried.append(f"{what}: no *.jar there")
        return None
    java_home, java, seen = find_java()
    if java is None:
        tried.append(f"{what}: {len(jars)} jars, but no Java {MIN_JAVA}+ runtime; looked at: "
                     + ("; ".join(seen) or "nothing") + " (set ZARR_DIRECT_JAVA or JAVA_HOME)")
        return None
    env = {}
    # As the repository's launcher does: libjsig chains the signal handlers that OpenCL drivers
    # built on LLVM install, which would otherwise break the JVM's implicit null checks.
    jsig = Path(java_home) / "lib" / "libjsig.so" if java_home else None
    if jsig is not None and jsig.is_file():
        preload = os.environ.get("LD_PRELOAD", "")
        env["LD_PRELOAD"] = str(jsig) + (":" + preload if preload else "")
    extra = shlex.split(os.environ.get("ZARRDIRECT_JAVA_OPTS", ""))
    argv = [java, *JVM_FLAGS, *extra, "-cp", os.pathsep.join(jars), MAIN_CLASS]
    return Launch(argv, f"{what} with {java}", env=env)


def java_version(java):
    """The feature version (25, ...) of a ``java`` binary, or None when it does not run."""
    try:
        out = subprocess.run([java, "-XshowSettings:properties", "-version"], capture_output=True,
                             text=True, timeout=60).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"java\.specification\.version = (\d+)", out)
    return int(m.group(1)) if m else None


def _java_candidates():
    """(java home or None, java binary, where it came from), in the order they are preferred."""
    explicit = os.environ.get("ZARR_DIRECT_JAVA", "").strip()
    if explicit:
        p = Path(explicit)
        if p.is_dir():
            yield str(p), str(p / "bin" / "java"), "ZARR_DIRECT_JAVA"
        else:
            yield str(p.resolve().parent.parent), str(p), "ZARR_DIRECT_JAVA"
    home = os.environ.get("JAVA_HOME", "").strip()
    if home:
        yield home, str(Path(home) / "bin" / "java"), "JAVA_HOME"
    homes = [d for d in glob.glob("/usr/lib/jvm/*") if os.path.isdir(d) and not os.path.islink(d)]
    for d in sorted(homes, reverse=True):
        yield d, os.path.join(d, "bin", "java"), "/usr/lib/jvm"
    on_path = shutil.which("java")
    if on_path:
        real = Path(on_path).resolve()
        yield str(real.parent.parent), str(real), "PATH"


def find_java():
    """(java home, java binary, what was looked at): the newest Java >= 25 of the first source
    that has one; (None, None, seen) when there is none."""
    seen = []
    best = None
    best_source = None
    for home, java, source in _java_candidates():
        if best_source is not None and source != best_source:
            break  # an earlier, more explicit source had a good one
        if not (os.path.isfile(java) and os.access(java, os.X_OK)):
            seen.append(f"{source}: {java} (missing)")
            continue
        version = java_version(java)
        seen.append(f"{source}: {java} (Java {version if version is not None else '?'})")
        if version is not None and version >= MIN_JAVA and (best is None or version > best[2]):
            best = (home, java, version)
            best_source = source
    if best is None:
        return None, None, seen
    return best[0], best[1], seen
