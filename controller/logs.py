"""Logging: structlog for our code, the standard library's loggers (aiomqtt, alembic,
SQLAlchemy, amqtt) routed through the same renderer, one line per record.

``json`` writes one JSON object a line (journald, log shippers); ``console`` is for a
terminal. Context bound with ``bind_table`` / ``bound_hand`` (contextvars) appears on every
line logged in that task, e.g. ``hand_id``.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import structlog
from structlog.typing import Processor

LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}
# Chatty libraries: their INFO lines (every connection, every packet) are noise for an owner.
QUIET = ("amqtt", "transitions", "alembic.runtime.migration", "sqlalchemy.engine")


def configure_logging(
    level: str = "info", fmt: str = "console", stream: TextIO | None = None
) -> None:
    """Set up structlog and the root logger; safe to call again (tests, reload)."""
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    renderer: Processor
    if fmt == "json":
        shared.append(structlog.processors.format_exc_info)
        renderer = structlog.processors.JSONRenderer(ensure_ascii=False)
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=False)
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
    )
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    numeric = LEVELS.get(level.lower())
    if numeric is None:
        raise ValueError(f"log level: one of {', '.join(LEVELS)}, got {level!r}")
    root.setLevel(numeric)
    for name in QUIET:
        logging.getLogger(name).setLevel(max(numeric, logging.WARNING))


def bind_table(parlour: str, table: str) -> None:
    """Every later line of this context (and tasks created from it) names the table."""
    structlog.contextvars.bind_contextvars(parlour=parlour, table=table)


@contextmanager
def bound_hand(hand_id: str, **extra: Any) -> Iterator[None]:
    """Lines logged inside carry ``hand_id`` (and ``extra``)."""
    with structlog.contextvars.bound_contextvars(hand_id=hand_id, **extra):
        yield
