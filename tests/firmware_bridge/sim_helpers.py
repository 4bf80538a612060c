"""Shared by the virtual-table tests: a bridge connected to a running virtual table, an event
log, and a few moves a dealer makes (no rules: positions and zones only)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from firmware_bridge.protocol.link import Link, LinkSettings
from firmware_bridge.protocol.transport import LinkTransport
from firmware_bridge.rfid.inventory import TagIn, TagOut
from firmware_bridge.rfid.zones import Zone, ZoneKind
from firmware_bridge.sim import Move, TakeFromWall, VirtualTable
from firmware_bridge.table import TableBridge, open_readers
from firmware_bridge.table_events import BridgeEvent

TIMEOUT = 40.0
E = TypeVar("E")


@dataclass
class EventLog:
    bridge: TableBridge
    events: list[BridgeEvent] = field(default_factory=list)

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    def tag_events(self) -> list[TagIn | TagOut]:
        return [e for e in self.events if isinstance(e, TagIn | TagOut)]


async def until(condition: Callable[[], bool], interval: float = 0.01) -> None:
    while not condition():
        await asyncio.sleep(interval)


def bridge_for(
    table: VirtualTable, *, silent_after: float = 3.0, out_after_seconds: float = 0.25
) -> TableBridge:
    """A bridge opening every device the table exposes, reconnecting quickly."""
    lines = [p.line() for p in table.readers]
    readers = open_readers(lines, backoff_initial=0.02, backoff_max=0.2)
    board = LinkTransport(table.board_url, Link(LinkSettings()), backoff_initial=0.02)
    return TableBridge(
        table.config.zones,
        board=board,
        readers=readers,
        silent_after=silent_after,
        out_after_seconds=out_after_seconds,
    )


@contextlib.asynccontextmanager
async def running(
    table: VirtualTable, silent_after: float = 3.0, out_after_seconds: float = 0.25
) -> AsyncIterator[EventLog]:
    """Starts the table, then a bridge on the devices it exposes; logs every bridge event."""
    async with asyncio.timeout(TIMEOUT), table:
        bridge = bridge_for(table, silent_after=silent_after, out_after_seconds=out_after_seconds)
        log = EventLog(bridge)

        async def collect() -> None:
            async for event in bridge:
                log.events.append(event)

        async with bridge:
            task = asyncio.create_task(collect())
            try:
                yield log
            finally:
                task.cancel()


def hand(seat: int) -> Zone:
    return Zone(ZoneKind.HAND, seat)


def deal(tiles_each: int, first_position: int = 0) -> list[Move]:
    """Seats 0..3 take `tiles_each` tiles each from consecutive wall positions."""
    moves: list[Move] = []
    position = first_position
    for seat in range(4):
        for _ in range(tiles_each):
            moves.append(TakeFromWall(position, hand(seat)))
            position += 1
    return moves


def bridge_agrees(table: VirtualTable, bridge: TableBridge) -> bool:
    """Every read zone holds on the bridge exactly what it holds on the table."""
    zones = set(table.config.zones.values())
    return all(bridge.tracker.present(z) == table.model.tags_in(z) for z in zones)
