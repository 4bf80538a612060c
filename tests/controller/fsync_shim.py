"""Builds ``fsync_shim.c`` (an SD card's slow fsync, and a power cut's snapshot of what was
synced) once per process, for tests and benchmarks that run the service with LD_PRELOAD."""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

SOURCE = Path(__file__).with_name("fsync_shim.c")


@functools.cache
def shim() -> Path:
    """The shared object's path (compiled with the system's C compiler)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise RuntimeError("fsync shim: no C compiler (cc/gcc) on PATH")
    out = Path(tempfile.mkdtemp(prefix="mjtable-fsync-shim-")) / "libfsyncshim.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", "-Wall", "-o", str(out), str(SOURCE), "-ldl"],
        check=True,
        capture_output=True,
    )
    return out


def environment(*, delay_ms: float = 0.0, snapshot: Path | None = None) -> dict[str, str]:
    """Variables that load the shim into a child process."""
    env = {"LD_PRELOAD": str(shim()), "MJTABLE_FSYNC_DELAY_US": str(int(delay_ms * 1000))}
    if snapshot is not None:
        env["MJTABLE_FSYNC_SNAPSHOT"] = str(snapshot)
    return env
