"""What each part of the service holds once imported: run on the service's interpreter
(``bench/latency.py --memory`` runs it on the runtime venv's), it imports what ``mjtable
run`` imports and prints, per package, the Python memory its modules allocated while they
ran (tracemalloc, exclusive of the modules they imported in turn), then the resident set
after each of the service's parts is imported, in the order given (each part's RSS is what
it added to the ones before: shared libraries, the interpreter's arenas, code objects),
then what building every web route adds (a route is built at its first request: an
owner's pages, a phone's, the OpenAPI document).

    .venv-runtime/bin/python bench/import_memory.py            # the resident set, by part
    .venv-runtime/bin/python bench/import_memory.py --objects  # Python objects, by package
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import tracemalloc
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parent.parent
TOP = 20  # packages listed
# The service's parts, in the order a table imports them (each counts what it adds).
PARTS = (
    ("logs (structlog)", "controller.process.logs"),
    ("SQLAlchemy", "sqlalchemy"),
    ("the store", "controller.store"),
    ("pydantic, settings", "controller.config"),
    ("aiomqtt, paho", "aiomqtt"),
    ("MQTT publisher", "controller.mqtt.publisher"),
    ("metrics (prometheus_client)", "controller.process.metrics"),
    ("engine", "engine.round"),
    ("bridge (readers, boards)", "firmware_bridge"),
    ("table service", "controller.table.service"),
    ("voice", "controller.voice"),
    ("web app (FastAPI, uvicorn)", "controller.web.app"),
    ("mjtable run", "controller.cli.run"),
    ("runtime (serve)", "controller.runtime"),
    # what serving the web app imports when it starts (click and multiprocessing with it)
    ("uvicorn", "uvicorn"),
    ("uvicorn's HTTP/1.1 (h11)", "uvicorn.protocols.http.h11_impl"),
)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def package_of(name: str) -> str:
    """Our packages by their first two levels (controller.web), others by their top."""
    parts = name.split(".")
    ours = parts[0] in ("controller", "engine", "firmware_bridge")
    return ".".join(parts[:2]) if ours else parts[0]


class _Timed(importlib.abc.Loader):
    """Wraps a loader: the memory allocated while its module ran, less nested imports."""

    held: ClassVar[Counter[str]] = Counter()
    _stack: ClassVar[list[int]] = []

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: ModuleType) -> None:
        before = tracemalloc.get_traced_memory()[0]
        self._stack.append(0)
        try:
            self.loader.exec_module(module)
        finally:
            nested = self._stack.pop()
            own = tracemalloc.get_traced_memory()[0] - before
            _Timed.held[package_of(module.__name__)] += own - nested
            if self._stack:
                self._stack[-1] += own

    def __getattr__(self, name: str) -> Any:
        return getattr(self.loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Timed(spec.loader)  # type: ignore[assignment]
                return spec
        return None


def build_routes() -> int:
    """Builds every web route as a first request (or the OpenAPI document) would: they are
    built on use (``controller.web.routes``), so the parts above hold none."""
    from fastapi import APIRouter

    built = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("controller.web."):
            continue
        for router in vars(module).values():
            if isinstance(router, APIRouter):
                for route in router.routes:
                    built += getattr(route, "dependant", None) is not None
    return built


def resident() -> None:
    """Each part's import, and what the resident set grew by."""
    start = last = rss_mb()
    print(f"memory: the interpreter alone {start:.1f} MB resident")
    for label, module in PARTS:
        importlib.import_module(module)
        now = rss_mb()
        print(f"memory: + {label:28s} {now - last:5.1f} MB  = {now:5.1f} MB  ({module})")
        last = now
    label = f"every web route built ({build_routes()})"
    now = rss_mb()
    print(f"memory: + {label:28s} {now - last:5.1f} MB  = {now:5.1f} MB  (on use: not at a start)")


def objects() -> None:
    """The Python memory each package's modules allocated as they ran (tracemalloc's own
    bookkeeping inflates the resident set: a run of its own)."""
    tracemalloc.start()
    sys.meta_path.insert(0, _Finder())
    for _, module in PARTS:
        importlib.import_module(module)
    held = _Timed.held
    total = sum(held.values()) / 2**20
    print(f"memory: Python objects made by the imports {total:.1f} MB, the largest by package:")
    for package, size in held.most_common(TOP):
        print(f"memory:   {size / 2**20:5.2f} MB  {package}")


def main() -> None:
    sys.path.insert(0, str(ROOT))
    objects() if sys.argv[1:] == ["--objects"] else resident()


if __name__ == "__main__":
    main()
