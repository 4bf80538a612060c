"""Throughput of the Pi ⇄ board protocol stack: codec alone, and codec + link with acks.

Baseline: the time the same frame takes on the wire at 115,200 baud, 10 bits per byte
(start + 8 data + stop). A ratio below 1 means the CPU keeps up with the cable; the ratio
is also the fraction of one core the link needs when the line runs flat out.

    .venv/bin/python bench/link.py            # full run
    .venv/bin/python bench/link.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware_bridge.protocol import (
    Frame,
    FrameDecoder,
    Inventory,
    Link,
    LinkSettings,
    LinkState,
    Role,
    encode_frame,
)

BAUD = 115_200
BITS_PER_BYTE = 10


def typical_message() -> Inventory:
    """A seat's hand zone after a draw: 12 tags (8-byte ISO 15693 UIDs)."""
    return Inventory(
        reader=1,
        zone=4,
        uids=tuple((0xE004_0150_0000_0000 + i).to_bytes(8, "big") for i in range(12)),
    )


def wire_seconds(n_bytes: int) -> float:
    return n_bytes * BITS_PER_BYTE / BAUD


def measure(label: str, n: int, body: Callable[[int], None]) -> float:
    """CPU seconds per iteration of body (process time, so other load does not count)."""
    body(min(n, 200))  # warm up
    start = time.process_time()
    body(n)
    per = (time.process_time() - start) / n
    print(f"  {label:<44} {1 / per:>11,.0f} /s   {per * 1e6:>8.2f} µs")
    return per


def bench(n: int) -> None:
    msg = typical_message()
    payload = msg.encode()
    frame = Frame(msg.TYPE, seq=17, ack=42, payload=payload)
    wire = encode_frame(frame)
    ack_wire = encode_frame(Frame(0x02, ack=18))
    print(f"python {platform.python_version()} on {platform.machine()}")
    print(f"typical message: Inventory of 12 tags, payload {len(payload)} B, frame {len(wire)} B")
    print(
        f"wire time at {BAUD:,} baud, {BITS_PER_BYTE} bits/byte: "
        f"{wire_seconds(len(wire)) * 1e3:.3f} ms data frame, "
        f"{wire_seconds(len(ack_wire)) * 1e3:.3f} ms ack frame "
        f"(max {1 / wire_seconds(len(wire)):.0f} such frames/s on the cable)"
    )
    print()
    print(f"  {'operation (CPU time)':<44} {'rate':>13}   {'per frame':>11}")

    def encode(k: int) -> None:
        for _ in range(k):
            encode_frame(Frame(msg.TYPE, seq=17, ack=42, payload=msg.encode()))

    def decode(k: int) -> None:
        decoder = FrameDecoder()
        for _ in range(k):
            decoder.feed(wire)

    def decode_bytewise(k: int) -> None:
        decoder = FrameDecoder()
        pieces = [bytes((b,)) for b in wire]
        for _ in range(k):
            for piece in pieces:
                decoder.feed(piece)

    measure("encode (message + frame + COBS + CRC)", n, encode)
    measure("decode, whole frame per read", n, decode)
    measure("decode, one byte per read (worst case)", max(n // 10, 1), decode_bytewise)

    a = Link(LinkSettings(role=Role.HOST), session=1)
    b = Link(LinkSettings(role=Role.TABLE_BOARD), session=2)
    now = 0.0
    for _ in range(5):
        b.receive_bytes(a.poll(now), now)
        a.receive_bytes(b.poll(now), now)
    assert a.state is LinkState.UP and b.state is LinkState.UP

    def round_trip(k: int) -> None:
        # send -> frame out -> peer decodes and delivers -> peer acks -> sender clears it.
        t = now
        for _ in range(k):
            t += 0.001
            a.send(msg, t)
            delivered = b.receive_bytes(a.poll(t), t)
            a.receive_bytes(b.poll(t), t)
            assert len(delivered) == 1

    def windowed(k: int) -> None:
        # 8 frames per poll, one cumulative ack for all of them.
        t = now + 1e6
        for _ in range(k // 8):
            t += 0.001
            for _ in range(8):
                a.send(msg, t)
            delivered = b.receive_bytes(a.poll(t), t)
            a.receive_bytes(b.poll(t), t)
            assert len(delivered) == 8

    per_rt = measure("link round trip: 1 frame + its own ack", n, round_trip)
    per_win = measure("link, window of 8 + one cumulative ack", n, windowed)
    assert a.counters.retransmits == 0 and a.idle

    on_wire = wire_seconds(len(wire))
    print()
    print(f"baseline: wire time of the data frame at {BAUD:,} baud = {on_wire * 1e6:,.0f} µs")
    for label, per in (("1 frame + own ack", per_rt), ("window of 8", per_win)):
        print(
            f"  CPU/wire ratio, {label:<18} {per / on_wire:.4f}  "
            f"({on_wire / per:,.0f}x faster than the cable; "
            f"{100 * per / on_wire:.2f}% of one core at line rate)"
        )
    print("  (CPU includes both ends of the link: sender, receiver and ack path)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run, few iterations")
    args = parser.parse_args()
    bench(2_000 if args.quick else 50_000)


if __name__ == "__main__":
    main()
