"""``mjtable enroll``: stick a tag on every tile, then teach the table which is which.

The operator presents the tiles kind by kind (1m ×4, 2m ×4, … 白 ×4) to a reader; each new
UID is recorded for the tile the screen asks for. Every accepted tile is saved at once
(atomically), so Ctrl-C, a crash or a power cut loses nothing and rerunning resumes.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Annotated, TextIO

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from controller.cli.options import Address, Baud, ReaderModel, Readers, usable
from engine.tiles import KIND_LABELS, TileNotationError, parse_kind, zh_name
from firmware_bridge.enroll import Accepted, Enrollment, RejectReason, Slot
from firmware_bridge.registry import KindLabel, RegistryFileError
from firmware_bridge.rfid import (
    HfCodec,
    Inventory,
    PresenceTracker,
    ReaderCodec,
    RefCodec,
    TagRead,
    encode_rf_off,
    encode_rf_on,
    parse_uid,
    uid_hex,
)
from firmware_bridge.rfid.events import ReaderAlert
from firmware_bridge.rfid.sessions import session_for

cli = typer.Typer(add_completion=False)


REPEAT_WARNING_INTERVAL = 3.0  # seconds before the same complaint about a tile is repeated


# the readers a tile can be enrolled on (``none``: no reader to enrol with)
ENROLL_READERS = (ReaderModel.hf, ReaderModel.ref, ReaderModel.a0, ReaderModel.iso15693)
MULTI_ANTENNA = (ReaderModel.a0, ReaderModel.iso15693)


def kind_text(kind: KindLabel) -> str:
    """``5m 五万`` — the label the registry stores, with its Chinese name."""
    try:
        return f"{kind} {zh_name(parse_kind(str(kind)))}"
    except (TileNotationError, IndexError):
        return str(kind)


def slot_text(slot: Slot | None, copies: int) -> str:
    if slot is None:
        return "done"
    return f"{kind_text(slot.kind)} · copy {slot.copy + 1}/{copies}"


class EnrollSession:
    """The enrolment plus its file and display; both input paths feed it UIDs."""

    def __init__(self, enrollment: Enrollment, path: Path, console: Console) -> None:
        self.enrollment = enrollment
        self.path = path
        self.console = console
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=console,
        )
        total = enrollment.progress().total
        self.task: TaskID = self.progress.add_task("", total=total)
        self._warned: dict[bytes, float] = {}
        self.refresh()

    def say(self, text: str) -> None:
        self.progress.console.print(text, soft_wrap=True)

    def refresh(self) -> None:
        e = self.enrollment
        self.progress.update(
            self.task,
            completed=e.progress().done,
            description=f"present {slot_text(e.expected(), e.copies)}",
        )

    def save(self) -> None:
        self.enrollment.save(self.path)

    def offer(self, uid: bytes, now: float) -> None:
        e = self.enrollment
        result = e.offer(uid)
        if isinstance(result, Accepted):
            self.save()
            self.say(f"[green]✓[/] {slot_text(result.slot, e.copies)}  [dim]{uid_hex(uid)}[/]")
        elif result.reason is RejectReason.ALREADY_ENROLLED and result.owner == e.last:
            pass  # the tile just enrolled, read again while it still lies on the reader
        else:
            last = self._warned.get(uid)
            if last is None or now - last >= REPEAT_WARNING_INTERVAL:
                self._warned[uid] = now
                self.say(f"[yellow]✗ {result.message}[/]")
        self.refresh()

    def undo(self) -> bytes | None:
        e = self.enrollment
        last = e.last
        uid = e.to_registry().uid_of(last.kind, last.copy) if last is not None else None
        slot = e.undo()
        if slot is None:
            self.say("[yellow]nothing to undo[/]")
        else:
            self.save()
            self.say(f"[cyan]↶ undone:[/] {slot_text(slot, e.copies)}")
        self.refresh()
        return uid

    def finish(self) -> None:
        e = self.enrollment
        done = e.progress()
        if e.is_complete:
            problems = e.to_registry().validate()
            self.say(f"[bold green]enrolment complete:[/] {done.total} tiles in {self.path}")
            for p in problems:
                self.say(f"[red]problem:[/] {p.message}")
        else:
            self.say(
                f"saved {done.done}/{done.total} tiles in {self.path}; "
                f"next: {slot_text(e.expected(), e.copies)}. Rerun to resume."
            )


def _read_lines(stream: TextIO, sink: queue.Queue[str]) -> None:
    for line in stream:
        sink.put(line.strip())


def _run_from_file(session: EnrollSession, path: Path) -> None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        session.say(f"[red]cannot read {path}: {err.strerror}[/]")
        raise typer.Exit(2) from None
    for number, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.lower() == "u":
            session.undo()
            continue
        try:
            uid = parse_uid(line)
        except ValueError as err:
            session.say(f"[yellow]{path}:{number}: {err}[/]")
            continue
        session.offer(uid, float(number))
        if session.enrollment.is_complete:
            break


def _run_reader(
    session: EnrollSession,
    url: str,
    codec_choice: ReaderModel,
    baud: int,
    idle_exit: float | None,
    antenna: int = 1,
    address: int = 1,
) -> None:
    import serial  # type: ignore[import-untyped]

    try:
        port = serial.serial_for_url(url, baudrate=baud, timeout=0.05)
    except (serial.SerialException, ValueError) as err:
        session.say(f"[red]cannot open reader {url}: {err}[/]")
        raise typer.Exit(2) from None

    codec: ReaderCodec = HfCodec() if codec_choice is ReaderModel.hf else RefCodec()
    # A multi-antenna reader: one antenna is the enrolment pad, asked round after round.
    multi = (
        session_for(codec_choice.value, f"{codec_choice} reader on {url}", address, {antenna: 0})
        if codec_choice in MULTI_ANTENNA
        else None
    )
    presence = PresenceTracker(0)  # HF: which tags still lie on the antenna
    inventory: frozenset[bytes] = frozenset()  # ref: the last inventory
    blocked: set[bytes] = set()  # undone tiles, ignored until lifted off the reader
    commands: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_read_lines, args=(sys.stdin, commands), daemon=True).start()
    session.say("present the tiles; [bold]u[/] + Enter undoes, Ctrl-C saves and stops")
    last_activity = time.monotonic()
    try:
        if codec_choice is ReaderModel.hf:
            port.write(encode_rf_on())
        if multi is not None:
            port.write(multi.start(time.monotonic()))
        while not session.enrollment.is_complete:
            data = port.read(256)
            now = time.monotonic()
            if multi is not None:
                write, results = multi.feed(data, now) if data else multi.poll(now)
                if write:
                    port.write(write)
                events: list[object] = []
                for result in results:
                    if isinstance(result, ReaderAlert):
                        session.say(f"[yellow]{result.message}[/]")
                    else:
                        events.append(result)
            else:
                events = list(codec.feed(data, now) if data else codec.poll(now))
            for event in events:
                offered: list[bytes] = []
                if isinstance(event, TagRead):
                    presence.observe(event)
                    offered = [event.uid]
                elif isinstance(event, Inventory):
                    offered = sorted(event.uids - inventory)
                    inventory = event.uids
                    if len(offered) > 1:
                        session.say("[yellow]several new tags at once: one tile at a time[/]")
                        offered = []
                for uid in offered:
                    if uid not in blocked:
                        last_activity = now
                        session.offer(uid, now)
            on_reader = presence.present(now) if codec_choice is ReaderModel.hf else inventory
            blocked &= on_reader
            while not commands.empty():
                if commands.get().lower() == "u":
                    last_activity = now
                    undone = session.undo()
                    if undone is not None and undone in on_reader:
                        blocked.add(undone)
            if idle_exit is not None and now - last_activity >= idle_exit:
                break
    finally:
        if codec_choice is ReaderModel.hf:
            with contextlib.suppress(serial.SerialException, OSError):
                port.write(encode_rf_off())
        port.close()


@cli.command()
def enroll(
    registry: Annotated[
        Path, typer.Option("--registry", help="Registry file to create, or to resume.")
    ],
    device: Annotated[
        str | None,
        typer.Option(
            "--device", help="The reader: a serial device or pyserial URL (/dev/ttyUSB0)."
        ),
    ] = None,
    readers: Readers = ReaderModel.hf,
    antenna: Annotated[
        int, typer.Option("--antenna", min=1, max=8, help="a0/iso15693: the pad's antenna port.")
    ] = 1,
    address: Address = 1,
    baud: Baud = 115200,
    from_file: Annotated[
        Path | None,
        typer.Option("--from-file", help="Read UIDs from a file (one hex UID a line; u undoes)."),
    ] = None,
    idle_exit: Annotated[
        float | None,
        typer.Option("--idle-exit", help="Save and stop after this many seconds without a tag."),
    ] = None,
) -> None:
    """Enrol the 136 tiles' tags, kind by kind; rerunning resumes where it stopped."""
    if (device is None) == (from_file is None):
        typer.echo("error: give exactly one of --device or --from-file", err=True)
        raise typer.Exit(2)
    codec = usable(readers, ENROLL_READERS, "enroll")
    try:
        enrollment = Enrollment.resume(registry, KIND_LABELS)
    except RegistryFileError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    console = Console(highlight=False)
    for problem in enrollment.skipped:
        console.print(f"[yellow]{problem.message}[/]")
    session = EnrollSession(enrollment, registry, console)
    done = enrollment.progress().done
    if done:
        console.print(f"resuming: {done}/{enrollment.progress().total} tiles already enrolled")
    try:
        with session.progress:
            if from_file is not None:
                _run_from_file(session, from_file)
            elif device is not None:
                _run_reader(session, device, codec, baud, idle_exit, antenna, address)
    except KeyboardInterrupt:
        session.save()
        session.finish()
        raise typer.Exit(130) from None
    session.save()
    session.finish()
