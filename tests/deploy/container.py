"""A Debian 12 rootfs booted with systemd in ``systemd-nspawn``, sharing the host's network
(no private addresses: everything is on loopback), on an overlay over the cached rootfs so
every test starts from the same clean system and leaves the cache as it was.

Commands run inside with ``nsenter`` into the container's namespaces (the container is not
registered with machined: ``--register=no``, as CI machines have no machined).
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tests.deploy.rootfs import CACHE

BOOT_TIMEOUT = 120.0
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# The host's package folders and CA bundle (a proxy's CA, a local index), so pip inside
# reaches PyPI the way the host does (each test copies /etc/pip.conf into its root).
HOST_RO_DIRS = ("/opt/pypi", "/opt/pypi-more", "/opt/wheels")
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"


def unpacked(tar: Path) -> Path:
    """The tarball unpacked once beside it (the overlay's lower layer)."""
    root = tar.with_suffix(".root")
    done = root / ".unpacked"
    if not done.exists():
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir()
        subprocess.run(["tar", "-C", str(root), "-xf", str(tar)], check=True, timeout=600)
        done.touch()
    return root


class Container:
    def __init__(self, root: Path, log: Path) -> None:
        self.root = root
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None
        self.leader = 0

    def boot(self) -> None:
        binds = [f"--bind-ro={d}" for d in HOST_RO_DIRS if Path(d).is_dir()]
        if Path(HOST_CA).is_file():
            binds.append(f"--bind-ro={HOST_CA}")
        cmd = [
            "systemd-nspawn", "--quiet", "--boot", f"--directory={self.root}",
            "--keep-unit", "--register=no", "--machine=mjdeploy",
            "--resolv-conf=copy-host", "--timezone=off", "--console=read-only", *binds,
        ]  # fmt: skip
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=out, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + BOOT_TIMEOUT
        while not self.leader:
            assert self.proc.poll() is None, f"systemd-nspawn exited: see {self.log}"
            assert time.monotonic() < deadline, f"no container init in {BOOT_TIMEOUT} s"
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
            pids = children.read_text().split() if children.exists() else []
            if pids and Path(f"/proc/{pids[0]}/comm").read_text().strip() == "systemd":
                self.leader = int(pids[0])
            else:
                time.sleep(0.1)
        while True:  # (its bus comes up a moment after systemd starts)
            state = self.sh("systemctl is-system-running --wait", timeout=BOOT_TIMEOUT)
            if state.stdout.strip() in ("running", "degraded"):
                break
            assert time.monotonic() < deadline, f"not booted: {state.stdout}{state.stderr}"
            time.sleep(0.2)

    def run(
        self, argv: list[str], *, timeout: float, input: str | None = None, home: str = "/root"
    ) -> subprocess.CompletedProcess[str]:
        assert self.leader, "not booted"
        env = ["env", "-i", f"PATH={PATH}", f"HOME={home}", "LANG=C.UTF-8", "TERM=dumb"]
        cmd = ["nsenter", "-t", str(self.leader), "-m", "-u", "-i", "-p", "-C", "--", *env]
        done = subprocess.run(
            [*cmd, *argv], input=input, capture_output=True, text=True, timeout=timeout
        )
        with self.log.open("a", encoding="utf-8") as out:
            out.write(f"\n$ {' '.join(argv)}\n[rc {done.returncode}]\n{done.stdout}{done.stderr}")
        return done

    def sh(
        self, script: str, *, timeout: float = 60.0, input: str | None = None, home: str = "/root"
    ) -> subprocess.CompletedProcess[str]:
        """``bash -e`` with the script, in ``home``."""
        return self.run(
            ["bash", "-euo", "pipefail", "-c", f"cd {home}\n{script}"],
            timeout=timeout,
            input=input,
            home=home,
        )

    def ok(self, script: str, *, timeout: float = 60.0, **kw: str) -> str:
        done = self.sh(script, timeout=timeout, **kw)
        assert done.returncode == 0, (
            f"failed ({done.returncode}): {script}\n--- stdout\n{done.stdout[-3000:]}"
            f"\n--- stderr\n{done.stderr[-3000:]}"
        )
        return done.stdout

    def poweroff(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # nspawn: an orderly shutdown of the guest
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None
        self.leader = 0


@contextlib.contextmanager
def overlay(lower: Path) -> Iterator[Path]:
    """A writable view of ``lower`` whose changes vanish afterwards."""
    work = Path(tempfile.mkdtemp(prefix="mjdeploy-", dir=CACHE))
    upper, scratch, merged = work / "upper", work / "work", work / "root"
    for d in (upper, scratch, merged):
        d.mkdir()
    opts = f"lowerdir={lower},upperdir={upper},workdir={scratch}"
    mount = ["mount", "-t", "overlay", "overlay", "-o", opts, str(merged)]
    mounted = subprocess.run(mount, capture_output=True).returncode == 0
    if not mounted:  # no overlayfs here (a CI runner inside a container): a copy
        merged.rmdir()
        subprocess.run(["cp", "-a", "--reflink=auto", str(lower), str(merged)], check=True)
    try:
        yield merged
    finally:
        if mounted:
            subprocess.run(["umount", "--lazy", str(merged)], check=False)
        shutil.rmtree(work, ignore_errors=True)


@contextlib.contextmanager
def booted(tar: Path, log: Path, prepare: object = None) -> Iterator[Container]:
    with overlay(unpacked(tar)) as root:
        if callable(prepare):
            prepare(root)
        box = Container(root, log)
        try:
            box.boot()
            yield box
        finally:
            box.poweroff()
