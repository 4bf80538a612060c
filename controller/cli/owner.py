"""``mjtable owner add|passwd|list``: owner accounts for the web app's hand logs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from controller.config import ConfigError, load_config
from controller.store import EventStore, StoreInputError
from controller.store.owners import OwnerAccounts, OwnerExists, Role, UnknownOwner, check_name
from controller.web.passwords import WeakPassword, check_password, hash_password

cli = typer.Typer(help="Owner accounts (login to the web app's hand logs).", add_completion=False)

ConfigOpt = Annotated[
    Path | None, typer.Option("--config", help="The table's settings (TOML); gives the store.")
]
StoreOpt = Annotated[
    str | None, typer.Option("--store", help="A database URL, instead of the settings' store.")
]
StdinOpt = Annotated[
    bool, typer.Option("--password-stdin", help="Read the password from the first line of stdin.")
]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _store(config: Path | None, store: str | None) -> EventStore:
    try:
        url = store or load_config(config).store_url
        return EventStore.open(url)
    except ConfigError as err:
        raise _fail(str(err)) from None
    except Exception as err:  # a bad URL or an unreachable database: say so, no traceback
        raise _fail(f"cannot open the store: {err}") from None


def _password(from_stdin: bool) -> str:
    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        return check_password(password)
    except WeakPassword as err:
        raise _fail(str(err)) from None


@cli.command("add")
def add(
    name: Annotated[str, typer.Argument(help="The login name.")],
    password_stdin: StdinOpt = False,
    config: ConfigOpt = None,
    store: StoreOpt = None,
) -> None:
    """Create an owner; prompts for the password (twice) unless --password-stdin."""
    add_account(name, password_stdin, config, store, hint=f"use 'mjtable owner passwd {name}'")
    typer.echo(f"owner {name} added")


def add_account(
    name: str,
    password_stdin: bool,
    config: Path | None,
    store: str | None,
    *,
    hint: str,
    role: Role = "owner",
    tables: Callable[[], tuple[str, ...]] = tuple,
) -> tuple[str, ...]:
    """Check the name (and the tables), ask for the password, store the hash; returns the
    account's tables."""
    try:
        check_name(name)
    except StoreInputError as err:
        raise _fail(str(err)) from None
    where = tables()
    password = _password(password_stdin)
    events = _store(config, store)
    try:
        OwnerAccounts(events).add(name, hash_password(password), role, where)
    except OwnerExists as err:
        raise _fail(f"{err} ({hint})") from None
    except StoreInputError as err:
        raise _fail(str(err)) from None
    finally:
        events.close()
    return where


@cli.command("passwd")
def passwd(
    name: Annotated[str, typer.Argument(help="The login name.")],
    password_stdin: StdinOpt = False,
    config: ConfigOpt = None,
    store: StoreOpt = None,
) -> None:
    """Set an owner's password (ends that owner's logins on every device)."""
    password = _password(password_stdin)
    events = _store(config, store)
    try:
        OwnerAccounts(events).set_password(name, hash_password(password))
    except UnknownOwner:
        raise _fail(f"no owner {name!r}") from None
    finally:
        events.close()
    typer.echo(f"password of {name} changed")


@cli.command("list")
def list_owners(config: ConfigOpt = None, store: StoreOpt = None) -> None:
    """The owners' names and when each was added."""
    events = _store(config, store)
    try:
        for o in OwnerAccounts(events).list():
            typer.echo(f"{o.name}\t{o.created_at.isoformat(timespec='seconds')}")
    finally:
        events.close()
