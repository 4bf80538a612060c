"""``mjtable staff add|list|remove``: staff accounts, who act on the live hand of their
tables (docs/staff.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from controller.cli.owner import ConfigOpt, StdinOpt, StoreOpt, _fail, _store, add_account
from controller.config import ConfigError, load_config
from controller.store.owners import OwnerAccounts, UnknownOwner

cli = typer.Typer(
    help="Staff accounts (act on the live hand of their tables).", add_completion=False
)

TableOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--table",
        help="A table the account acts on (repeat for several); default: the settings' table.",
    ),
]


def _tables(tables: list[str] | None, config: Path | None, store: str | None) -> tuple[str, ...]:
    if tables:
        return tuple(tables)
    if store is not None and config is None:
        raise _fail("say which table(s) with --table (a --store URL names none)")
    try:
        return (load_config(config).table,)
    except ConfigError as err:
        raise _fail(str(err)) from None


@cli.command("add")
def add(
    name: Annotated[str, typer.Argument(help="The login name.")],
    password_stdin: StdinOpt = False,
    table: TableOpt = None,
    config: ConfigOpt = None,
    store: StoreOpt = None,
) -> None:
    """Create a staff account; prompts for the password (twice) unless --password-stdin."""
    tables = add_account(
        name,
        password_stdin,
        config,
        store,
        hint=f"remove it first: 'mjtable staff remove {name}'",
        role="staff",
        tables=lambda: _tables(table, config, store),
    )
    typer.echo(f"staff {name} added (tables: {', '.join(sorted(set(tables)))})")


@cli.command("list")
def list_staff(config: ConfigOpt = None, store: StoreOpt = None) -> None:
    """The staff's names, their tables and when each was added."""
    events = _store(config, store)
    try:
        for s in OwnerAccounts(events).list("staff"):
            added = s.created_at.isoformat(timespec="seconds")
            typer.echo(f"{s.name}\t{','.join(s.tables)}\t{added}")
    finally:
        events.close()


@cli.command("remove")
def remove(
    name: Annotated[str, typer.Argument(help="The login name.")],
    config: ConfigOpt = None,
    store: StoreOpt = None,
) -> None:
    """Remove a staff account: its logins end at once."""
    events = _store(config, store)
    try:
        OwnerAccounts(events).remove(name, "staff")
    except UnknownOwner:
        raise _fail(f"no staff {name!r}") from None
    finally:
        events.close()
    typer.echo(f"staff {name} removed")
