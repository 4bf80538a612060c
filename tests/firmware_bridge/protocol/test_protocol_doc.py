"""The hex examples in docs/protocol.md are what the code produces and accepts."""

from __future__ import annotations

import re
from pathlib import Path

from firmware_bridge.protocol import FrameDecoder, cobs_encode, decode_message

DOC = Path(__file__).resolve().parents[3] / "docs" / "protocol.md"


def _examples() -> list[tuple[bytes, bytes]]:
    pairs = []
    for block in re.findall(r"```\n(raw :.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        raw_text, wire_text = block.split("wire:")
        raw = bytes.fromhex(raw_text.removeprefix("raw :").replace("\n", " "))
        wire = bytes.fromhex(wire_text.replace("\n", " "))
        pairs.append((raw, wire))
    return pairs


def test_doc_examples_encode_and_decode() -> None:
    examples = _examples()
    assert len(examples) >= 8
    for raw, wire in examples:
        assert wire.lstrip(b"\x00") == cobs_encode(raw) + b"\x00"
        decoder = FrameDecoder()
        [frame] = decoder.feed(wire)
        if frame.type != 0x02:  # a bare ack has no message
            decode_message(frame.type, frame.payload)
