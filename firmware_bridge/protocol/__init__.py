"""Pi ⇄ table-board protocol v1: COBS framing, typed messages, a reliable sans-IO link.

See docs/protocol.md. The asyncio shell lives in `firmware_bridge.protocol.transport`.
"""

from firmware_bridge.crc16 import crc16

from .cobs import CobsError, cobs_decode, cobs_encode
from .framing import (
    MAX_PAYLOAD,
    PROTOCOL_VERSION,
    Frame,
    FrameDecoder,
    encode_frame,
)
from .link import Link, LinkCounters, LinkQueueFull, LinkSettings, LinkState
from .messages import (
    ButtonPress,
    DiceResult,
    DiceRoll,
    DisplayText,
    Heartbeat,
    Hello,
    Inventory,
    Led,
    LedMode,
    MalformedMessage,
    Message,
    MessageError,
    MessageType,
    Role,
    SeatButton,
    SizedInventory,
    Status,
    TableState,
    UnknownMessageType,
    WallOrder,
    decode_message,
    message_types,
)

__all__ = [
    "MAX_PAYLOAD",
    "PROTOCOL_VERSION",
    "ButtonPress",
    "CobsError",
    "DiceResult",
    "DiceRoll",
    "DisplayText",
    "Frame",
    "FrameDecoder",
    "Heartbeat",
    "Hello",
    "Inventory",
    "Led",
    "LedMode",
    "Link",
    "LinkCounters",
    "LinkQueueFull",
    "LinkSettings",
    "LinkState",
    "MalformedMessage",
    "Message",
    "MessageError",
    "MessageType",
    "Role",
    "SeatButton",
    "SizedInventory",
    "Status",
    "TableState",
    "UnknownMessageType",
    "WallOrder",
    "cobs_decode",
    "cobs_encode",
    "crc16",
    "decode_message",
    "encode_frame",
    "message_types",
]
