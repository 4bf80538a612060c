"""The service at a Pi's CPU speed: a cgroup CPU quota on the service's process only (not
the virtual table, the emulated board or the bots, which stand for the world outside the
Pi). Tests and benchmarks share it.

This models a slower core and nothing else: a Pi's memory bandwidth, caches, SD card and
USB/UART latency are not modelled (the SD card's fsyncs have their own shim,
``fsync_shim``). The fractions are of one core of this machine, from single-thread
figures of the boards against a desktop x86 core (pyperformance-style Python runs):

=========  =====================  ======================================
name       share of one core      board
=========  =====================  ======================================
``pi5``    1/2                    Raspberry Pi 5 (Cortex-A76, 2.4 GHz)
``pi4``    1/4                    Raspberry Pi 4 (Cortex-A72, 1.5-1.8 GHz)
``zero2w`` 1/8                    Raspberry Pi Zero 2 W (Cortex-A53, 1 GHz)
=========  =====================  ======================================

The period is short (10 ms, the shortest whose 1/8 is over the kernel's 1 ms floor): a
quota spent early in a long period would stop the process for the rest of it (75 ms of a
100 ms period at 1/4), pauses a slow core never makes. cgroup v2 (``cpu.max``) where the
unified hierarchy has the cpu controller, else v1 (``cpu.cfs_quota_us``). Writing either
needs root (CI runs as root); where it cannot be written the helper fails saying so, never
running the service at full speed instead.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Iterator, Sequence
from itertools import count
from pathlib import Path

PI_SHARES = {"pi5": 1 / 2, "pi4": 1 / 4, "zero2w": 1 / 8}
"""Each named board's CPU, as a share of one core of this machine."""

PERIOD_US = 10_000
MIN_QUOTA_US = 1_000  # the kernel's floor
CGROUP_ROOT = Path("/sys/fs/cgroup")
_names = count()


class CpuQuotaUnavailable(RuntimeError):
    pass


def _hierarchy() -> tuple[Path, int]:
    """Where a cpu cgroup can be made, and its version."""
    unified = CGROUP_ROOT / "cgroup.controllers"
    if unified.exists() and "cpu" in unified.read_text().split():
        return CGROUP_ROOT, 2
    v1 = CGROUP_ROOT / "cpu"
    if (v1 / "cpu.cfs_quota_us").exists():
        return v1, 1
    raise CpuQuotaUnavailable(
        f"no cgroup cpu controller under {CGROUP_ROOT} (neither v2 cpu.max nor v1 "
        "cpu.cfs_quota_us): the service cannot be run at a Pi's speed here"
    )


class CpuQuota:
    """A cgroup allowing ``share`` of one core, for the processes started through
    :meth:`command`. A context manager: on exit its processes go back to the parent
    cgroup and the cgroup is removed.

    >>> with CpuQuota.of("pi4") as quota:
    ...     subprocess.run(quota.command(["mjtable", "run", ...]))
    """

    def __init__(self, share: float, name: str = "") -> None:
        if not 0 < share <= 1:
            raise ValueError(f"a share of one core is in (0, 1], not {share}")
        self.share, self.name = share, name or f"{share:.3f} core"
        self.path: Path | None = None
        self._version = 0

    @classmethod
    def of(cls, pi: str) -> CpuQuota:
        try:
            return cls(PI_SHARES[pi], pi)
        except KeyError:
            raise ValueError(f"no Pi named {pi!r}: one of {', '.join(PI_SHARES)}") from None

    def __enter__(self) -> CpuQuota:
        root, self._version = _hierarchy()
        path = root / f"mjtable-pi-{os.getpid()}-{next(_names)}"
        quota = round(PERIOD_US * self.share)
        if quota < MIN_QUOTA_US:
            raise ValueError(
                f"{self.name}: below the kernel's 1 ms quota in a {PERIOD_US} us period"
            )
        try:
            path.mkdir()
            self.path = path
            if self._version == 2:
                (path / "cpu.max").write_text(f"{quota} {PERIOD_US}\n")
            else:
                (path / "cpu.cfs_period_us").write_text(f"{PERIOD_US}\n")
                (path / "cpu.cfs_quota_us").write_text(f"{quota}\n")
        except OSError as err:
            self.close()
            raise CpuQuotaUnavailable(
                f"cannot write a cgroup CPU quota at {path} ({err.strerror}): running the "
                "service at a Pi's speed needs root (or a delegated cgroup)"
            ) from err
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside the cgroup from its first instruction: a shell joins it,
        then execs the command (same pid)."""
        if self.path is None:
            raise RuntimeError("CpuQuota used outside its with block")
        procs = shlex.quote(str(self.path / "cgroup.procs"))
        return ["/bin/sh", "-c", f'echo $$ > {procs} && exec "$@"', "sh", *argv]

    def join(self, pid: int) -> None:
        """Move a running process (all its threads) into the cgroup."""
        if self.path is None:
            raise RuntimeError("CpuQuota used outside its with block")
        (self.path / "cgroup.procs").write_text(f"{pid}\n")

    def pids(self) -> list[int]:
        return [] if self.path is None else _read_pids(self.path)

    def close(self) -> None:
        path, self.path = self.path, None
        if path is None:
            return
        parent = path.parent / "cgroup.procs"
        for pid in _read_pids(path):
            with contextlib.suppress(OSError):  # gone meanwhile
                parent.write_text(f"{pid}\n")
        with contextlib.suppress(FileNotFoundError):
            path.rmdir()


def _read_pids(path: Path) -> list[int]:
    with contextlib.suppress(OSError):
        return [int(p) for p in (path / "cgroup.procs").read_text().split()]
    return []


@contextlib.contextmanager
def at_pi_speed(pi: str | None) -> Iterator[CpuQuota | None]:
    """``CpuQuota.of(pi)`` entered, or None (the machine's own speed) for None."""
    if pi is None:
        yield None
        return
    with CpuQuota.of(pi) as quota:
        yield quota
