"""Logging: structlog for our code, the standard library's loggers (aiomqtt, alembic,
SQLAlchemy, amqtt) routed through the same renderer, one line per record.

``json`` writes one JSON object a line (journald, log shippers); ``console`` is for a
terminal. Context bound with ``bind_table`` / ``bound_hand`` (contextvars) appears on every
line logged in that task, e.g. ``hand_id``.

Lines are rendered and written by a thread of their own (a queue between): a long traceback
never stalls the event loop the table and the web app share. Tracebacks are plain, without
local variables (rendering every frame's locals took seconds a request). A message the
standard library repeats in a storm (asyncio's "accept() out of system resource" once per
second and socket) is let through once per ``REPEAT_WINDOW`` seconds, with a count.
"""

from __future__ import annotations

import atexit
import logging
import logging.handlers
import queue
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO


def _structlog_without_rich() -> None:
    """Import structlog with rich hidden from it.

    structlog's dev module imports rich (console and tracebacks, pygments with them: ~4 MB
    resident) whenever it is installed, for its pretty exception formatter; our renderers
    print plain tracebacks, so on a Pi that is memory never used. A ``None`` in
    ``sys.modules`` makes that one ``import rich`` fail; rich stays importable for typer's
    help and errors afterwards. This module is the service's first to import structlog
    (``controller.cli.run`` imports it before the rest; test_service_imports checks);
    nothing to do when structlog or rich is in already.
    """
    if "structlog" in sys.modules or "rich" in sys.modules:
        return
    sys.modules["rich"] = None  # type: ignore[assignment]
    try:
        import structlog  # noqa: F401
    finally:
        del sys.modules["rich"]


_structlog_without_rich()

import structlog  # noqa: E402
from structlog.typing import Processor  # noqa: E402

LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}
# Chatty libraries: their INFO lines (every connection, every packet) are noise for an owner.
QUIET = ("amqtt", "transitions", "alembic.runtime.migration", "sqlalchemy.engine")
UVICORN = ("uvicorn", "uvicorn.error", "uvicorn.access")
STORMY = ("asyncio", "uvicorn.error")  # loggers whose repeats are rate-limited
REPEAT_WINDOW = 60.0
QUEUE_SIZE = 10_000  # lines waiting for the writer; beyond, new ones are dropped (counted)


class _Repeats(logging.Filter):
    """The same message from a STORMY logger at most once per window, then a count."""

    def __init__(self, window: float = REPEAT_WINDOW) -> None:
        super().__init__()
        self.window = window
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith(STORMY):
            return True
        key = (record.name, str(record.msg)[:200])
        now = time.monotonic()
        with self._lock:
            last, suppressed = self._seen.get(key, (-self.window, 0))
            if now - last < self.window:
                self._seen[key] = (last, suppressed + 1)
                return False
            if len(self._seen) > 1000:
                self._seen.clear()
            self._seen[key] = (now, 0)
        if suppressed:
            record.msg = f"{record.msg} ({suppressed} more like this in {self.window:.0f} s)"
        return True


class _Deferred(logging.handlers.QueueHandler):
    """Passes the record itself to the writer thread, which renders it (the standard
    QueueHandler renders it here, on the caller's thread). A full queue drops the line."""

    dropped = 0

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        return record

    def enqueue(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            _Deferred.dropped += 1


_listener: logging.handlers.QueueListener | None = None


def _stop_writer() -> None:
    """Write what is queued and end the writer thread."""
    global _listener
    if _listener is not None:
        _listener.stop()
        _listener = None


atexit.register(_stop_writer)


def _capture_exc_info(_logger: Any, _name: str, event_dict: Any) -> Any:
    """``exc_info=True`` means "the exception being handled": take it now, on the caller's
    thread, since the writer thread renders it later."""
    if event_dict.get("exc_info") is True:
        event_dict["exc_info"] = sys.exc_info()
    return event_dict


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
    rendering: list[Processor] = [structlog.stdlib.ProcessorFormatter.remove_processors_meta]
    if fmt == "json":
        rendering.append(structlog.processors.format_exc_info)  # plain, in the writer
        renderer = structlog.processors.JSONRenderer(ensure_ascii=False)
    else:
        renderer = structlog.dev.ConsoleRenderer(
            colors=False, exception_formatter=structlog.dev.plain_traceback
        )
    structlog.configure(
        processors=[
            *shared,
            _capture_exc_info,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[*rendering, renderer],
    )
    global _listener
    _stop_writer()
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(formatter)
    deferred = _Deferred(queue.Queue(QUEUE_SIZE))
    deferred.addFilter(_Repeats())
    _listener = logging.handlers.QueueListener(deferred.queue, handler)
    _listener.start()
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(deferred)
    numeric = LEVELS.get(level.lower())
    if numeric is None:
        raise ValueError(f"log level: one of {', '.join(LEVELS)}, got {level!r}")
    root.setLevel(numeric)
    for name in QUIET:
        logging.getLogger(name).setLevel(max(numeric, logging.WARNING))
    # A uvicorn started with its own log config (any in the same process) gives its loggers
    # handlers of their own and stops them propagating: their lines would skip the writer.
    for name in UVICORN:
        named = logging.getLogger(name)
        for old in list(named.handlers):
            named.removeHandler(old)
        named.propagate = True
    # Python's warnings and a crash's traceback as log lines too: under systemd every line
    # the unit writes is one JSON object (`journalctl ... | jq`).
    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught


def _log_uncaught(kind: type[BaseException], value: BaseException, tb: Any) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, value, tb)
        return
    logging.getLogger("controller").critical("uncaught exception", exc_info=(kind, value, tb))
    _stop_writer()  # written before the process ends


def bind_table(parlour: str, table: str) -> None:
    """Every later line of this context (and tasks created from it) names the table."""
    structlog.contextvars.bind_contextvars(parlour=parlour, table=table)


@contextmanager
def bound_hand(hand_id: str, **extra: Any) -> Iterator[None]:
    """Lines logged inside carry ``hand_id`` (and ``extra``)."""
    with structlog.contextvars.bound_contextvars(hand_id=hand_id, **extra):
        yield
