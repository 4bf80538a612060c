"""``mjtable member add|list|edit|remove``: the parlour's members (docs/players.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from controller.cli.owner import ConfigOpt, StoreOpt, _fail
from controller.config import ConfigError, load_config
from controller.store import EventStore
from controller.store.members import (
    MemberInputError,
    Members,
    UnknownMember,
    check_card,
)
from firmware_bridge.registry import RegistryFileError, TagRegistry, Unknown

cli = typer.Typer(help="Members of the parlour (names, member cards).", add_completion=False)

CardOpt = Annotated[
    str | None,
    typer.Option("--card", help="The member card's UID in hex (e.g. 04a1b2c3d4e5f6)."),
]


def _open(config: Path | None, store: str | None) -> tuple[EventStore, Members, Path | None]:
    """The store, its registry (this table's, when the settings say which) and the tile
    registry's path (a card must never be a tile)."""
    table, parlour, registry = "", "", None
    try:
        if store is None or config is not None:
            settings = load_config(config)
            table, parlour = settings.table, settings.parlour
            store = store or settings.store_url
            registry = None if settings.hardware.readerless else settings.registry_path
        events = EventStore.open(store)
    except ConfigError as err:
        raise _fail(str(err)) from None
    except Exception as err:  # a bad URL or an unreachable database: say so, no traceback
        raise _fail(f"cannot open the store: {err}") from None
    return events, Members(events.engine, table_id=table, parlour=parlour), registry


def _not_a_tile(card: str | None, registry: Path | None) -> None:
    if card is None or registry is None or not registry.exists():
        return
    try:
        found = TagRegistry.load(registry).lookup(bytes.fromhex(check_card(card)))
    except (RegistryFileError, OSError, MemberInputError) as err:
        raise _fail(str(err)) from None
    if not isinstance(found, Unknown):
        raise _fail(f"card_tag: {card} is a tile's tag (in {registry}), not a member card")


def _run(config: Path | None, store: str | None, work: Any, card: str | None = None) -> Any:
    events, members, registry = _open(config, store)
    try:
        _not_a_tile(card, registry)
        return work(members)
    except MemberInputError as err:
        raise _fail(str(err)) from None
    except UnknownMember as err:
        raise _fail(f"no member {err}") from None
    finally:
        events.close()


@cli.command("add")
def add(
    name: Annotated[str, typer.Argument(help="The display name (1-32 characters).")],
    card: CardOpt = None,
    member_id: Annotated[
        str | None,
        typer.Option("--id", help="The member's id at another table (one record at the hub)."),
    ] = None,
    config: ConfigOpt = None,
    store: StoreOpt = None,
) -> None:
    """Register a member; prints the member id."""
    member = _run(config, store, lambda m: m.add(name, card, member_id=member_id), card)
    typer.echo(f"{member.member_id}\t{member.name}")


@cli.command("list")
def list_members(config: ConfigOpt = None, store: StoreOpt = None) -> None:
    """Id, name, card, active or not, for each member."""
    for m in _run(config, store, lambda m: m.all()):
        state = "active" if m.active else "inactive"
        typer.echo(f"{m.member_id}\t{m.name}\t{m.card_tag or '-'}\t{state}")


@cli.command("edit")
def edit(
    member_id: Annotated[str, typer.Argument(help="The member id (from 'mjtable member list').")],
    name: Annotated[str | None, typer.Option("--name", help="A new display name.")] = None,
    card: CardOpt = None,
    no_card: Annotated[bool, typer.Option("--no-card", help="Take the card away.")] = False,
    active: Annotated[
        bool | None, typer.Option("--active/--inactive", help="Deactivate or reactivate.")
    ] = None,
    config: ConfigOpt = None,
    store: StoreOpt = None,
) -> None:
    """Change a member's name, card or active flag."""
    if card is not None and no_card:
        raise _fail("--card or --no-card, not both")
    changes: dict[str, Any] = {"name": name, "active": active}
    if card is not None or no_card:
        changes["card_tag"] = card
    member = _run(config, store, lambda m: m.edit(member_id, **changes), card)
    state = "active" if member.active else "inactive"
    typer.echo(f"{member.member_id}\t{member.name}\t{member.card_tag or '-'}\t{state}")


@cli.command("remove")
def remove(
    member_id: Annotated[str, typer.Argument(help="The member id.")],
    config: ConfigOpt = None,
    store: StoreOpt = None,
) -> None:
    """Delete a member: their past hands stay settled, as a guest's."""
    hands = _run(config, store, lambda m: m.remove(member_id))
    typer.echo(f"member {member_id} removed ({hands} hands now anonymous)")
