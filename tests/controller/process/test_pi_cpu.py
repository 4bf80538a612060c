"""The helper that runs the service at a Pi's CPU speed: the cgroup it makes holds the
process from its first instruction with the Pi's quota in a short period, goes away after,
and a machine where no quota can be written says so instead of running at full speed."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.controller import pi_cpu
from tests.controller.pi_cpu import PERIOD_US, PI_SHARES, CpuQuota, CpuQuotaUnavailable


def _quota(path: Path) -> tuple[int, int]:
    """(quota, period) in µs, v2 or v1."""
    if (path / "cpu.max").exists():
        quota, period = (path / "cpu.max").read_text().split()
        return int(quota), int(period)
    quota = int((path / "cpu.cfs_quota_us").read_text())
    return quota, int((path / "cpu.cfs_period_us").read_text())


@pytest.mark.parametrize("pi", sorted(PI_SHARES))
def test_a_pi_is_a_share_of_one_core_in_a_short_period(pi: str) -> None:
    with CpuQuota.of(pi) as quota:
        path = quota.path
        assert path is not None
        assert _quota(path) == (round(PERIOD_US * PI_SHARES[pi]), PERIOD_US)
        assert PERIOD_US <= 10_000
        # the command is in the cgroup from its start: it reads its own membership
        out = subprocess.run(
            quota.command(["cat", "/proc/self/cgroup"]), capture_output=True, text=True, check=True
        ).stdout
        assert path.name in out
    assert not path.exists()  # removed after use


def test_a_process_left_running_is_moved_out_and_the_cgroup_removed() -> None:
    with CpuQuota.of("zero2w") as quota:
        proc = subprocess.Popen(quota.command(["sleep", "30"]))
        try:
            deadline = time.monotonic() + 10
            while proc.pid not in quota.pids():  # the shell joins, then execs sleep
                assert time.monotonic() < deadline
                time.sleep(0.01)
            path = quota.path
            assert path is not None
        finally:
            quota.close()
            proc.kill()
            proc.wait()
    assert not path.exists()


def test_no_cpu_controller_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pi_cpu, "CGROUP_ROOT", tmp_path)
    with pytest.raises(CpuQuotaUnavailable, match="cannot be run at a Pi's speed"):
        CpuQuota.of("pi4").__enter__()
    with pytest.raises(ValueError, match="no Pi named"):
        CpuQuota.of("pi3")
