"""Debian 12 (bookworm) root filesystems for the deploy tier, built once with mmdebstrap
from Debian's archive and cached under ``CACHE`` keyed by a hash of what goes in.

A build writes ``<key>.tar`` next to a ``<key>.tar.tmp`` and renames it when complete, so an
interrupted build is never taken for a cache hit.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

CACHE = Path(os.environ.get("MJTABLE_DEPLOY_CACHE", "/var/cache/mjtable-deploy"))
MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
BUILD_TIMEOUT = 1200.0  # seconds: a cold build fetches ~300 MB on amd64

# What a booted table Pi (and its hub, on the same box for the test) has before
# deploy/install.sh runs: systemd, the guide's own tools, and what install.sh installs
# (present already, so a test run's apt-get finds it installed: fast, but still checked).
AMD64_PACKAGES = [
    "systemd",
    "systemd-sysv",
    "dbus",
    "udev",
    "ca-certificates",
    "curl",
    "git",
    "sudo",
    "python3",
    "python3-venv",
    "fonts-noto-cjk",
    "mosquitto-clients",
    "sqlite3",
    "rsync",
    "jq",
    "espeak-ng",
    "alsa-utils",
    "mosquitto",
    "postgresql",
]
# The arm64 check: Python and nothing to compile with (no gcc, no python3-dev).
ARM64_PACKAGES = ["ca-certificates", "python3", "python3-venv"]


def _key(arch: str, packages: list[str] | tuple[str, ...]) -> str:
    text = "\n".join([SUITE, MIRROR, arch, *sorted(packages)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def missing_tools(*tools: str) -> list[str]:
    return [t for t in tools if shutil.which(t) is None]


def rootfs_tar(arch: str) -> Path:
    """The cached tarball of the ``arch`` rootfs, built first if absent."""
    packages = AMD64_PACKAGES if arch == "amd64" else ARM64_PACKAGES
    CACHE.mkdir(parents=True, exist_ok=True)
    tar = CACHE / f"bookworm-{arch}-{_key(arch, packages)}.tar"
    if tar.exists():
        return tar
    tmp = tar.with_suffix(".tar.tmp")
    tmp.unlink(missing_ok=True)
    subprocess.run(
        [
            "mmdebstrap",
            "--quiet",
            f"--architectures={arch}",
            "--variant=apt",
            f"--include={','.join(packages)}",
            # no docs or man pages: a smaller tarball, faster to unpack per test
            "--dpkgopt=path-exclude=/usr/share/man/*",
            "--dpkgopt=path-exclude=/usr/share/doc/*",
            "--format=tar",
            SUITE,
            str(tmp),
            MIRROR,
        ],
        check=True,
        timeout=BUILD_TIMEOUT,
    )
    tmp.rename(tar)
    return tar


if __name__ == "__main__":  # `python tests/deploy/rootfs.py amd64 arm64`: warm the cache
    import sys

    for a in sys.argv[1:]:
        print(rootfs_tar(a))
