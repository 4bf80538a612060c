"""The deploy tier (``pytest -m deploy tests/deploy``, run by ``make test``): the guide's
commands on a booted Debian 12 with systemd, and the install on arm64. It needs root,
mmdebstrap, systemd-nspawn (systemd-container), qemu-user-static with binfmt and Debian's
archive and PyPI: a missing one FAILS with what to install (.ci/run installs them)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from tests.deploy.rootfs import missing_tools

NEEDS = {
    "mmdebstrap": "mmdebstrap",
    "systemd-nspawn": "systemd-container",
    "nsenter": "util-linux",
    "git": "git",
}


@pytest.fixture(scope="session", autouse=True)
def deploy_prerequisites() -> None:
    if os.geteuid() != 0:
        pytest.fail("the deploy tier boots containers: run it as root (sudo make deploy-test)")
    missing = missing_tools(*NEEDS)
    if missing:
        packages = " ".join(sorted({NEEDS[t] for t in missing}))
        pytest.fail(f"the deploy tier needs {', '.join(missing)}: apt-get install {packages}")


class Timings:
    """Each part's time, printed at the end (cold: the rootfs built; cached: reused)."""

    def __init__(self) -> None:
        self.parts: list[tuple[str, float]] = []

    def part(self, name: str, started: float) -> None:
        self.parts.append((name, time.monotonic() - started))
        print(f"deploy tier: {name}: {time.monotonic() - started:.1f} s", flush=True)


@pytest.fixture
def timings() -> Iterator[Timings]:
    t = Timings()
    yield t
