"""Tiles: 34 kinds, 136 physical tiles, the text notation and the successor cycle.

Kind indices follow the widespread 34-index layout (man, pin, sou, honors) so that
comparisons with other libraries are a plain mapping:

    0–8   1m–9m  万 (characters)
    9–17  1p–9p  筒 (dots)
    18–26 1s–9s  条 (bamboo)
    27–30 E S W N  东 南 西 北
    31–33 C F P    中 发 白  (the order of the wildcard cycle 中→发→白)

A physical tile's identity is 0–135; its kind is ``kind_of(tile_id)``, ``tile_id // 4``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.errors import EngineError

NUM_KINDS = 34
NUM_TILES = 136
COPIES = 4

MAN, PIN, SOU, HONOR = 0, 1, 2, 3
SUIT_LETTERS = "mps"
HONOR_LETTERS = "ESWNCFP"
EAST, SOUTH, WEST, NORTH, RED, GREEN, WHITE = range(27, 34)
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (RED, GREEN, WHITE)

# Tenhou's compact honors: 1z–7z = 东 南 西 北 白 发 中.
_Z_TO_KIND = {1: EAST, 2: SOUTH, 3: WEST, 4: NORTH, 5: WHITE, 6: GREEN, 7: RED}

_SUIT_NAMES_ZH = {"m": "万", "p": "筒", "s": "条"}
_NUMERALS_ZH = "一二三四五六七八九"
_HONOR_NAMES_ZH = ("东", "南", "西", "北", "中", "发", "白")
_HONOR_LONG_ZH = ("东风", "南风", "西风", "北风", "红中", "发财", "白板")
_SUIT_NAMES_EN = {"m": "characters", "p": "dots", "s": "bamboo"}
_HONOR_NAMES_EN = ("east", "south", "west", "north", "red", "green", "white")


class TileNotationError(EngineError, ValueError):
    """A tile string that cannot be read; the message names the bad token."""


def suit_of(kind: int) -> int:
    """0 man, 1 pin, 2 sou, 3 honors."""
    return kind // 9 if kind < 27 else HONOR


def is_terminal(kind: int) -> bool:
    return kind < 27 and kind % 9 in (0, 8)


def kind_of(tile: int) -> int:
    """The kind (0–33) of a physical tile (0–135): its four copies are consecutive ids.
    Unchecked: a tile id is checked where it comes in (an event, a tag, the notation)."""
    return tile // COPIES


def successor(kind: int) -> int:
    """The next kind in the 精/财神 cycle: 9→1 within a suit, 东→南→西→北→东, 中→发→白→中."""
    if kind < 27:
        base = kind - kind % 9
        return base + (kind % 9 + 1) % 9
    if kind <= NORTH:
        return EAST + (kind - EAST + 1) % 4
    return RED + (kind - RED + 1) % 3


def kind_name(kind: int) -> str:
    """Compact notation of one kind: ``5m``, ``E``, ``C``."""
    if not 0 <= kind < NUM_KINDS:
        raise ValueError(f"tile kind {kind} is outside 0–33")
    if kind < 27:
        return f"{kind % 9 + 1}{SUIT_LETTERS[kind // 9]}"
    return HONOR_LETTERS[kind - 27]


KIND_LABELS: tuple[str, ...] = tuple(kind_name(k) for k in range(NUM_KINDS))
"""Every kind's notation, in kind order: the labels a tag registry and the virtual table
give their tiles."""


def zh_name(kind: int, long: bool = True) -> str:
    """Chinese display name: 一万 … 九筒, 东风 … 白板 (``long=False``: 东 南 西 北 中 发 白)."""
    if kind < 27:
        return _NUMERALS_ZH[kind % 9] + _SUIT_NAMES_ZH[SUIT_LETTERS[kind // 9]]
    names = _HONOR_LONG_ZH if long else _HONOR_NAMES_ZH
    return names[kind - 27]


def en_name(kind: int) -> str:
    if kind < 27:
        return f"{kind % 9 + 1} {_SUIT_NAMES_EN[SUIT_LETTERS[kind // 9]]}"
    return _HONOR_NAMES_EN[kind - 27]


_TOKEN = re.compile(r"\s*(?:(\d+)([mpsz])|([ESWNCFP]))", re.IGNORECASE)


def parse_kinds(text: str) -> list[int]:
    """Read ``123m 456s 789p ESWN CFP`` (also ``1z``–``7z``; spaces optional) as kinds.

    The order of the text is kept. Raises :class:`TileNotationError` naming the first
    token that is not a tile.
    """
    kinds: list[int] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        if text[pos].isspace() or text[pos] == ",":
            pos += 1
            continue
        m = _TOKEN.match(text, pos)
        if m is None:
            bad = re.match(r"\S+", text[pos:])
            token = bad.group(0) if bad else text[pos:]
            raise TileNotationError(f"not a tile: {token!r} (at position {pos})")
        digits, suit, honor = m.group(1), m.group(2), m.group(3)
        if honor is not None:
            kinds.append(27 + HONOR_LETTERS.index(honor.upper()))
        else:
            suit = suit.lower()
            for d in digits:
                n = int(d)
                if suit == "z":
                    if n not in _Z_TO_KIND:
                        raise TileNotationError(f"not a tile: {d}z (honors are 1z–7z)")
                    kinds.append(_Z_TO_KIND[n])
                else:
                    if n == 0:
                        raise TileNotationError(f"not a tile: 0{suit} (numbers are 1–9)")
                    kinds.append(SUIT_LETTERS.index(suit) * 9 + n - 1)
        pos = m.end()
    return kinds


def parse_kind(text: str) -> int:
    """Exactly one tile, e.g. ``5m`` or ``E``."""
    kinds = parse_kinds(text)
    if len(kinds) != 1:
        raise TileNotationError(f"expected exactly one tile, got {text!r}")
    return kinds[0]


def counts_of(kinds: Iterable[int]) -> list[int]:
    """A 34-long count vector."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def format_kinds(kinds: Iterable[int]) -> str:
    """Compact notation, grouped by suit in index order: ``123m 55p 789s EW C``."""
    ordered = sorted(kinds)
    groups: list[str] = []
    for suit in range(3):
        digits = "".join(str(k % 9 + 1) for k in ordered if suit_of(k) == suit)
        if digits:
            groups.append(digits + SUIT_LETTERS[suit])
    winds = "".join(HONOR_LETTERS[k - 27] for k in ordered if EAST <= k <= NORTH)
    dragons = "".join(HONOR_LETTERS[k - 27] for k in ordered if k >= RED)
    groups.extend(g for g in (winds, dragons) if g)
    return " ".join(groups)
