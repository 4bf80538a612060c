"""The ``mjtable`` command group: it imports a command's module only to run it.

The commands are listed in :mod:`controller.cli.commands`; each module defines ``cli``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping

import typer
from typer._click import Command  # typer vendors click: its groups hold these
from typer.core import TyperGroup

from controller.cli.commands import COMMANDS


class _LazyCommands(MutableMapping[str, Command]):
    """Command name -> command, each module imported on first lookup."""

    def __init__(self, modules: dict[str, str]) -> None:
        self._modules = dict(modules)
        self._loaded: dict[str, Command] = {}

    def __getitem__(self, name: str) -> Command:
        if name not in self._loaded:
            module = importlib.import_module(self._modules[name])  # KeyError: no such command
            command = typer.main.get_command(module.cli)
            command.name = name  # a group's typer has none; the listed name is the one typed
            self._loaded[name] = command
        return self._loaded[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self._modules.setdefault(name, "")
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self._modules[name]
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


class LazyGroup(TyperGroup):
    def __init__(self, **attrs: object) -> None:
        super().__init__(**attrs)  # type: ignore[arg-type]
        lazy = _LazyCommands(COMMANDS)
        for name, command in self.commands.items():
            lazy[name] = command
        self.commands = lazy


app = typer.Typer(
    name="mjtable",
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Automatic mahjong table controller: rules engine, table bridge and service."""
