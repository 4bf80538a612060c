"""A finished hand as the settlement sees it, and its validation.

This is the input of every ruleset's ``settle``: each seat's tiles at the end, the win (or
wins, or none for 流局), the flipped tiles and the extras that the tiles alone do not show
(跟庄 rounds, false win declarations). ``parse_finished_hand`` reads the JSON contract of
``mjtable settle`` and names the field at fault in every error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from engine.errors import EngineError
from engine.hand import Meld, MeldError, MeldType
from engine.tiles import EAST, NORTH, TileNotationError, format_kinds, parse_kind, parse_kinds


class SettleInputError(EngineError, ValueError):
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
    # partial: only what the settlement reads of a seat that did not win (``needs``): its
    # counted tiles, and ``kongs``, its kongs of other kinds by type
    partial: bool = False
    kongs: tuple[MeldType, ...] = ()

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
    hand: str = ""
    melds: list[_MeldIn] = Field(default=[], max_length=4)
    discards: str = ""
    partial: bool = False  # only what the settlement reads of a seat that did not win
    kongs: list[MeldType] = Field(default=[], max_length=4)  # a partial seat's, by type


class _WinIn(_Strict):
    seat: int = Field(ge=0, le=3)
    tile: str
    from_: int | str = Field(alias="from")
    tian: bool = False
    di: bool = False
    last_tile: bool = False
    pao_long: bool = False


# 跟庄 go-rounds a hand can hold: each takes four of the 83 tiles left after the deal
# (the first three, the dealer discarding from its 14), so at most 1 + 80 / 4
MAX_GENZHUANG_ROUNDS = 21


class _ExtraIn(_Strict):
    genzhuang_rounds: int = Field(default=0, ge=0, le=MAX_GENZHUANG_ROUNDS)
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
        if len(set(v)) != len(v):
            raise ValueError("a seat is listed twice")
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
    win: _WinIn | Annotated[list[_WinIn], Field(min_length=1, max_length=3)] | None
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


def _other_branch(loc: tuple[int | str, ...], kind: str) -> bool:
    return loc[1:2] in (("_WinIn",), ("list[_WinIn]",)) and kind in ("model_type", "list_type")


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
    except MeldError as err:
        raise SettleInputError(f"{where}: {err}") from None


def _win(w: _WinIn, where: str) -> Win:
    tile = _kind(w.tile, f"{where}.tile")
    source, discarder = win_source(w.from_, w.seat, f"{where}.from")
    flags = {"tian": w.tian, "di": w.di, "last_tile": w.last_tile, "pao_long": w.pao_long}
    return Win(w.seat, tile, source, discarder, **flags)


def win_source(src: int | str, seat: int, where: str = "from") -> tuple[WinSource, int | None]:
    """A win's ``from`` (another seat, ``self``, ``rob_kong:<seat>``, ``kong_replacement``)
    read: its source and the seat it came from. ``from_text`` writes it."""
    if isinstance(src, int):
        if not 0 <= src <= 3 or src == seat:
            raise SettleInputError(f"{where}: {src} is not another seat")
        return WinSource.DISCARD, src
    if src == "self":
        return WinSource.SELF_DRAW, None
    if src == "kong_replacement":
        return WinSource.KONG_REPLACEMENT, None
    if src.startswith("rob_kong:"):
        robbed = src.removeprefix("rob_kong:")
        if robbed.isdigit() and 0 <= int(robbed) <= 3 and int(robbed) != seat:
            return WinSource.ROB_KONG, int(robbed)
    raise SettleInputError(
        f"{where}: {src!r} is not a seat, 'self', 'rob_kong:<seat>' or 'kong_replacement'"
    )


def from_text(win: Win) -> int | str:
    """A win's ``from`` as the request writes it (``win_source`` reads it)."""
    if win.source is WinSource.DISCARD:
        assert win.discarder is not None
        return win.discarder
    if win.source is WinSource.ROB_KONG:
        return f"rob_kong:{win.discarder}"
    return win.source.value


def parse_win(data: Mapping[str, Any], where: str) -> Win:
    """One win object of the request (``where``: its field, e.g. ``win[0]``)."""
    try:
        w = _WinIn.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        msg = "unknown field" if first["type"] == "extra_forbidden" else first["msg"]
        loc = _where(first["loc"])
        field = f"{where}.{loc}" if loc != "input" else where
        raise SettleInputError(f"{field}: {msg}") from None
    return _win(w, where)


