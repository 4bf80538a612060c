"""Every message type round-trips; bad payloads become MessageError, never anything else."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    MAX_PAYLOAD,
    ButtonPress,
    DiceResult,
    DiceRoll,
    DisplayText,
    Frame,
    FrameDecoder,
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
    encode_frame,
    message_types,
)
from firmware_bridge.protocol.messages import MAX_UIDS


def _uid(n: int) -> bytes:
    return n.to_bytes(8, "big")


EXAMPLES: list[Message] = [
    Hello(session=0xDEADBEEF),
    Hello(
        session=1,
        peer_session=0xFFFFFFFF,
        need_reply=False,
        role=Role.TABLE_BOARD,
        window=4,
        software="board fw 2.3 精",
    ),
    Heartbeat(uptime_ms=123_456),
    Status(TableState.SHUFFLING),
    Status(TableState.FAULT, faults=(0x0101, 0xFFFF)),
    WallOrder(start=0, total=136, uids=tuple(_uid(0xE004_0000_0000_0000 + i) for i in range(68))),
    WallOrder(start=136, total=136, uids=()),
    *(ButtonPress(seat=s, button=b) for s, b in zip(range(4), SeatButton, strict=False)),
    ButtonPress(seat=3, button=SeatButton.CONFIRM),
    Inventory(reader=2, zone=9, uids=tuple(_uid(i) for i in range(12))),
    Inventory(reader=0, zone=0, uids=()),
    Inventory(reader=255, zone=255, uids=tuple(_uid(i) for i in range(MAX_UIDS))),
    SizedInventory(reader=2, zone=0, uids=(bytes(range(7)), _uid(1), b"\x01" * 4, b"\xff" * 10)),
    SizedInventory(reader=0, zone=0, uids=()),
    DiceResult((3, 6)),
    DiceRoll(2),
    DisplayText(target=0, text="东风 精 ×2"),
    DisplayText(target=4, text=""),
    Led(led=7, mode=LedMode.BLINK_FAST, red=255, green=64, blue=0),
]


def test_examples_cover_every_message_type() -> None:
    assert {m.TYPE for m in EXAMPLES} == set(message_types())


@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda m: type(m).__name__)
def test_round_trip(msg: Message) -> None:
    payload = msg.encode()
    assert len(payload) <= MAX_PAYLOAD
    assert decode_message(msg.TYPE, payload) == msg
    # ...and through the frame codec.
    [frame] = FrameDecoder().feed(encode_frame(Frame(msg.TYPE, seq=5, payload=payload)))
    assert decode_message(frame.type, frame.payload) == msg


@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda m: type(m).__name__)
def test_truncated_or_extended_payload_is_malformed(msg: Message) -> None:
    payload = msg.encode()
    with pytest.raises(MalformedMessage):
        decode_message(msg.TYPE, payload + b"\x00")
    if payload:
        with pytest.raises(MalformedMessage):
            decode_message(msg.TYPE, payload[:-1])


def test_unknown_type_and_bad_enum_values() -> None:
    with pytest.raises(UnknownMessageType):
        decode_message(0x7F, b"")
    with pytest.raises(MalformedMessage):
        decode_message(ButtonPress.TYPE, bytes((0, 99)))  # no such button
    with pytest.raises(MalformedMessage):
        decode_message(ButtonPress.TYPE, bytes((4, 1)))  # no seat 4
    with pytest.raises(MalformedMessage):
        decode_message(Status.TYPE, bytes((77, 0)))
    with pytest.raises(MalformedMessage):
        decode_message(DisplayText.TYPE, b"\x00\x02\xff\xfe")  # not UTF-8
    with pytest.raises(MalformedMessage):
        decode_message(Hello.TYPE, Hello(session=1).encode()[:4] + bytes(12))  # min_version 0
    # §5.4 start + count <= total: more tags than the wall holds, even starting at 0.
    two = _uid(1) + _uid(2)
    with pytest.raises(MalformedMessage):
        decode_message(WallOrder.TYPE, bytes((0, 0, 0, 1, 2)) + two)
    with pytest.raises(MalformedMessage):
        decode_message(WallOrder.TYPE, bytes((0, 1, 0, 2, 2)) + two)
    assert decode_message(WallOrder.TYPE, bytes((0, 0, 0, 2, 2)) + two) == WallOrder(
        0, 2, (_uid(1), _uid(2))
    )


def test_invalid_fields_are_rejected_at_construction() -> None:
    with pytest.raises(ValueError):
        Inventory(reader=0, zone=0, uids=tuple(_uid(i) for i in range(MAX_UIDS + 1)))
    with pytest.raises(ValueError):
        Inventory(reader=0, zone=0, uids=(b"short",))
    for size in (3, 11, 12):  # a SizedInventory carries 4..10 bytes: a card's sizes
        with pytest.raises(ValueError):
            SizedInventory(reader=0, zone=0, uids=(bytes(size),))
    with pytest.raises(ValueError):  # 4 + 120 · 9 bytes: more than a payload
        SizedInventory(reader=0, zone=0, uids=tuple(_uid(i) for i in range(120)))
    with pytest.raises(ValueError):
        WallOrder(start=130, total=136, uids=tuple(_uid(i) for i in range(10)))
    with pytest.raises(ValueError):
        WallOrder(start=0, total=3, uids=tuple(_uid(i) for i in range(4)))
    with pytest.raises(ValueError):
        DiceResult((0,))
    with pytest.raises(ValueError):
        Hello(session=0)
    with pytest.raises(ValueError):
        DisplayText(target=0, text="长" * 100)


@given(st.integers(0, 255), st.binary(max_size=1100))
def test_decode_raises_only_message_errors(type_: int, payload: bytes) -> None:
    try:
        msg = decode_message(type_, payload)
    except MessageError:
        return
    assert msg.encode() == payload  # whatever decodes, encodes back to the same bytes


uids = st.lists(st.binary(min_size=8, max_size=8), max_size=MAX_UIDS).map(tuple)


@given(st.integers(0, 255), st.integers(0, 255), uids)
def test_inventory_round_trip(reader: int, zone: int, tags: tuple[bytes, ...]) -> None:
    msg = Inventory(reader=reader, zone=zone, uids=tags)
    assert decode_message(msg.TYPE, msg.encode()) == msg


card_uids = st.lists(
    st.sampled_from([4, 7, 8, 10]).flatmap(lambda n: st.binary(min_size=n, max_size=n)), max_size=90
).map(tuple)


@given(st.integers(0, 255), st.integers(0, 255), card_uids)
def test_sized_inventory_carries_cards_of_4_7_8_and_10_bytes(
    reader: int, zone: int, tags: tuple[bytes, ...]
) -> None:
    msg = SizedInventory(reader=reader, zone=zone, uids=tags)
    back = decode_message(MessageType.INVENTORY_SIZED, msg.encode())
    assert back == msg and isinstance(back, Inventory)  # the bridge takes it as any set


def test_a_sized_inventory_whose_sizes_do_not_fill_it_is_malformed() -> None:
    seven = bytes((7,)) + bytes(7)
    for payload in (
        bytes((1, 0, 2)) + seven,  # one UID short
        bytes((1, 0, 1)) + seven + b"\x00",  # a byte left over
        bytes((1, 0, 1, 3, 1, 2, 3)),  # 3 bytes: no card's size
        bytes((1, 0, 1, 11)) + bytes(11),
        bytes((1, 0, 1, 8)) + bytes(7),  # runs past the end
    ):
        with pytest.raises(MalformedMessage):
            decode_message(MessageType.INVENTORY_SIZED, payload)


@given(st.integers(0, 4), st.text(max_size=60))
def test_display_text_round_trip(target: int, text: str) -> None:
    if len(text.encode()) > 200:
        return
    msg = DisplayText(target=target, text=text)
    assert decode_message(msg.TYPE, msg.encode()) == msg
