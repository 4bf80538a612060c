"""``mjtable sim-table``: run the virtual table on its own and say where to connect.

It shuffles, raises the walls and reports over ptys (or localhost TCP) like the hardware:
the table board and the RFID readers. The tag registry and zone map it writes are the ones
the controller loads. No one moves the tiles yet (bot players come with ``--bots``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

from controller.cli.options import (
    AsJson,
    LogFormat,
    LogLevel,
    ReaderModel,
    Readers,
    Seed,
    codec_name,
    usable,
)
from controller.config import LogSettings
from controller.process.logs import configure_logging
from controller.process.stop_signals import stop_on_signals
from engine.tiles import KIND_LABELS
from firmware_bridge.rfid.zones import ZoneMap
from firmware_bridge.sim import IdleDriver, SimSettings, VirtualTable

cli = typer.Typer(add_completion=False)

# the reader models the virtual table plays (docs/rfid.md)
SIM_READERS = (ReaderModel.ref, ReaderModel.hf, ReaderModel.a0, ReaderModel.iso15693)


class ReportChoice(StrEnum):
    scan = "scan"
    change = "change"


def describe(table: VirtualTable, zones_path: Path) -> dict[str, object]:
    """Where everything is, as printed (and as --json prints it)."""
    zones = table.config.zones
    return {
        "board": table.board_url,
        "readers": [
            {
                "url": reader.port.url,
                "codec": reader.codec,
                "zones": {str(r): str(zones[r]) for r in reader.reader_ids},
                **(
                    {"address": reader.address, "antennas": list(reader.reader_ids)}
                    if reader.multi is not None
                    else {}
                ),
            }
            for reader in table.readers
        ],
        "registry": str(table.registry_path),
        "zones": str(zones_path),
        "seed": table.config.seed,
    }


def _print_human(info: dict[str, object]) -> None:
    typer.echo(f"board: {info['board']}")
    readers = info["readers"]
    assert isinstance(readers, list)
    for reader in readers:
        zones = ", ".join(f"{r}={z}" for r, z in reader["zones"].items())
        at = f" address {reader['address']}" if "address" in reader else ""
        typer.echo(f"reader ({reader['codec']}{at}): {reader['url']}  [{zones}]")
    typer.echo(f"registry: {info['registry']}")
    typer.echo(f"zones: {info['zones']}")
    typer.echo("the virtual table is running; Ctrl-C stops it")


async def _run(config: SimSettings, zones_path: Path, as_json: bool) -> None:
    async with VirtualTable(config, IdleDriver()) as table:
        info = describe(table, zones_path)
        if as_json:
            typer.echo(json.dumps(info))
        else:
            _print_human(info)
        stop = asyncio.Event()
        stop_on_signals(stop.set)  # then the ports close and the stable names go
        await stop.wait()


@cli.command(name="sim-table")
def sim_table(
    seed: Seed = None,
    readers: Readers = ReaderModel.ref,
    bus: Annotated[
        bool, typer.Option("--bus", help="ref: every reader on one serial line.")
    ] = False,
    report: Annotated[
        ReportChoice,
        typer.Option(
            help="ref: a frame every scan, or only changes and a sign of life each second "
            "(docs/rfid.md, 'Report modes')."
        ),
    ] = ReportChoice.scan,
    centre_pool: Annotated[
        bool, typer.Option("--centre-pool", help="One discard pool instead of one per seat.")
    ] = False,
    misread: Annotated[
        float, typer.Option(help="Chance that a tag is missing from one scan.")
    ] = 0.0,
    border: Annotated[
        float,
        typer.Option(
            help="a0/iso15693: chance per tag and round of a read by a neighbouring zone's antenna."
        ),
    ] = 0.0,
    drop: Annotated[
        float, typer.Option(help="Chance that a frame is lost or corrupted on the line.")
    ] = 0.0,
    lift_order: Annotated[
        bool, typer.Option(help="The board reports the wall's lift order.")
    ] = True,
    socket: Annotated[
        bool, typer.Option("--socket", help="socket://127.0.0.1:PORT instead of ptys.")
    ] = False,
    link_dir: Annotated[
        Path | None,
        typer.Option(help="Keep stable device names here (board, reader-N), as udev would."),
    ] = None,
    registry: Annotated[
        Path | None, typer.Option(help="Write the tag registry here (default: a temp dir).")
    ] = None,
    zones: Annotated[
        Path | None, typer.Option(help="Write the zone map here (default: a temp dir).")
    ] = None,
    as_json: AsJson = False,
    log_level: LogLevel = "warning",
    log_format: LogFormat = "console",
) -> None:
    """Run the virtual table (board and readers) until Ctrl-C; print where to connect
    (--json: as one JSON line)."""
    codec = usable(readers, SIM_READERS, "sim-table")
    try:
        settings = LogSettings.model_validate({"level": log_level, "format": log_format})
    except ValidationError as err:
        first = err.errors()[0]
        typer.echo(f"error: --log-{first['loc'][0]}: {first['msg']}", err=True)
        raise typer.Exit(2) from None
    configure_logging(settings.level, settings.format)
    if report is ReportChoice.change and codec is not ReaderModel.ref:
        typer.echo("error: --report change is for ref readers", err=True)
        raise typer.Exit(2)
    if not (0.0 <= misread <= 1.0 and 0.0 <= drop <= 1.0 and 0.0 <= border <= 1.0):
        typer.echo("error: --misread, --border and --drop are chances between 0 and 1", err=True)
        raise typer.Exit(2)
    if registry is None or zones is None:
        work = Path(tempfile.mkdtemp(prefix="mjtable-sim-"))
        registry = registry or work / "registry.json"
        zones = zones or work / "zones.json"
    if link_dir is not None:
        link_dir.mkdir(parents=True, exist_ok=True)
    zone_map = ZoneMap.standard(centre_pool=centre_pool)
    zone_map.save(zones)
    config = SimSettings(
        seed=secrets.randbelow(1 << 30) if seed is None else seed,
        kinds=KIND_LABELS,
        zones=zone_map,
        codec=codec_name(codec),
        bus=bus,
        report=report.value,
        misread_rate=misread,
        border_rate=border,
        drop_rate=drop,
        lift_reader=lift_order,
        transport="socket" if socket else "pty",
        link_dir=link_dir,
        registry_path=registry,
    )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(config, zones, as_json))
