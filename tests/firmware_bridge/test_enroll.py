"""Enrolment: the state machine (full walk, undo, rejections, save and resume) and the
``mjtable enroll`` command (from a UID file, and from HF / reference readers on a pty)."""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import controller.cli.enroll
import controller.cli.version  # noqa: F401  (two commands, so `enroll` is a subcommand)
from controller.cli import app
from firmware_bridge.enroll import Accepted, Enrollment, Rejected, RejectReason, Slot
from firmware_bridge.registry import TagRegistry, TileTag, Unknown
from firmware_bridge.rfid import encode_inventory, encode_rf_off, encode_rf_on, encode_tag_read

KIND_LABELS = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + list("ESWNCFP")


def uid(n: int) -> bytes:
    return bytes.fromhex("e0040150") + n.to_bytes(4, "big")


def test_full_walk_with_undo() -> None:
    e = Enrollment(KIND_LABELS)
    assert e.expected() == Slot("1m", 0, 0)
    assert e.progress().done == 0 and e.progress().total == 136
    n = 0
    while (slot := e.expected()) is not None:
        if slot.index == 50:
            # A wrong tile presented, noticed, taken back.
            assert isinstance(e.offer(uid(9000)), Accepted)
            assert e.undo() == slot
            assert e.expected() == slot
        result = e.offer(uid(n))
        assert result == Accepted(uid(n), slot)
        n += 1
    assert e.is_complete and e.progress().fraction == 1.0
    reg = e.to_registry()
    assert len(reg) == 136 and reg.validate() == []
    assert reg.lookup(uid(0)) == TileTag("1m", 0)
    assert reg.lookup(uid(135)) == TileTag("P", 3)
    assert reg.lookup(uid(50)) == TileTag(KIND_LABELS[12], 2)
    assert e.offer(uid(5000)) == Rejected(
        uid(5000), RejectReason.COMPLETE, "every tile is already enrolled"
    )


def test_walk_goes_kind_by_kind() -> None:
    e = Enrollment(["1m", "2m"])
    order = []
    for i in range(8):
        order.append((e.expected().kind, e.expected().copy))  # type: ignore[union-attr]
        e.offer(uid(i))
    assert order == [("1m", 0), ("1m", 1), ("1m", 2), ("1m", 3)] + [("2m", c) for c in range(4)]
    assert e.enrolled("1m") == 4


def test_rejects_a_uid_already_enrolled_naming_its_tile() -> None:
    e = Enrollment(KIND_LABELS)
    for i in range(6):
        e.offer(uid(i))
    result = e.offer(uid(5))
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.ALREADY_ENROLLED
    assert result.owner == Slot("2m", 1, 5)
    assert "2m copy 2/4" in result.message and uid(5).hex() in result.message
    assert e.expected() == Slot("2m", 2, 6)  # nothing moved


def test_rejects_bad_uid() -> None:
    result = Enrollment(KIND_LABELS).offer(b"\x01\x02")
    assert isinstance(result, Rejected) and result.reason is RejectReason.BAD_UID


def test_undo_on_empty_does_nothing() -> None:
    e = Enrollment(KIND_LABELS)
    assert e.undo() is None
    e.offer(uid(1))
    assert e.undo() == Slot("1m", 0, 0)
    assert e.offer(uid(1)) == Accepted(uid(1), Slot("1m", 0, 0))  # freed for reuse


def test_save_and_resume(tmp_path: Path) -> None:
    path = tmp_path / "partial.json"
    assert Enrollment.resume(path, KIND_LABELS).progress().done == 0
    e = Enrollment(KIND_LABELS)
    for i in range(30):
        e.offer(uid(i))
    e.save(path)
    partial = TagRegistry.load(path)
    assert len(partial) == 30 and partial.kinds == tuple(KIND_LABELS)

    resumed = Enrollment.resume(path, KIND_LABELS)
    assert resumed.progress().done == 30
    assert resumed.expected() == Slot("8m", 2, 30)
    assert resumed.skipped == []
    assert isinstance(resumed.offer(uid(3)), Rejected)  # remembered
    assert resumed.undo() == Slot("8m", 1, 29)  # undo reaches back across the resume
    for i in range(29, 136):
        assert isinstance(resumed.offer(uid(i)), Accepted)
    assert resumed.is_complete
    assert resumed.to_registry().validate() == []


