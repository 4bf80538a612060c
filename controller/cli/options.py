"""The options several ``mjtable`` commands share, defined once: wherever a command has the
idea it takes it under the same name, with the same values, default and meaning.

- ``--port``: always the web app's port (a serial line is a ``--device``).
- ``--device``: a serial device or pyserial URL (a reader, for ``enroll`` and ``readers probe``),
  with ``--baud`` and a multi-antenna reader's ``--address``.
- ``--readers``: the reader model (``ref``, ``hf``, ``a0``, ``iso15693``, ``none``); each
  command refuses, naming the option, the models it cannot use.
- ``--seed``: the same seed plays the same shuffles and dice (and a virtual table's tags);
  without it, a random one.
- ``--lang``: Chinese (``zh``, the default) or English (``en``).
- ``--data-dir``, ``--json``, ``--log-level``, ``--log-format``.

``mjtable run`` parses its own options (argparse: the service never loads typer); it takes
``--seed``, ``--json``, ``--log-level`` and ``--log-format`` with these meanings, which a test
holds to these help texts.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, cast, get_args

import typer

from firmware_bridge.rfid.transport import CodecName

SEED_HELP = (
    "The same seed plays the same shuffles and dice (and a virtual table's tags); "
    "default: a random one."
)
LOG_LEVEL_HELP = "debug, info, warning or error."
LOG_FORMAT_HELP = "console or json."


class ReaderModel(StrEnum):
    """The readers of a table (the settings' ``[[hardware.readers]] codec``, or ``none``)."""

    ref = "ref"  # the project's reference inventory readers
    hf = "hf"  # single-tag HF readers
    a0 = "a0"  # UHF R2000/E710 readers, 8 antennas each
    iso15693 = "iso15693"  # FEIG-style HF readers with 8-antenna multiplexers
    none = "none"  # a table without readers: each hand's result entered by staff


READERS_HELP = (
    "The reader model: ref (reference inventory readers), hf (single-tag HF), a0 (UHF "
    "R2000/E710, 8 antennas), iso15693 (FEIG-style HF with antenna multiplexers) or none "
    "(a table without readers; docs/rfid.md)."
)


class Lang(StrEnum):
    zh = "zh"
    en = "en"


Port = Annotated[int, typer.Option("--port", help="The web app's port.")]
DEVICE_HELP = "A serial device or pyserial URL (/dev/ttyUSB0)."
Device = Annotated[str, typer.Option("--device", help=DEVICE_HELP)]
Baud = Annotated[int, typer.Option("--baud", help="The serial line's speed.")]
Address = Annotated[
    int, typer.Option("--address", min=0, max=255, help="A multi-antenna reader's bus address.")
]
Readers = Annotated[ReaderModel, typer.Option("--readers", help=READERS_HELP)]
Seed = Annotated[int | None, typer.Option("--seed", help=SEED_HELP)]
Language = Annotated[Lang, typer.Option("--lang", help="Chinese (zh) or English (en).")]
DataDir = Annotated[Path, typer.Option("--data-dir", help="Data directory (SQLite, tag registry).")]
AsJson = Annotated[bool, typer.Option("--json", help="Say it as one JSON line.")]
LogLevel = Annotated[str, typer.Option("--log-level", help=LOG_LEVEL_HELP)]
LogFormat = Annotated[str, typer.Option("--log-format", help=LOG_FORMAT_HELP)]


def codec_name(model: ReaderModel) -> CodecName:
    """The model as the readers' settings name it (``codec``); ``none`` has no readers."""
    for name in get_args(CodecName):
        if name == model.value:
            return cast(CodecName, name)
    raise ValueError(f"--readers {model.value}: no readers")


def usable(model: ReaderModel, models: Iterable[ReaderModel], what: str) -> ReaderModel:
    """``model`` if ``what`` (a command) can use it; else the refusal, naming the option and
    what it takes (exit status 2, as typer's own)."""
    allowed = list(models)
    if model not in allowed:
        names = ", ".join(m.value for m in allowed)
        typer.echo(f"error: --readers {model.value}: {what} takes {names}", err=True)
        raise typer.Exit(2)
    return model
