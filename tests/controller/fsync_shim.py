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
def build(source: Path) -> Path:
    """An LD_PRELOAD shim's shared object, compiled from ``source`` with the system's C
    compiler once per process."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise RuntimeError(f"{source.name}: no C compiler (cc/gcc) on PATH")
    out = Path(tempfile.mkdtemp(prefix="mjtable-shim-")) / f"lib{source.stem}.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", "-Wall", "-o", str(out), str(source), "-ldl"],
        check=True,
        capture_output=True,
    )
    return out


def shim() -> Path:
    """The fsync shim's shared object."""
    return build(SOURCE)


def environment(*, delay_ms: float = 0.0, snapshot: Path | None = None) -> dict[str, str]:
    """Variables that load the shim into a child process."""
    env = {"LD_PRELOAD": str(shim()), "MJTABLE_FSYNC_DELAY_US": str(int(delay_ms * 1000))}
    if snapshot is not None:
        env["MJTABLE_FSYNC_SNAPSHOT"] = str(snapshot)
    return env
