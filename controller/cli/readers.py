"""``mjtable readers probe``: find a multi-antenna reader on a serial device, say what it
is (firmware, antennas, output power) and show live reads per antenna, for the person
wiring a table.

Sans-IO underneath: the same session the service uses (firmware_bridge/rfid/sessions.py),
driven here by a plain pyserial loop.
"""

from __future__ import annotations

import time
from typing import Annotated

import typer

from controller.cli.options import Address, Baud, Device, ReaderModel, Readers, usable
from firmware_bridge.rfid.events import Inventory, ReaderAlert
from firmware_bridge.rfid.sessions import PolledSession, session_for

cli = typer.Typer(add_completion=False)


@cli.callback()
def readers() -> None:
    """RFID readers: find one and watch it read (more subcommands may follow)."""


# the readers a probe talks to: the multi-antenna ones (they say what they are)
PROBE_READERS = (ReaderModel.a0, ReaderModel.iso15693)


def _line(session: PolledSession, tags: dict[int, set[bytes]], rssi: dict[int, float]) -> str:
    parts = []
    for port in session.ports:
        seen = tags.get(port, set())
        best = f" best {rssi[port]:.0f} dBm" if port in rssi else ""
        gone = " MISSING" if port in session.info.missing else ""
        parts.append(f"ant {port}: {len(seen)} tag(s){best}{gone}")
    return " | ".join(parts)


@cli.command()
def probe(
    device: Device,
    readers: Readers,
    address: Address = 1,
    antennas: Annotated[int, typer.Option(min=1, max=8, help="How many antenna ports to ask.")] = 4,
    baud: Baud = 115200,
    seconds: Annotated[float, typer.Option(help="How long to show live reads.")] = 10.0,
) -> None:
    """Say what reader answers on the device and show its live reads per antenna."""
    codec = usable(readers, PROBE_READERS, "readers probe")
    import serial  # type: ignore[import-untyped]

    try:
        line = serial.serial_for_url(device, baudrate=baud, timeout=0.05)
    except (serial.SerialException, ValueError) as err:
        typer.echo(f"error: cannot open {device}: {err}", err=True)
        raise typer.Exit(2) from None
    name = f"{codec.value} reader {address} on {device}"
    session = session_for(codec.value, name, address, {p: p for p in range(1, antennas + 1)})
    tags: dict[int, set[bytes]] = {}
    rssi: dict[int, float] = {}
    began = time.monotonic()
    said_who = False
    last_line = 0.0
    rounds = 0
    try:
        line.write(session.start(began))
        while (now := time.monotonic()) - began < seconds:
            data = line.read(512)
            write, results = session.feed(data, now) if data else session.poll(now)
            if write:
                line.write(write)
            for result in results:
                if isinstance(result, ReaderAlert):
                    typer.echo(f"! {result.message}")
                elif isinstance(result, Inventory):
                    tags[result.reader_id] = set(result.uids)
            rounds = session.resolver.rounds
            info = session.info
            if not said_who and info.firmware is not None and rounds:
                said_who = True
                power = ", ".join(f"{p} dBm" for p in info.power_dbm) or "set in its configuration"
                typer.echo(f"found: {name}, firmware {info.firmware}")
                typer.echo(f"antennas: {', '.join(str(p) for p in session.ports)}; power: {power}")
            for sighting_port, best in session.last_rssi().items():
                rssi[sighting_port] = best
            if said_who and now - last_line >= 0.5:
                last_line = now
                typer.echo(_line(session, tags, rssi))
    finally:
        line.close()
    if not said_who:
        typer.echo(
            f"error: no {codec.value} reader answered on {device} (address {address})", err=True
        )
        raise typer.Exit(1)
    typer.echo(f"{rounds} rounds in {seconds:g} s; reads per antenna: {dict(session.info.reads)}")
