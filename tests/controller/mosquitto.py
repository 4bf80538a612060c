"""A real Mosquitto for tests: temp config, a free port, start / stop / kill / restart."""

from __future__ import annotations

import getpass
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from controller.process.local_ports import free_local_port

MISSING = (
    "mosquitto is not installed: run .ci/run, or `apt-get install -y mosquitto` "
    "(the MQTT tests need a real broker and are never skipped)"
)
START_TIMEOUT = 20.0  # seconds to wait for the port (a guard against hangs, not a measure)


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None
    )
    if found is None:
        pytest.fail(MISSING, pytrace=False)
    return found


def mosquitto_passwd_binary() -> str:
    found = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    if not os.access(found, os.X_OK):
        pytest.fail(MISSING, pytrace=False)
    return found


RUNNING = re.compile(rb"mosquitto version \S+ running$", re.MULTILINE)  # every listener open


def log_size(log: Path) -> int:
    return log.stat().st_size if log.exists() else 0


def says_running(log: Path, since: int) -> bool:
    """The broker's log, after byte ``since``, says it is running."""
    with log.open("rb") as f:
        f.seek(since)
        return RUNNING.search(f.read()) is not None


def wait_running(port: int, proc: subprocess.Popen[bytes], log: Path, since: int) -> None:
    """Until this start's broker (its log from byte ``since``) has said it is running and
    accepts on ``port``.

    The log, not the port alone: a broker that opened its first listener and then fails
    to open the next one (its port taken meanwhile) accepts for a moment and exits, and
    a test connecting in that moment is reset."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"mosquitto exited ({proc.returncode}):\n{log_text(log)}")
        if log.exists() and says_running(log, since):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return
            except OSError:
                pass
        time.sleep(0.02)
    raise RuntimeError(f"mosquitto did not start on {port}:\n{log_text(log)}")


def log_text(log: Path) -> str:
    stderr = log.with_suffix(".stderr")
    text = log.read_text(errors="replace") if log.exists() else "(no log)\n"
    if stderr.exists() and stderr.stat().st_size:
        text += "stderr:\n" + stderr.read_text(errors="replace")
    return text


class Mosquitto:
    """One broker configuration; start() it again after stop()/kill() on the same port."""

    def __init__(
        self,
        workdir: Path,
        *,
        persistence: bool = False,
        password_file: Path | None = None,
        tls: tuple[Path, Path, Path] | None = None,  # ca, cert, key
        every_message_logged: bool = True,  # off for benches: it costs the broker time
    ) -> None:
        self.binary = mosquitto_binary()
        self.workdir = workdir
        self.port = free_local_port()
        self.log = workdir / "mosquitto.log"
        self.conf = workdir / "mosquitto.conf"
        # As root (CI), mosquitto would switch to the "mosquitto" user and then could not
        # write its log or persistence file in the test's folder: stay who we are.
        lines = [f"user {getpass.getuser()}", f"listener {self.port} 127.0.0.1"]
        lines.append("set_tcp_nodelay true")  # as deploy/mosquitto/mjtable.conf sets it
        if password_file is not None:
            lines += ["allow_anonymous false", f"password_file {password_file}"]
        else:
            lines.append("allow_anonymous true")
        if tls is not None:
            ca, cert, key = tls
            lines += [f"cafile {ca}", f"certfile {cert}", f"keyfile {key}"]
        if persistence:
            # Saved only on a clean shutdown (autosave off): a SIGKILL loses what came after.
            lines += [
                "persistence true",
                f"persistence_location {workdir}/",
                "autosave_interval 0",
            ]
        else:
            lines.append("persistence false")
        lines.append(f"log_dest file {self.log}")
        if every_message_logged:
            lines.append("log_type all")
        else:  # connections, errors and the "running" line start() waits for
            lines += [f"log_type {kind}" for kind in ("error", "warning", "notice", "information")]
        self.conf.write_text("\n".join(lines) + "\n")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None, "already running"
        since = log_size(self.log)  # a restart appends to the same log
        # Before its log file is open (a config error) mosquitto can only say it on stderr.
        with self.log.with_suffix(".stderr").open("ab") as stderr:
            self.proc = subprocess.Popen(
                [self.binary, "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=stderr
            )
        wait_running(self.port, self.proc, self.log, since)

    def stop(self) -> None:
        """Clean shutdown (SIGTERM): persistence, if on, is saved."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=START_TIMEOUT)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=START_TIMEOUT)
