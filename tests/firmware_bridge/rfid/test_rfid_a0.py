"""The Impinj R2000 / E710 "A0" frames: byte-exact vectors, decoding, resync, bad input,
and a differential check against pyImpinj, an independent implementation."""

from __future__ import annotations

import queue

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.rfid.a0_frame import (
    CMD_FAST_SWITCH_INVENTORY,
    CMD_GET_FIRMWARE,
    CMD_REALTIME_INVENTORY,
    A0Codec,
    antenna_missing,
    checksum,
    cmd_fast_switch,
    cmd_get_firmware,
    cmd_realtime_inventory,
    cmd_set_power,
    encode_a0,
    error_frame,
    reply,
    round_end_fast_switch,
    round_end_realtime,
    tag_frame,
)
from firmware_bridge.rfid.events import (
    Ack,
    HostCommand,
    ReaderFault,
    RoundEnd,
    TagSighting,
)

EPC = bytes.fromhex("e28011606000020000000001")

# Vectors from the vendors' "UHF RFID Reader Serial Interface Protocol" (R2000) examples
# and pyImpinj 1.2's frame builder (see docs/rfid.md, "Sources").
VECTORS = {
    "reset": ("a0030170ec", encode_a0(1, 0x70)),
    "get firmware": ("a0030172ea", cmd_get_firmware(1)),
    "real-time inventory, repeat 1": ("a004018901d1", cmd_realtime_inventory(1, 1)),
    "real-time inventory, repeat 255": ("a0040189ffd3", cmd_realtime_inventory(1, 255)),
    "fast switch, antennas 1-4": (
        "a00d018a00010101020103010001bd",
        cmd_fast_switch(1, [1, 2, 3, 4], interval_ms=0, repeat=1),
    ),
    "set power 30 dBm x4": ("a00701761e1e1e1e6a", cmd_set_power(1, [30, 30, 30, 30])),
}


def test_vectors_byte_exact() -> None:
    for name, (expected, built) in VECTORS.items():
        assert built.hex() == expected, name


def test_checksum_makes_frames_sum_to_zero() -> None:
    for _, built in VECTORS.values():
        assert sum(built) & 0xFF == 0
    assert checksum(bytes.fromhex("a0030170")) == 0xEC


def test_inventory_round_decodes() -> None:
    codec = A0Codec()
    stream = (
        tag_frame(1, CMD_FAST_SWITCH_INVENTORY, 3, EPC, -52, freq_index=7)
        + tag_frame(1, CMD_FAST_SWITCH_INVENTORY, 6, EPC, -70)
        + antenna_missing(1, 2)
        + round_end_fast_switch(1, total=2, duration_ms=48)
    )
    assert codec.feed(stream, 2.0) == [
        TagSighting(1, 3, EPC, -52.0, 2.0),
        TagSighting(1, 6, EPC, -70.0, 2.0),
        ReaderFault(1, CMD_FAST_SWITCH_INVENTORY, 0x22, 2, "antenna missing", 2.0),
        RoundEnd(1, CMD_FAST_SWITCH_INVENTORY, 2, 2.0),
    ]
    rt = round_end_realtime(1, antenna=1, read_rate=120, total=77)
    assert codec.feed(rt + error_frame(1, CMD_REALTIME_INVENTORY, 0x36), 3.0) == [
        RoundEnd(1, CMD_REALTIME_INVENTORY, 77, 3.0),
        ReaderFault(1, CMD_REALTIME_INVENTORY, 0x36, None, "no tag", 3.0),
    ]
    assert codec.feed(reply(1, CMD_GET_FIRMWARE, b"\x08\x02"), 4.0) == [
        Ack(1, CMD_GET_FIRMWARE, 0x10, b"\x08\x02", 4.0)
    ]


def test_reader_role_decodes_commands() -> None:
    codec = A0Codec(role="reader")
    assert codec.feed(cmd_realtime_inventory(5, 1), 0.0) == [
        HostCommand(5, CMD_REALTIME_INVENTORY, b"\x01", 0.0)
    ]


