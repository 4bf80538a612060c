"""Builders for finished hands in the ``mjtable settle`` JSON shape."""

from __future__ import annotations

from typing import Any

from engine.rulesets import load_ruleset
from engine.settlement import Settlement, parse_finished_hand
from engine.tiles import format_kinds, parse_kind, parse_kinds


def seats_with(
    hands: dict[int, str],
    melds: dict[int, list[dict[str, Any]]] | None = None,
    discards: dict[int, str] | None = None,
    jing: tuple[str, ...] = ("5m", "6m"),
    spare: str = "6m",
    indicator: str | None = "5m",
) -> list[dict[str, Any]]:
    """Four seats: the given hands, and 13-tile filler hands for the rest.

    Fillers take what is left of the 136 tiles, never a jing kind except the ``spare``
    tiles handed to the first filler seat (by default one 副精, so that nobody wins 霸胡
    by accident).
    """
    melds = melds or {}
    discards = discards or {}
    left = [4] * 34
    used: list[int] = []
    for text in list(hands.values()) + list(discards.values()):
        used += parse_kinds(text)
    for ms in melds.values():
        for m in ms:
            used += parse_kinds(m["tiles"])
    if indicator is not None:
        used.append(parse_kind(indicator))
    for k in used:
        left[k] -= 1
    assert min(left) >= 0, "test hand uses a fifth copy"
    jing_kinds = [parse_kind(j) for j in jing]
    spare_kinds = parse_kinds(spare)
    for k in spare_kinds:
        left[k] -= 1
    assert min(left) >= 0, "the spare tiles make a fifth copy"
    pool = [k for k in range(34) if k not in jing_kinds for _ in range(left[k])]
    seats = []
    for seat in range(4):
        if seat in hands:
            hand = hands[seat]
        else:
            n = 13 - 3 * len(melds.get(seat, []))
            take, spare_kinds = spare_kinds[:n], []
            need = n - len(take)
            take += pool[:need]
            pool = pool[need:]
            hand = format_kinds(take)
        seats.append(
            {"hand": hand, "melds": melds.get(seat, []), "discards": discards.get(seat, "")}
        )
    return seats


D = 0  # the dealer of a built request, unless told

# Per ruleset: its 精 (财神) kinds, the spare tiles of the first filler seat, the indicator.
_TILES: dict[str, tuple[tuple[str, ...], str, str | None]] = {
    "chongji": (("5p",), "", "4p"),
    "guangdong": ((), "", None),
    "yichun": ((), "", None),
}
_JING = (("5m", "6m"), "6m", "5m")  # the jing rulesets: 正精 5m, 副精 6m


def request(
    ruleset: str,
    winner: int | None,
    hand: str = "",
    tile: str | None = None,
    frm: int | str = "self",
    *,
    hands: dict[int, str] | None = None,
    melds: dict[int, list[dict[str, Any]]] | None = None,
    discards: dict[int, str] | None = None,
    flags: dict[str, Any] | None = None,
    spare: str | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A settle request: ``winner`` holds ``hand`` and wins on ``tile`` (default: the hand's
    last tile) from ``frm`` with ``flags``; the other seats hold ``hands`` or fillers
    (``seats_with``); ``None`` winner: a draw. ``fields`` (dealer, options, extra,
    prevailing_wind …) go in as given."""
    jing, default_spare, indicator = _TILES.get(ruleset, _JING)
    all_hands = dict(hands or {})
    if winner is not None:
        all_hands[winner] = hand
    seats = seats_with(
        all_hands,
        melds=melds,
        discards=discards,
        jing=jing,
        spare=default_spare if spare is None else spare,
        indicator=indicator,
    )
    req: dict[str, Any] = {"ruleset": ruleset, "dealer": D, "indicator": indicator}
    req["seats"] = seats
    req["win"] = (
        None
        if winner is None
        else {
            "seat": winner,
            "tile": hand.split()[-1][-2:] if tile is None else tile,
            "from": frm,
            **(flags or {}),
        }
    )
    return req | fields


def settle(request: dict[str, Any]) -> Settlement:
    hand = parse_finished_hand(request)
    return load_ruleset(hand.ruleset, hand.options).settle(hand)


def paid(settlement: Settlement, prefix: str) -> dict[int, Any]:
    """What each payer paid on lines whose code starts with ``prefix``."""
    out: dict[int, Any] = {}
    for line in settlement.lines:
        if line.code.startswith(prefix):
            out[line.payer] = out.get(line.payer, 0) + line.amount
    return out


def received(settlement: Settlement, prefix: str) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for line in settlement.lines:
        if line.code.startswith(prefix):
            out[line.payee] = out.get(line.payee, 0) + line.amount
    return out