def test_resume_skips_entries_that_do_not_fit(tmp_path: Path) -> None:
    reg = TagRegistry(kinds=KIND_LABELS)
    reg.add(uid(0), "1m", 0)
    reg.add(uid(1), "1m", 1)
    reg.add(uid(1), "1m", 2)  # same UID twice
    reg.add(uid(2), "X", 0)  # not a kind
    reg.add(uid(3), "1m", 0)  # tile taken
    path = tmp_path / "p.json"
    reg.save(path)
    e = Enrollment.resume(path, KIND_LABELS)
    assert e.progress().done == 2
    assert len(e.skipped) == 3
    assert e.expected() == Slot("1m", 2, 2)


def test_holes_in_a_partial_registry_are_filled_first() -> None:
    reg = TagRegistry()
    reg.add(uid(0), "1m", 0)
    reg.add(uid(2), "1m", 2)
    e = Enrollment.from_registry(reg, KIND_LABELS)
    assert e.expected() == Slot("1m", 1, 1)
    e.offer(uid(1))
    assert e.expected() == Slot("1m", 3, 3)


def test_bad_kind_lists() -> None:
    with pytest.raises(ValueError):
        Enrollment([])
    with pytest.raises(ValueError):
        Enrollment(["1m", "1m"])


# --- the ``mjtable enroll`` command -----------------------------------------------------
# (It lives in controller.cli, which may import the engine for Chinese names.)


def run_cli(*args: str, stdin: str = "") -> Result:
    return CliRunner().invoke(app, ["enroll", *args], input=stdin)


