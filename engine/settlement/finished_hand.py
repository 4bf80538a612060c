"""A finished hand as the settlement sees it, and its validation.

This is the input of every ruleset's ``settle``: each seat's tiles at the end, the win (or
wins, or none for 流局), the flipped tiles and the extras that the tiles alone do not show
(跟庄 rounds, false win declarations). ``parse_finished_hand`` reads the JSON contract of
``mjtable settle`` and names the field at fault in every error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engine.hand import Meld, MeldType
from engine.tiles import EAST, NORTH, TileNotationError, format_kinds, parse_kind, parse_kinds


class SettleInputError(ValueError):
    """The finished hand cannot be settled; the message names the field."""


class WinSource(StrEnum):
    DISCARD = "discard"
    SELF_DRAW = "self"
    ROB_KONG = "rob_kong"  # 抢杠: won on the tile another added to an exposed pung
    KONG_REPLACEMENT = "kong_replacement"  # 杠上花: own kong replacement


@dataclass(frozen=True, slots=True)
class SeatEnd:
    concealed: tuple[int, ...]  # kinds; a winner's include the winning tile
    melds: tuple[Meld, ...] = ()
    discards: tuple[int, ...] = ()  # still lying in this seat's discards

    @property
    def tile_count(self) -> int:
        """Tiles as the 13/14 rule counts them: a kong counts as three."""
        return len(self.concealed) + 3 * len(self.melds)

    def all_kinds(self) -> list[int]:
        kinds = list(self.concealed)
        for meld in self.melds:
            kinds.extend(meld.kinds)
        return kinds

    @property
    def is_concealed(self) -> bool:
        """门清: no chow, pung or exposed kong."""
        return not any(m.type.is_open for m in self.melds)


@dataclass(frozen=True, slots=True)
class Win:
    seat: int
    tile: int
    source: WinSource
    discarder: int | None = None  # the discarder, or the robbed seat for 抢杠
    tian: bool = False  # 天胡
    di: bool = False  # 地胡
    last_tile: bool = False  # 海底捞月
    pao_long: bool = False  # chongji 抛龙

    @property
    def self_drawn(self) -> bool:
        return self.source in (WinSource.SELF_DRAW, WinSource.KONG_REPLACEMENT)


@dataclass(frozen=True, slots=True)
class FinishedHand:
    ruleset: str
    dealer: int
    seats: tuple[SeatEnd, SeatEnd, SeatEnd, SeatEnd]
    wins: tuple[Win, ...] = ()  # empty: 流局
    dealer_streak: int = 0
    prevailing_wind: int = EAST
    indicator: int | None = None  # the flipped tile (翻精 / 财神)
    an_indicator: int | None = None  # lianhua's 暗精 tile
    xia_indicator: int | None = None  # yongfeng's 下精 tile
    genzhuang_rounds: int = 0
    false_win: tuple[int, ...] = ()  # seats that declared a win that was none (诈胡)
    options: Mapping[str, Any] = field(default_factory=dict)
    last_drawer: int | None = None  # yichun: who drew last before a 流局 (deals next)
    first_dealer: int | None = None  # guangdong: who dealt the first hand (风圈 rotation)
    mai: tuple[int, ...] = ()  # yichun: seats that bought (买)
    guan_fengxiang: bool = False  # chongji: the discarder held honors to the end (关风向)

    @property
    def exhausted(self) -> bool:
        return not self.wins


# --- the JSON contract -----------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _MeldIn(_Strict):
    type: MeldType
    tiles: str
    from_: int | None = Field(default=None, alias="from", ge=0, le=3)
    claimed: str | None = None


class _SeatIn(_Strict):
    hand: str
    melds: list[_MeldIn] = []
    discards: str = ""


class _WinIn(_Strict):
    seat: int = Field(ge=0, le=3)
    tile: str
    from_: int | str = Field(alias="from")
    tian: bool = False
    di: bool = False
    last_tile: bool = False
    pao_long: bool = False


class _ExtraIn(_Strict):
    genzhuang_rounds: int = Field(default=0, ge=0)
    false_win: list[int] = []
    last_drawer: int | None = Field(default=None, ge=0, le=3)
    first_dealer: int | None = Field(default=None, ge=0, le=3)
    mai: list[int] = []
    guan_fengxiang: bool = False

    @field_validator("false_win", "mai")
    @classmethod
    def _seats(cls, v: list[int]) -> list[int]:
        for seat in v:
            if not 0 <= seat <= 3:
                raise ValueError(f"seat {seat} is not 0–3")
        return v


class _SettleIn(_Strict):
    ruleset: str
    options: dict[str, Any] = {}
    dealer: int = Field(ge=0, le=3)
    dealer_streak: int = Field(default=0, ge=0)
    prevailing_wind: str = "E"
    indicator: str | None = None
    an_indicator: str | None = None
    xia_indicator: str | None = None
    seats: list[_SeatIn] = Field(min_length=4, max_length=4)
    win: _WinIn | list[_WinIn] | None
    extra: _ExtraIn = _ExtraIn()


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("_WinIn", "list[_WinIn]"):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out or "input"


def _kinds(text: str, where: str) -> tuple[int, ...]:
    try:
        return tuple(parse_kinds(text))
    except TileNotationError as err:
        raise SettleInputError(f"{where}: {err}") from None


def _kind(text: str, where: str) -> int:
    try:
        return parse_kind(text)
    except TileNotationError as err:
        raise SettleInputError(f"{where}: {err}") from None


def _meld(m: _MeldIn, where: str) -> Meld:
    kinds = _kinds(m.tiles, f"{where}.tiles")
    claimed = _kind(m.claimed, f"{where}.claimed") if m.claimed is not None else None
    if m.type is MeldType.KONG_CONCEALED:
        if m.from_ is not None:
            raise SettleInputError(f"{where}.from: a concealed kong is claimed from nobody")
    elif m.from_ is None:
        raise SettleInputError(f"{where}.from: a {m.type.value} needs the seat it came from")
    if claimed is not None and claimed not in kinds:
        raise SettleInputError(f"{where}.claimed: {m.claimed} is not in {m.tiles}")
    if claimed is None and m.type in (MeldType.PUNG, MeldType.KONG_EXPOSED, MeldType.KONG_ADDED):
        claimed = kinds[0]
    try:
        return Meld(m.type, kinds, m.from_, claimed)
    except ValueError as err:
        raise SettleInputError(f"{where}: {err}") from None


def _win(w: _WinIn, where: str) -> Win:
    tile = _kind(w.tile, f"{where}.tile")
    src = w.from_
    flags = {"tian": w.tian, "di": w.di, "last_tile": w.last_tile, "pao_long": w.pao_long}
    if isinstance(src, int):
        if not 0 <= src <= 3 or src == w.seat:
            raise SettleInputError(f"{where}.from: {src} is not another seat")
        return Win(w.seat, tile, WinSource.DISCARD, src, **flags)
    if src == "self":
        return Win(w.seat, tile, WinSource.SELF_DRAW, None, **flags)
    if src == "kong_replacement":
        return Win(w.seat, tile, WinSource.KONG_REPLACEMENT, None, **flags)
    if src.startswith("rob_kong:"):
        seat = src.removeprefix("rob_kong:")
        if seat.isdigit() and 0 <= int(seat) <= 3 and int(seat) != w.seat:
            return Win(w.seat, tile, WinSource.ROB_KONG, int(seat), **flags)
    raise SettleInputError(
        f"{where}.from: {src!r} is not a seat, 'self', 'rob_kong:<seat>' or 'kong_replacement'"
    )


def parse_finished_hand(data: Mapping[str, Any]) -> FinishedHand:
    """Read the ``mjtable settle`` JSON object; errors name the field."""
    try:
        req = _SettleIn.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        msg = first["msg"]
        if first["type"] == "extra_forbidden":
            msg = "unknown field"
        raise SettleInputError(f"{_where(first['loc'])}: {msg}") from None

    seats: list[SeatEnd] = []
    for i, s in enumerate(req.seats):
        where = f"seats[{i}]"
        melds = tuple(_meld(m, f"{where}.melds[{j}]") for j, m in enumerate(s.melds))
        seats.append(
            SeatEnd(_kinds(s.hand, f"{where}.hand"), melds, _kinds(s.discards, f"{where}.discards"))
        )

    if req.win is None:
        wins: tuple[Win, ...] = ()
    elif isinstance(req.win, list):
        wins = tuple(_win(w, f"win[{i}]") for i, w in enumerate(req.win))
    else:
        wins = (_win(req.win, "win"),)

    wind = _kind(req.prevailing_wind, "prevailing_wind")
    if not EAST <= wind <= NORTH:
        raise SettleInputError(f"prevailing_wind: {req.prevailing_wind!r} is not a wind")

    def opt_kind(text: str | None, where: str) -> int | None:
        return None if text is None else _kind(text, where)

    hand = FinishedHand(
        ruleset=req.ruleset,
        dealer=req.dealer,
        seats=(seats[0], seats[1], seats[2], seats[3]),
        wins=wins,
        dealer_streak=req.dealer_streak,
        prevailing_wind=wind,
        indicator=opt_kind(req.indicator, "indicator"),
        an_indicator=opt_kind(req.an_indicator, "an_indicator"),
        xia_indicator=opt_kind(req.xia_indicator, "xia_indicator"),
        genzhuang_rounds=req.extra.genzhuang_rounds,
        false_win=tuple(req.extra.false_win),
        options=dict(req.options),
        last_drawer=req.extra.last_drawer,
        first_dealer=req.extra.first_dealer,
        mai=tuple(sorted(set(req.extra.mai))),
        guan_fengxiang=req.extra.guan_fengxiang,
    )
    check_tiles(hand)
    return hand


_SHARED_TILE = frozenset({WinSource.DISCARD, WinSource.ROB_KONG})


def check_tiles(hand: FinishedHand, flipped_out_of_play: bool = False) -> None:
    """Tile counts: 13 a seat (14 a winner), at most four of a kind on the table."""
    winners = {w.seat for w in hand.wins}
    if len(winners) != len(hand.wins):
        raise SettleInputError("win: a seat is listed twice")
    if len(hand.wins) > 1:
        # 一炮多响: several seats win on one tile, a discard or the tile added to a kong
        # (抢杠), which its seat pays for as it would a discard
        sources = {w.source for w in hand.wins}
        if not sources <= _SHARED_TILE or len(sources) > 1:
            raise SettleInputError(
                "win: several winners must all win on a discard, or all rob the same kong"
            )
        if len({(w.discarder, w.tile) for w in hand.wins}) > 1:
            raise SettleInputError("win: several winners must win on the same tile")
    for i, seat in enumerate(hand.seats):
        want = 14 if i in winners else 13
        if seat.tile_count != want:
            which = "大相公" if seat.tile_count > want else "小相公"
            raise SettleInputError(
                f"seats[{i}].hand: {seat.tile_count} tiles counting melds, "
                f"a {'winner' if want == 14 else 'seat'} holds {want} ({which})"
            )
    for w in hand.wins:
        if w.tile not in hand.seats[w.seat].concealed:
            raise SettleInputError(
                f"win: the winning tile {format_kinds([w.tile])} is not in seats[{w.seat}].hand"
            )
    totals = [0] * 34
    for seat in hand.seats:
        for k in seat.concealed:
            totals[k] += 1
        for meld in seat.melds:
            for k in meld.kinds:
                totals[k] += 1
        for k in seat.discards:
            totals[k] += 1
    if flipped_out_of_play and hand.indicator is not None:
        totals[hand.indicator] += 1
    if len(hand.wins) > 1:
        # several winners on one tile each hold it: count it once
        totals[hand.wins[0].tile] -= len(hand.wins) - 1
    for kind, n in enumerate(totals):
        if n > 4:
            raise SettleInputError(
                f"seats: {n} tiles of {format_kinds([kind])} on the table, there are only 4"
            )