def parse_finished_hand(data: Mapping[str, Any]) -> FinishedHand:
    """Read the ``mjtable settle`` JSON object; errors name the field."""
    try:
        req = _SettleIn.model_validate(data)
    except ValidationError as err:
        errors = err.errors()
        # ``win`` is one win or a list: report the branch the input took, not the other
        first = next((e for e in errors if not _other_branch(e["loc"], e["type"])), errors[0])
        msg = first["msg"]
        if first["type"] == "extra_forbidden":
            msg = "unknown field"
        raise SettleInputError(f"{_where(first['loc'])}: {msg}") from None

    seats: list[SeatEnd] = []
    for i, s in enumerate(req.seats):
        where = f"seats[{i}]"
        melds = tuple(_meld(m, f"{where}.melds[{j}]") for j, m in enumerate(s.melds))
        if not s.partial and "hand" not in s.model_fields_set:
            raise SettleInputError(f"{where}.hand: Field required")
        if not s.partial and s.kongs:
            raise SettleInputError(f"{where}.kongs: only a partial seat gives its kongs by type")
        if any(not k.is_kong for k in s.kongs) or len(s.kongs) + len(melds) > 4:
            raise SettleInputError(f"{where}.kongs: at most four kongs, by type")
        seats.append(
            SeatEnd(
                _kinds(s.hand, f"{where}.hand"),
                melds,
                _kinds(s.discards, f"{where}.discards"),
                s.partial,
                tuple(s.kongs),
            )
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
    check_hand(hand)
    return hand


def request_of(hand: FinishedHand) -> dict[str, Any]:
    """The ``mjtable settle`` object of ``hand``: what ``parse_finished_hand`` reads back
    as the same hand (a hand's tiles sorted, its melds as they were laid)."""

    def tiles(kinds: Iterable[int]) -> str:
        return format_kinds(kinds)

    def meld(m: Meld) -> dict[str, Any]:
        out: dict[str, Any] = {"type": m.type.value, "tiles": tiles(m.kinds)}
        if m.from_seat is not None:
            out["from"] = m.from_seat
        if m.claimed is not None:
            out["claimed"] = tiles([m.claimed])
        return out

    def win(w: Win) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": w.seat, "tile": tiles([w.tile]), "from": from_text(w)}
        return out | {f: True for f in ("tian", "di", "last_tile", "pao_long") if getattr(w, f)}

    def kind(k: int | None) -> str | None:
        return None if k is None else tiles([k])

    def seat(s: SeatEnd) -> dict[str, Any]:
        out: dict[str, Any] = {
            "hand": tiles(sorted(s.concealed)),
            "melds": [meld(m) for m in s.melds],
            "discards": tiles(s.discards),
        }
        if s.partial:
            out |= {"partial": True, "kongs": [k.value for k in s.kongs]}
        return out

    extra: dict[str, Any] = {
        "genzhuang_rounds": hand.genzhuang_rounds,
        "false_win": sorted(hand.false_win),
        "last_drawer": hand.last_drawer,
        "first_dealer": hand.first_dealer,
        "guan_fengxiang": hand.guan_fengxiang,
    }
    if hand.mai:
        extra["mai"] = list(hand.mai)
    return {
        "ruleset": hand.ruleset,
        "options": dict(hand.options),
        "dealer": hand.dealer,
        "dealer_streak": hand.dealer_streak,
        "prevailing_wind": "ESWN"[hand.prevailing_wind - EAST],
        "indicator": kind(hand.indicator),
        "an_indicator": kind(hand.an_indicator),
        "xia_indicator": kind(hand.xia_indicator),
        "seats": [seat(s) for s in hand.seats],
        "win": [win(w) for w in hand.wins] or None,
        "extra": extra,
    }


_SHARED_TILE = frozenset({WinSource.DISCARD, WinSource.ROB_KONG})


def check_hand(hand: FinishedHand, flipped_out_of_play: bool = False) -> None:
    """Everything a settlement assumes of its input, whoever built it (the JSON contract,
    the round): the tiles add up, and every claim and flag could have happened."""
    check_tiles(hand, flipped_out_of_play)
    check_claims(hand)


def check_claims(hand: FinishedHand) -> None:
    """Melds come from another seat (a chow from the 上家); 天胡/地胡, 抢杠 and 杠上花 have
    the dealer, the discard, the pung or the kong they need."""
    for i, seat in enumerate(hand.seats):
        for j, meld in enumerate(seat.melds):
            where = f"seats[{i}].melds[{j}].from"
            if meld.from_seat == i:
                raise SettleInputError(f"{where}: a {meld.type.value} is claimed from another seat")
            shangjia = (i + 3) % 4
            if meld.type is MeldType.CHOW and meld.from_seat != shangjia:
                raise SettleInputError(
                    f"{where}: a chow is claimed from the 上家 (seat {shangjia}), "
                    f"not seat {meld.from_seat}"
                )
    for n, win in enumerate(hand.wins):
        _check_win(hand, win, "win" if len(hand.wins) == 1 else f"win[{n}]")


def _check_win(hand: FinishedHand, win: Win, where: str) -> None:
    source, dealer = win.source, hand.dealer
    if win.tian and win.di:
        raise SettleInputError(f"{where}.di: a win is 天胡 or 地胡, not both")
    if win.tian and win.seat != dealer:
        raise SettleInputError(f"{where}.tian: 天胡 is the dealer's win (seat {dealer})")
    if win.tian and source is not WinSource.SELF_DRAW:
        raise SettleInputError(f"{where}.tian: 天胡 is won on the dealt tiles (from 'self')")
    if win.di and win.seat == dealer:
        raise SettleInputError(f"{where}.di: 地胡 is a non-dealer's win; seat {dealer} deals")
    if win.di and source not in (WinSource.SELF_DRAW, WinSource.DISCARD):
        raise SettleInputError(
            f"{where}.di: 地胡 is won on the first draw or on the dealer's first discard"
        )
    if win.di and source is WinSource.DISCARD and win.discarder != dealer:
        raise SettleInputError(
            f"{where}.di: 地胡 on a discard is on the dealer's (seat {dealer}) first discard"
        )
    if source is WinSource.ROB_KONG:
        robbed = win.discarder
        assert robbed is not None
        if not any(
            m.type is MeldType.PUNG and m.kinds[0] == win.tile for m in hand.seats[robbed].melds
        ):
            raise SettleInputError(
                f"{where}.from: rob_kong:{robbed}, but seats[{robbed}] has no pung of "
                f"{format_kinds([win.tile])} to add the robbed tile to"
            )
    if source is WinSource.KONG_REPLACEMENT and not any(
        m.type.is_kong for m in hand.seats[win.seat].melds
    ):
        raise SettleInputError(
            f"{where}.from: kong_replacement, but seats[{win.seat}].melds hold no kong"
        )


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
        if seat.partial and i in winners:
            raise SettleInputError(f"{i + 1}号位：胡家要录入整手牌，不能只录精和杠")
        if seat.partial:
            continue  # (only what the settlement reads: ``needs.check_partial``)
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