def write_uids(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_from_file_full_walk(tmp_path: Path) -> None:
    reg_path = tmp_path / "tags.json"
    lines = [uid(i).hex() for i in range(136)]
    lines[10:10] = [uid(9999).hex(), "u", "# a comment", "", "not-hex"]
    result = run_cli(
        "--registry", str(reg_path), "--from-file", str(write_uids(tmp_path / "u", lines))
    )
    assert result.exit_code == 0, result.output
    assert "enrolment complete" in result.output
    assert "1m 一万 · copy 1/4" in result.output and "P 白板 · copy 4/4" in result.output
    assert "undone" in result.output and "not a hex UID" in result.output
    reg = TagRegistry.load(reg_path)
    assert len(reg) == 136 and reg.validate() == []
    assert reg.lookup(uid(10)) == TileTag("3m", 2)
    assert reg.lookup(uid(9999)) == Unknown(uid(9999))


def test_cli_interrupted_then_resumed(tmp_path: Path) -> None:
    reg_path = tmp_path / "tags.json"
    first = write_uids(tmp_path / "a", [uid(i).hex() for i in range(40)])
    result = run_cli("--registry", str(reg_path), "--from-file", str(first))
    assert result.exit_code == 0 and "saved 40/136" in result.output
    assert "next: 2p 二筒 · copy 1/4" in result.output
    # The second batch repeats a tile already enrolled: refused, naming its tile.
    rest = [uid(3).hex()] + [uid(i).hex() for i in range(40, 136)]
    result = run_cli(
        "--registry", str(reg_path), "--from-file", str(write_uids(tmp_path / "b", rest))
    )
    assert result.exit_code == 0, result.output
    assert "resuming: 40/136" in result.output
    assert "already enrolled as 1m copy 4/4" in result.output
    assert len(TagRegistry.load(reg_path)) == 136


def test_cli_argument_errors(tmp_path: Path) -> None:
    assert run_cli("--registry", str(tmp_path / "r.json")).exit_code == 2
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    result = run_cli("--registry", str(broken), "--from-file", str(tmp_path / "u"))
    assert result.exit_code == 2 and "not JSON" in result.output
    assert broken.read_text() == "{not json"  # never overwritten


class Pty:
    """A pty standing in for a USB reader: the command opens ``path``, the test writes the
    reader's bytes on the master side and reads what the command sent."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no newline translation before pyserial opens it
        self.path = os.ttyname(self._slave)
        self._received = bytearray()
        self._thread: threading.Thread | None = None

    def _read_some(self, timeout: float) -> None:
        if select.select([self.master], [], [], timeout)[0]:
            with contextlib.suppress(OSError):
                self._received += os.read(self.master, 4096)

    def play(self, chunks: list[bytes], *, after: bytes | None = None, pause: float = 0.0) -> None:
        """Write ``chunks`` from a thread, once the command has sent ``after`` (pyserial
        flushes input on open, so bytes written before that would be lost)."""

        def run() -> None:
            deadline = time.monotonic() + 10
            while after is not None and after not in self._received:
                if time.monotonic() > deadline:
                    return
                self._read_some(0.05)
            for chunk in chunks:
                os.write(self.master, chunk)
                if pause:
                    time.sleep(pause)

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def received(self) -> bytes:
        if self._thread is not None:
            self._thread.join(10)
        self._read_some(0.1)
        return bytes(self._received)

    def close(self) -> None:
        os.close(self.master)
        os.close(self._slave)


@pytest.fixture
def pty_reader() -> Iterator[Pty]:
    p = Pty()
    yield p
    p.close()


def test_cli_hf_reader_over_a_pty(tmp_path: Path, pty_reader: Pty) -> None:
    frames = []
    for i in range(136):
        frames.append(encode_tag_read(uid(i)))
        if i == 7:
            frames.append(encode_tag_read(uid(i)))  # re-read of the tile just enrolled
            frames.append(b"\x02\x09\x10garbage")  # noise on the line
    stream = b"".join(frames)
    # Delivered in odd-sized pieces, as a USB adapter would.
    pieces = [stream[i : i + 50] for i in range(0, len(stream), 50)]
    pty_reader.play(pieces, after=encode_rf_on())  # a real reader, too, waits for RF on
    reg_path = tmp_path / "tags.json"
    result = run_cli(
        "--registry", str(reg_path), "--device", pty_reader.path, "--readers", "hf",
        "--idle-exit", "5",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "enrolment complete" in result.output
    reg = TagRegistry.load(reg_path)
    assert reg.validate() == [] and reg.lookup(uid(135)) == TileTag("P", 3)
    sent = pty_reader.received()
    assert sent.startswith(encode_rf_on()) and sent.endswith(encode_rf_off())


def test_cli_ref_reader_partial_then_undo(tmp_path: Path, pty_reader: Pty) -> None:
    reg_path = tmp_path / "tags.json"
    # The inventory grows by one tile at a time, then two tiles at once (refused). A real
    # reader scans over and over: each state is repeated for 0.3 s, so scans sent before
    # the command opened (and flushed) the port do not matter.
    states = [[uid(i) for i in range(n)] for n in (1, 2, 3, 4, 5, 7)]
    scans = [encode_inventory(1, s, state) for s, state in enumerate(states) for _ in range(6)]
    pty_reader.play(scans, pause=0.05)
    result = run_cli(
        "--registry", str(reg_path), "--device", pty_reader.path, "--readers", "ref",
        "--idle-exit", "2",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "one tile at a time" in result.output
    assert "saved 5/136" in result.output
    assert len(TagRegistry.load(reg_path)) == 5

    # Rerun: resumes; "u" on stdin undoes the last tile (2m copy 1).
    result = run_cli(
        "--registry", str(reg_path), "--device", pty_reader.path, "--readers", "ref",
        "--idle-exit", "0.5", stdin="u\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "resuming: 5/136" in result.output and "undone: 2m 二万 · copy 1/4" in result.output
    assert len(TagRegistry.load(reg_path)) == 4
