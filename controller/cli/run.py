"""``mjtable run --config table.toml``: the table service.

It connects to the table board and the readers (serial URLs from the settings), GPIO,
the MQTT broker and the store, serves the web app when it is installed, and keeps hands
until stopped (SIGTERM from systemd, or Ctrl-C). With ``hardware.virtual = true`` the
virtual table and four bots play instead of people (see ``mjtable demo``).

Its options are parsed here with argparse, not typer: ``mjtable run`` is what a table's
Pi runs for weeks, and typer with its click is 1.4 MB resident there that nothing else in
the service uses (``controller.cli.main`` comes straight here; ``mjtable --help`` still
lists the command, through ``controller.cli.run_command``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any

from controller.cli.json_input import dumps_line
from controller.config import ConfigError, load_config
from controller.process.data_lock import DataDirLocked
from controller.process.listen import ListenError
from controller.process.logs import bind_table, configure_logging
from controller.runtime import RunOptions, serve

SUMMARY = "Run the table service: table board, readers, GPIO, store, MQTT and the web app."


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not >= 1")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mjtable run", description=SUMMARY)
    p.add_argument("--config", type=Path, help="Settings (TOML); MJTABLE_* overrides.")
    p.add_argument(  # (controller.cli.options.SEED_HELP: typer is not loaded here)
        "--seed",
        type=int,
        help="The same seed plays the same shuffles and dice (and a virtual table's tags); "
        "default: a random one.",
    )
    p.add_argument(
        "--hands", type=_at_least_one, help="Stop after this many hands (default: never)."
    )
    p.add_argument("--log-level", help="debug, info, warning or error. (Over [log] level.)")
    p.add_argument("--log-format", help="console or json. (Over [log] format.)")
    p.add_argument(
        "--json",
        dest="as_json",
        action="store_true",
        help="Say where to look as one JSON line on stdout.",
    )
    return p


def _ready(as_json: bool, log_format: str) -> Any:
    def say(info: dict[str, Any]) -> None:
        if as_json:
            print(dumps_line(info), flush=True)
        elif log_format == "json":  # under systemd: every line of the unit is JSON
            import structlog  # (configured by controller.process.logs, imported above)

            structlog.get_logger(__name__).info("serving", **info)
        else:
            for key, value in info.items():
                if value is not None:
                    print(f"{key}: {value}", flush=True)

    return say


def main(argv: Sequence[str] | None = None) -> int:
    """Run the service; the exit status (2: bad options or settings)."""
    args = parser().parse_args(argv)  # exits 2 with the usage on a bad option
    try:
        log = {"level": args.log_level, "format": args.log_format}
        settings = load_config(args.config, {"log": {k: v for k, v in log.items() if v}})
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    configure_logging(settings.log.level, settings.log.format)
    bind_table(settings.parlour, settings.table)
    opts = RunOptions(
        seed=args.seed, hands=args.hands, ready=_ready(args.as_json, settings.log.format)
    )
    return serve_until_done(serve(settings, opts))


def serve_until_done(service: Coroutine[Any, Any, int]) -> int:
    """Run ``service`` (``mjtable run``'s, the demo's); a start the machine refuses ends
    in one clean line and exit status 1, never a traceback."""
    try:
        return asyncio.run(service)
    except DataDirLocked as err:  # a second service: say who holds it, and never retry
        print(f"error: {err}", file=sys.stderr)
        return 1
    except ListenError as err:  # a port another process holds: systemd sees the failure
        import structlog  # (configured by controller.process.logs, imported above)

        structlog.get_logger(__name__).error("cannot serve", why=str(err))
        return 1


if __name__ == "__main__":  # `python -m controller.cli.run`: the service without the other commands
    sys.exit(main())
