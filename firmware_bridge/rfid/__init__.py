"""RFID readers: sans-IO codecs (reference inventory reader, common HF reader), zones, and
the tracker that turns inventories into TagIn/TagOut. See docs/rfid.md for the frames."""

from firmware_bridge.rfid.codec import DEFAULT_GAP_TIMEOUT, CodecStats, ReaderCodec
from firmware_bridge.rfid.events import Ack, HfCommand, Inventory, ReaderEvent, TagRead
from firmware_bridge.rfid.hf_frame import (
    DEFAULT_HOLD_TIME,
    HfCodec,
    encode_ack,
    encode_hf_frame,
    encode_rf_off,
    encode_rf_on,
    encode_tag_read,
)
from firmware_bridge.rfid.inventory import InventoryTracker, TagEvent, TagIn, TagOut
from firmware_bridge.rfid.presence import DEFAULT_PRESENCE_TIMEOUT, PresenceTracker
from firmware_bridge.rfid.ref_frame import RefCodec, encode_inventory
from firmware_bridge.rfid.uid import UID_LEN, parse_uid, uid_hex
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap

__all__ = [
    "DEFAULT_GAP_TIMEOUT",
    "DEFAULT_HOLD_TIME",
    "DEFAULT_PRESENCE_TIMEOUT",
    "UID_LEN",
    "Ack",
    "CodecStats",
    "HfCodec",
    "HfCommand",
    "Inventory",
    "InventoryTracker",
    "PresenceTracker",
    "ReaderCodec",
    "ReaderEvent",
    "RefCodec",
    "TagEvent",
    "TagIn",
    "TagOut",
    "TagRead",
    "Zone",
    "ZoneKind",
    "ZoneMap",
    "encode_ack",
    "encode_hf_frame",
    "encode_inventory",
    "encode_rf_off",
    "encode_rf_on",
    "encode_tag_read",
    "parse_uid",
    "uid_hex",
]