def test_corrupt_bytes_resync_and_count() -> None:
    codec = A0Codec()
    good = tag_frame(1, CMD_REALTIME_INVENTORY, 1, EPC, -40)
    bad = bytearray(good)
    bad[6] ^= 0x40
    events = codec.feed(b"\xa0\x01\xa0" + bytes(bad) + good, 0.0)
    assert events == [TagSighting(1, 1, EPC, -40.0, 0.0)]
    assert codec.stats.bad_checksums >= 1 and codec.stats.malformed >= 1
    # PC says 6 words but 4 follow: counted, nothing reported.
    data = b"\x00" + (6 << 11).to_bytes(2, "big") + EPC[:8] + b"\x50"
    assert codec.feed(encode_a0(1, CMD_REALTIME_INVENTORY, data), 1.0) == []
    assert codec.stats.malformed >= 2


def test_partial_frame_dropped_after_gap() -> None:
    codec = A0Codec()
    frame = tag_frame(1, CMD_REALTIME_INVENTORY, 1, EPC, -40)
    assert codec.feed(frame[:5], 0.0) == []
    assert codec.poll(1.0) == []
    assert codec.stats.gap_resets == 1
    assert codec.feed(frame, 1.1) == [TagSighting(1, 1, EPC, -40.0, 1.1)]


@given(st.binary(max_size=300), st.lists(st.integers(0, 299), max_size=5))
def test_never_raises_on_any_bytes(data: bytes, cuts: list[int]) -> None:
    codec = A0Codec()
    pos = 0
    for cut in sorted(cuts):
        codec.feed(data[pos:cut], float(pos))
        pos = cut
    codec.feed(data[pos:], 400.0)
    codec.poll(1000.0)


@given(
    st.integers(1, 8),
    st.integers(-98, -2),
    st.binary(min_size=2, max_size=62).filter(lambda b: len(b) % 2 == 0),
)
def test_tag_frames_round_trip(antenna: int, rssi: int, epc: bytes) -> None:
    frame = tag_frame(0xFF, CMD_REALTIME_INVENTORY, antenna, epc, rssi)
    assert A0Codec().feed(frame, 0.0) == [TagSighting(0xFF, antenna, epc, float(rssi), 0.0)]


# --- pyImpinj, an independent implementation (installed with --no-deps by the Makefile) ---


def test_pyimpinj_builds_what_we_build() -> None:
    from pyImpinj.enums import ImpinjR2KFastSwitchInventory as Ant
    from pyImpinj.protocol import ImpinjR2KProtocols

    theirs = ImpinjR2KProtocols(address=1)
    assert theirs.reset() == encode_a0(1, 0x70)
    assert theirs.version() == cmd_get_firmware(1)
    assert theirs.rt_inventory(1) == cmd_realtime_inventory(1, 1)
    assert theirs.set_rf_power(30, 30, 30, 30) == cmd_set_power(1, [30, 30, 30, 30])
    param = dict(A=Ant.ANTENNA1, Aloop=1, B=Ant.ANTENNA2, Bloop=1, C=Ant.ANTENNA3, Cloop=1)
    param |= dict(D=Ant.ANTENNA4, Dloop=1, Interval=0, Repeat=1)
    assert theirs.fast_switch_ant_inventory(param) == cmd_fast_switch(1, [1, 2, 3, 4])
    # and our reader-side decoder reads their commands
    assert A0Codec(role="reader").feed(theirs.rt_inventory(7), 0.0) == [
        HostCommand(1, CMD_REALTIME_INVENTORY, b"\x07", 0.0)
    ]


def test_pyimpinj_decodes_what_our_virtual_reader_sends() -> None:
    from pyImpinj import ImpinjProtocolFactory

    packages: queue.Queue[dict[str, object]] = queue.Queue()
    commands: queue.Queue[dict[str, object]] = queue.Queue()
    factory = ImpinjProtocolFactory(packages, commands, address=1)
    stream = (
        tag_frame(1, CMD_REALTIME_INVENTORY, 2, EPC, -55, freq_index=3)
        + round_end_realtime(1, antenna=2, read_rate=40, total=1)
        + reply(1, CMD_GET_FIRMWARE, b"\x08\x02")
    )
    factory.data_received(stream)
    tag = packages.get_nowait()
    assert tag["type"] == "TAG" and tag["epc"] == EPC.hex().upper()
    assert tag["antenna"] == 2 and tag["rssi"] == -55
    done = packages.get_nowait()
    assert done["type"] == "DONE" and done["total_read"] == 1
    assert commands.get_nowait() == {"command": CMD_GET_FIRMWARE, "data": b"\x08\x02"}
