"""The project on a Pi's architecture: installed into a Debian 12 arm64 rootfs run through
qemu-user (binfmt), with no compiler there and pip allowed wheels only, so every
dependency must have an arm64 wheel; then ``mjtable version`` and ``mjtable settle`` run
there and settle a hand as they do here."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.controller.cli.test_cli_analyze_settle import SETTLE_REQUEST
from tests.deploy.conftest import Timings
from tests.deploy.container import HOST_CA, HOST_RO_DIRS, overlay, unpacked
from tests.deploy.rootfs import rootfs_tar

pytestmark = pytest.mark.deploy

REPO = Path(__file__).resolve().parents[2]
BINFMT = Path("/proc/sys/fs/binfmt_misc/qemu-aarch64")


def _in_arm64(root: Path, script: str, timeout: float, input: str | None = None) -> str:
    binds = [f"--bind-ro={d}" for d in HOST_RO_DIRS if Path(d).is_dir()]
    if Path(HOST_CA).is_file():
        binds.append(f"--bind-ro={HOST_CA}")
    cmd = [
        "systemd-nspawn", "--quiet", f"--directory={root}", "--machine=mjarm64",
        "--register=no", "--keep-unit", "--resolv-conf=copy-host", "--timezone=off", "--pipe",
        *binds,
        "/bin/bash", "-euo", "pipefail", "-c", script,
    ]  # fmt: skip
    done = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{script}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.timeout(2400)
def test_installs_from_wheels_and_settles_on_arm64(tmp_path: Path, timings: Timings) -> None:
    if not BINFMT.exists() or "enabled" not in BINFMT.read_text():
        pytest.fail(
            "no qemu-aarch64 binfmt handler: apt-get install qemu-user-static binfmt-support"
            " (and mount binfmt_misc: update-binfmts --enable qemu-aarch64)"
        )
    t = time.monotonic()
    tar = rootfs_tar("arm64")
    timings.part("arm64 rootfs (cached unless the package list changed)", t)

    t = time.monotonic()  # the project's own wheel, from a fresh clone of HEAD
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", _head()], check=True, timeout=60)
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(clone)],
        check=True,
        timeout=600,
    )
    (wheel,) = dist.glob("*.whl")
    timings.part("the project's wheel", t)

    t = time.monotonic()
    with overlay(unpacked(tar)) as root:
        shutil.copy(wheel, root / "srv")  # (nspawn mounts a tmpfs on /tmp)
        if Path("/etc/pip.conf").is_file():
            shutil.copy("/etc/pip.conf", root / "etc/pip.conf")
        arch = _in_arm64(root, "uname -m; dpkg --print-architecture", 120)
        assert arch.split() == ["aarch64", "arm64"]
        _in_arm64(
            root, "! command -v gcc && ! command -v cc && ! command -v aarch64-linux-gnu-gcc", 60
        )
        # (--no-compile: byte-compiling every package under emulation cost ~30 s of the
        # tier, and bytecode does not depend on the architecture; what runs compiles on use)
        _in_arm64(
            root,
            "python3 -m venv /opt/mjtable/venv && /opt/mjtable/venv/bin/pip install -q --no-compile"
            f" --only-binary=:all: /srv/{wheel.name}",
            1800,
        )
        timings.part("arm64: pip install, wheels only (qemu-user)", t)
        t = time.monotonic()
        version = _in_arm64(root, "/opt/mjtable/venv/bin/mjtable version", 300)
        request = json.dumps(SETTLE_REQUEST)
        there = _in_arm64(root, "/opt/mjtable/venv/bin/mjtable settle -", 300, input=request)
        timings.part("arm64: mjtable version, settle", t)
    here = subprocess.run(
        [sys.executable, "-m", "controller.cli", "settle", "-"],
        input=request, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert version.strip()
    assert json.loads(there) == json.loads(here.stdout)


def _head() -> str:
    out = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip()
