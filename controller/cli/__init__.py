"""The ``mjtable`` command line (``controller.cli.group``: a group that imports a command's
module only to run it).

``mjtable run``, the table service, goes straight to its own parser
(``controller.cli.run``): the service never loads the command line's framework.
"""

from __future__ import annotations

import sys
from typing import Any


def main() -> None:
    if sys.argv[1:2] == ["run"]:
        from controller.cli.run import main as run_service

        sys.exit(run_service(sys.argv[2:]))
    from controller.cli.group import app

    app()


def __getattr__(name: str) -> Any:
    """``from controller.cli import app``: the group, imported on first use."""
    if name == "app":
        from controller.cli.group import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
