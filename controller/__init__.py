"""The table service: where the bridge and the engine meet (time, storage, MQTT, web, CLI)."""

import sys


def _structlog_without_rich() -> None:
    """Import structlog with rich hidden from it.

    structlog's dev module imports rich (console and tracebacks, pygments with them: ~4 MB
    resident) whenever it is installed, for its pretty exception formatter; our renderers
    print plain tracebacks (``controller.logs``), so that would be memory a Pi never uses.
    A ``None`` in ``sys.modules`` makes ``import rich`` fail for that one import; rich
    stays importable for typer's help and errors afterwards. Nothing to do when something
    imported structlog or rich already.
    """
    if "structlog" in sys.modules or "rich" in sys.modules:
        return
    sys.modules["rich"] = None  # type: ignore[assignment]
    try:
        import structlog  # noqa: F401
    finally:
        del sys.modules["rich"]


_structlog_without_rich()
