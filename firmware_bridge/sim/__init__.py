"""The virtual table: the hardware side (board and readers) over ptys or TCP, for demos and
end-to-end tests. Tiles move only when a Driver says so; no mahjong rules live here."""

from firmware_bridge.sim.board import VirtualBoard
from firmware_bridge.sim.model import TableModel
from firmware_bridge.sim.moves import (
    Driver,
    EndHand,
    FlipToJing,
    IdleDriver,
    Move,
    MoveTag,
    Pause,
    PressButton,
    Rejection,
    ScriptedDriver,
    TableView,
    TakeFromWall,
)
from firmware_bridge.sim.ports import PtyPort, SimPort, TcpPort
from firmware_bridge.sim.readers import VirtualReaderPort
from firmware_bridge.sim.table import SimReaderPort, SimSettings, SimStats, VirtualTable
from firmware_bridge.sim.tiles import TileSet, make_uids

__all__ = [
    "Driver",
    "EndHand",
    "FlipToJing",
    "IdleDriver",
    "Move",
    "MoveTag",
    "Pause",
    "PressButton",
    "PtyPort",
    "Rejection",
    "ScriptedDriver",
    "SimPort",
    "SimReaderPort",
    "SimSettings",
    "SimStats",
    "TableModel",
    "TableView",
    "TakeFromWall",
    "TcpPort",
    "TileSet",
    "VirtualBoard",
    "VirtualReaderPort",
    "VirtualTable",
    "make_uids",
]
