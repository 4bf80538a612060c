"""A reader zone in words: 3号位手牌, 精位, never its id (``hand:2``). One home for the
console's alerts, the owners' alert details and the voice."""

from __future__ import annotations

import re

from controller.words.refusals import seat_name
from firmware_bridge.rfid.zones import Zone

ZONE_WORDS: dict[str, str] = {
    "hand": "手牌",
    "melds": "副露",
    "discards": "弃牌",
    "pool": "弃牌池",
    "jing": "精位",
}
# a zone's id in a text: a seat's zone with its seat (hand:2), the shared ones bare (not \b:
# a Chinese character is a word character too)
_ZONE_ID = re.compile(r"(?<![A-Za-z])(?:(hand|melds|discards):([0-3])|(pool|jing))(?![A-Za-z0-9])")


def zone_words(zone: Zone) -> str:
    """``Zone(hand, 2)`` as people say it: 3号位手牌; the jing spot: 精位."""
    words = ZONE_WORDS.get(zone.kind.value, "感应区")
    return words if zone.seat is None else f"{seat_name(zone.seat)}{words}"


def zones_in_words(text: str) -> str:
    """Each zone id in ``text`` (a stored alert's detail, an alert said aloud) in words."""

    def said(m: re.Match[str]) -> str:
        if m.group(3):
            return ZONE_WORDS[m.group(3)]
        return f"{seat_name(int(m.group(2)))}{ZONE_WORDS[m.group(1)]}"

    return _ZONE_ID.sub(said, text)
