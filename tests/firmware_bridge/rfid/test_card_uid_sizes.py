"""Member cards report UIDs of 4, 7, 8 or 10 bytes (ISO 14443 single, double, triple size;
ISO 15693): every reader codec carries them beside the tiles, and the virtual table's
readers report them; a tag of any other size is left out, never a reader stopped."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.rfid import a0_frame as a0
from firmware_bridge.rfid import isc_frame as isc
from firmware_bridge.rfid.events import HostCommand, Inventory, TagRead, TagSighting
from firmware_bridge.rfid.hf_frame import HfCodec, encode_tag_read
from firmware_bridge.rfid.ref_frame import SYNC, RefCodec, encode_inventory
from firmware_bridge.rfid.uid import CARD_UID_LENS, MAX_READ_LEN
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap
from firmware_bridge.sim import SimSettings, VirtualTable

TILE = bytes.fromhex("e004015000000001")
CARDS = [bytes(range(0x40, 0x40 + n)) for n in CARD_UID_LENS]


def test_a_reference_frame_carries_cards_of_every_size_beside_the_tiles() -> None:
    frame = encode_inventory(3, 9, [TILE, *CARDS])
    assert frame[:2] == b"\xaa\x56"  # sized: a UID is not 8 bytes
    events = RefCodec().feed(frame, 1.0)
    assert events == [Inventory(3, 9, frozenset([TILE, *CARDS]), 1.0)]
    # tiles alone: the 8-byte frame the board's firmware reads, byte for byte as before
    tiles = encode_inventory(3, 9, [TILE])
    assert tiles[:2] == SYNC and len(tiles) == 7 + 8 + 2


def test_an_hf_reader_reports_cards_of_every_size() -> None:
    codec = HfCodec(hold_time=0.0)
    got = [e for t, c in enumerate(CARDS) for e in codec.feed(encode_tag_read(c), float(t))]
    assert [e.uid for e in got if isinstance(e, TagRead)] == CARDS


def test_an_iso15693_reader_reports_cards_of_every_size() -> None:
    answer = isc.inventory_reply(1, [isc.IscRecord(c, ((1, -40),)) for c in CARDS])
    events = isc.IscCodec(role="host").feed(answer, 1.0)
    assert [e.tag for e in events if isinstance(e, TagSighting)] == CARDS


def test_a_uhf_reader_reports_the_cards_an_epc_can_name() -> None:
    """An EPC is whole 16-bit words: a 7-byte NFC card is never a UHF tag."""
    fits = [c for c in CARDS if a0.fits_epc(c)]
    assert [len(c) for c in fits] == [4, 8, 10]
    codec = a0.A0Codec(role="host")
    events = [e for c in fits for e in codec.feed(a0.tag_frame(1, 0x89, 1, c, -40), 1.0)]
    assert [e.tag for e in events if isinstance(e, TagSighting)] == fits


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=MAX_READ_LEN), max_size=20), st.binary())
def test_a_reference_reader_decodes_any_sizes_and_survives_any_bytes(
    uids: list[bytes], noise: bytes
) -> None:
    codec = RefCodec()
    codec.feed(noise, 0.0)  # whatever came before: never raises
    codec.poll(1.0)
    frame = encode_inventory(1, 0, uids)
    assert codec.feed(frame, 2.0) == [Inventory(1, 0, frozenset(uids), 2.0)]


def _inventory(codec: str, reader: Any) -> set[bytes]:
    """What one scan or round of a virtual reader names, as the host decodes it."""
    if codec == "ref":
        return {u for e in RefCodec().feed(reader.scan(), 0.0) for u in e.uids}
    if codec == "hf":
        return {e.uid for e in HfCodec().feed(reader.scan(), 0.0) if isinstance(e, TagRead)}
    multi = reader.multi
    if codec == "a0":
        slots = bytes((0, 1, 1, 1, 2, 1, 3, 1, 0, 0))
        command = HostCommand(multi.address, a0.CMD_FAST_SWITCH_INVENTORY, slots, 0.0)
        host: Any = a0.A0Codec(role="host")
    else:
        mask = bytes((isc.SUB_INVENTORY, isc.MODE_ANT, 0xFF))
        command = HostCommand(multi.address, isc.CMD_ISO_HOST, mask, 0.0)
        host = isc.IscCodec(role="host")
    answers = multi._command(command)  # (the command as the reader decoded it)
    more = HostCommand(
        multi.address, isc.CMD_ISO_HOST, bytes((isc.SUB_INVENTORY, isc.MODE_MORE)), 0.0
    )
    while codec == "iso15693" and multi._rest:  # (answers of a few records: ask for more)
        answers += multi._command(more)
    return {e.tag for a in answers for e in host.feed(a.data, 0.0) if isinstance(e, TagSighting)}


@pytest.mark.parametrize("codec", ["ref", "hf", "a0", "iso15693"])
def test_tags_of_any_size_on_the_virtual_table_never_stop_a_reader(codec: str) -> None:
    """Tags of 0 to 40 bytes on the hand zones: each reader names those its frames carry
    (every card of 4, 7, 8 or 10 bytes; for UHF, an EPC's whole words) and goes on."""
    rng = random.Random(codec)
    # (an HF port is one reader: seat 1's hand zone alone)
    zones = ZoneMap({0: Zone(ZoneKind.HAND, 0)}) if codec == "hf" else ZoneMap.standard()
    sim = SimSettings(codec=codec, seed=7, zones=zones, misread_rate=0.0, border_rate=0.0)  # type: ignore[arg-type]
    table = VirtualTable(sim)
    laid = {bytes(rng.getrandbits(8) for _ in range(n)) for n in range(0, 41)}
    laid |= set(CARDS)
    for i, tag in enumerate(sorted(laid)):
        assert table.place_card(tag, Zone(ZoneKind.HAND, 0 if codec == "hf" else i % 4)) is None
    seen: set[bytes] = set()
    for reader in table.readers:
        seen |= _inventory(codec, reader)
    fits = {
        "ref": lambda t: 1 <= len(t) <= MAX_READ_LEN,
        "hf": lambda t: len(t) in CARD_UID_LENS,
        "a0": a0.fits_epc,
        "iso15693": lambda t: 1 <= len(t) <= MAX_READ_LEN,
    }[codec]
    assert seen == {t for t in laid if fits(t)}
    assert seen >= {c for c in CARDS if codec != "a0" or len(c) != 7}
