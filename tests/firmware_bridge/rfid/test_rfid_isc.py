"""The FEIG ISC advanced frame: CRC, layout, inventory answers with antennas, bad input."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.rfid.events import Ack, HostCommand, ReaderFault, RoundEnd, TagSighting
from firmware_bridge.rfid.isc_frame import (
    CMD_ISO_HOST,
    CMD_READER_INFO,
    IscCodec,
    IscRecord,
    ant_sel,
    cmd_inventory,
    cmd_reader_info,
    crc16_mcrf4xx,
    encode_isc,
    inventory_reply,
    reader_info_reply,
    status_reply,
)

UID = bytes.fromhex("e004015012345678")


def test_crc_is_mcrf4xx() -> None:
    # The catalogue check value of CRC-16/MCRF4XX (poly 0x1021 reflected = 0x8408,
    # init 0xFFFF, no final xor), which FEIG's protocol manuals give as their CRC16.
    assert crc16_mcrf4xx(b"123456789") == 0x6F91


def test_inventory_request_layout() -> None:
    frame = cmd_inventory(0xFF, [1, 3])
    # STX, ALENGTH (whole frame, MSB first), COM-ADR, [0xB0], 0x01, MODE (ANT), ANT_SEL
    assert frame[:8] == bytes.fromhex("02000a ff b0 01 10 05".replace(" ", ""))
    assert int.from_bytes(frame[-2:], "little") == crc16_mcrf4xx(frame[:-2])
    assert cmd_inventory(1, [1], more=True)[6] == 0x90
    assert ant_sel([1, 2, 8]) == 0b1000_0011


def test_answers_decode() -> None:
    codec = IscCodec()
    records = [IscRecord(UID, ((1, -48), (2, -71)))]
    stream = (
        inventory_reply(1, records, status=0x94)
        + inventory_reply(1, [])
        + status_reply(1, CMD_ISO_HOST, 0x84)
        + reader_info_reply(1, 3, 12)
    )
    events = codec.feed(stream, 5.0)
    assert events[:3] == [
        TagSighting(1, 1, UID, -48.0, 5.0),
        TagSighting(1, 2, UID, -71.0, 5.0),
        RoundEnd(1, CMD_ISO_HOST, 2, 5.0, more=True),
    ]
    assert events[3] == RoundEnd(1, CMD_ISO_HOST, 0, 5.0)
    assert events[4] == ReaderFault(1, CMD_ISO_HOST, 0x84, None, "RF warning (antenna)", 5.0)
    assert isinstance(events[5], Ack) and events[5].cmd == CMD_READER_INFO
    assert events[5].data[:2] == bytes((3, 12))


def test_reader_role_and_records_that_do_not_add_up() -> None:
    assert IscCodec(role="reader").feed(cmd_reader_info(4), 0.0) == [
        HostCommand(4, CMD_READER_INFO, b"\x00", 0.0)
    ]
    codec = IscCodec()
    # DATA-SETS says 2 but one record follows: counted, nothing reported.
    good = inventory_reply(1, [IscRecord(UID, ((1, -50),))])
    body = bytearray(good[5:-2])
    body[1] = 2
    assert codec.feed(encode_isc(1, CMD_ISO_HOST, bytes(body)), 0.0) == []
    assert codec.stats.malformed == 1


@given(st.binary(max_size=400))
def test_never_raises(data: bytes) -> None:
    codec = IscCodec()
    codec.feed(data, 0.0)
    codec.poll(10.0)
