"""What a person does to a hand, as typed, frozen commands: a finish, a correction, a
penalty, an adjustment, a void, an undo, a flip entered, the session closed. ``apply``
(``engine.round.rules``) takes them as it takes the players' moves (``Action``): the
events, or a ``Rejection`` naming the field at fault, nothing changed.

Each carries its ``Audit`` (who, when, why). The tiles of a finish or a correction are in
the ``mjtable settle`` vocabulary (notation, melds as objects); ``WinnerEntry.of`` and
``SeatEntry.of`` read them from JSON objects, the one place their shape is checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from engine.round.actions import Action
from engine.round.events import MAX_REASON, PenaltyName
from engine.settlement import SettleInputError
from engine.settlement.ledger import Amount

MAX_NAME = 64
SEATS = 4


class StaffInputError(SettleInputError):
    """The act cannot be done; the message names the field at fault."""


@dataclass(frozen=True, slots=True)
class Audit:
    """Who (account and role), when (the wall clock as the service recorded it), why."""

    by: str
    role: Literal["staff", "owner", "player"]
    at: str
    reason: str = ""

    def check(self, reason_required: bool) -> None:
        if not 1 <= len(self.by) <= MAX_NAME:
            raise StaffInputError(f"by: an account name of 1–{MAX_NAME} characters")
        if self.role not in ("staff", "owner", "player"):
            raise StaffInputError(f"role: {self.role!r} is not staff, owner or player")
        if not 1 <= len(self.at) <= 40:
            raise StaffInputError("at: the time of the act is required")
        if len(self.reason) > MAX_REASON:
            raise StaffInputError(f"reason: at most {MAX_REASON} characters")
        if reason_required and not self.reason.strip():
            raise StaffInputError("reason: required for this act")


def seat_of(value: object, where: str) -> int:
    if type(value) is not int or not 0 <= value < SEATS:
        raise StaffInputError(f"{where}: a seat is 0–3")
    return value


# --- tiles in the settle vocabulary --------------------------------------------------------

Flag = Literal["tian", "di", "last_tile", "pao_long"]
FLAGS: tuple[Flag, ...] = get_args(Flag)
_MELD_KEYS = {"type", "tiles", "from", "claimed"}


@dataclass(frozen=True, slots=True)
class MeldEntry:
    """A meld as ``mjtable settle`` reads it; its tiles are checked when the hand is."""

    type: str
    tiles: str
    from_seat: int | None = None
    claimed: str | None = None

    @staticmethod
    def of(data: object, where: str) -> MeldEntry:
        if not isinstance(data, Mapping) or set(data) - _MELD_KEYS:
            raise StaffInputError(f"{where}: expected {{type, tiles, from, claimed}}")
        kind, tiles = data.get("type"), data.get("tiles")
        if not isinstance(kind, str) or not isinstance(tiles, str):
            raise StaffInputError(f"{where}: a meld has a type and its tiles")
        src, claimed = data.get("from"), data.get("claimed")
        if src is not None:
            src = seat_of(src, f"{where}.from")
        if claimed is not None and not isinstance(claimed, str):
            raise StaffInputError(f"{where}.claimed: one tile, e.g. 5s")
        return MeldEntry(kind, tiles, src, claimed)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "tiles": self.tiles}
        if self.from_seat is not None:
            out["from"] = self.from_seat
        if self.claimed is not None:
            out["claimed"] = self.claimed
        return out


def _melds(value: object, where: str) -> tuple[MeldEntry, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise StaffInputError(f"{where}: a list of melds")
    return tuple(MeldEntry.of(m, f"{where}[{i}]") for i, m in enumerate(value))


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise StaffInputError(f"{where}: tiles in notation, e.g. 123m")
    return value


@dataclass(frozen=True, slots=True)
class SeatEntry:
    """A seat's tiles as staff give them in place of what the readers saw; ``partial``:
    only what the settlement reads of a seat that did not win (``Ruleset.needs``: its
    counted 精 as tiles, its kongs, ``kongs`` those of other kinds by type)."""

    seat: int
    hand: str = ""
    melds: tuple[MeldEntry, ...] = ()
    discards: str | None = None  # entered where no reader saw them
    partial: bool = False
    kongs: tuple[str, ...] = ()

    @staticmethod
    def of(data: object, where: str) -> SeatEntry:
        if not isinstance(data, Mapping) or set(data) - _SEAT_KEYS or "seat" not in data:
            raise StaffInputError(f"{where}: expected {{seat, hand, melds}}")
        discards = data.get("discards")
        partial, kongs = data.get("partial", False), data.get("kongs", [])
        if not isinstance(partial, bool):
            raise StaffInputError(f"{where}.partial: true or false")
        if not isinstance(kongs, list) or len(kongs) > 4 or not all(k in KONGS for k in kongs):
            raise StaffInputError(f"{where}.kongs: at most four of {', '.join(KONGS)}")
        return SeatEntry(
            seat_of(data["seat"], f"{where}.seat"),
            _text(data.get("hand", ""), f"{where}.hand"),
            _melds(data.get("melds", []), f"{where}.melds"),
            None if discards is None else _text(discards, f"{where}.discards"),
            partial,
            tuple(kongs),
        )

    def held(self) -> dict[str, Any]:
        """The seat object of the settle request."""
        out: dict[str, Any] = {"hand": self.hand, "melds": [m.as_dict() for m in self.melds]}
        if self.discards is not None:
            out["discards"] = self.discards
        if self.partial:
            out |= {"partial": True, "kongs": list(self.kongs)}
        return out


KONGS = ("kong_exposed", "kong_concealed", "kong_added")
_SEAT_KEYS = {"seat", "hand", "melds", "discards", "partial", "kongs"}
_WINNER_KEYS = {"seat", "hand", "melds", "discards", "tile", "from", "flags"}


@dataclass(frozen=True, slots=True)
class WinnerEntry:
    """A winner: the hand, the winning tile and where it came from (``from``: a seat,
    ``self``, ``rob_kong:<seat>``, ``kong_replacement``), its flags."""

    seat: int
    hand: str
    tile: str
    source: int | str
    melds: tuple[MeldEntry, ...] = ()
    flags: tuple[Flag, ...] = ()
    discards: str | None = None

    @staticmethod
    def of(data: object, where: str) -> WinnerEntry:
        if not isinstance(data, Mapping):
            raise StaffInputError(f"{where}: expected an object")
        extra = set(data) - _WINNER_KEYS
        if extra:
            raise StaffInputError(f"{where}.{sorted(extra)[0]}: unknown field")
        for key in ("seat", "hand", "tile", "from"):
            if key not in data:
                raise StaffInputError(f"{where}.{key}: required")
        flags = data.get("flags", [])
        if not isinstance(flags, list) or any(f not in FLAGS for f in flags):
            raise StaffInputError(f"{where}.flags: a list of {', '.join(FLAGS)}")
        src = data["from"]
        if not isinstance(src, int | str) or isinstance(src, bool):
            raise StaffInputError(
                f"{where}.from: a seat, self, rob_kong:<seat> or kong_replacement"
            )
        discards = data.get("discards")
        return WinnerEntry(
            seat_of(data["seat"], f"{where}.seat"),
            _text(data["hand"], f"{where}.hand"),
            _text(data["tile"], f"{where}.tile"),
            src,
            _melds(data.get("melds", []), f"{where}.melds"),
            tuple(flags),
            None if discards is None else _text(discards, f"{where}.discards"),
        )

    def held(self) -> dict[str, Any]:
        return SeatEntry(self.seat, self.hand, self.melds, self.discards).held()

    def win(self) -> dict[str, Any]:
        """The win object of the settle request."""
        return {"seat": self.seat, "tile": self.tile, "from": self.source} | {
            f: True for f in self.flags
        }

    def as_dict(self) -> dict[str, Any]:
        """As the staff API writes it (kept in the ``finished_by_staff`` event)."""
        out: dict[str, Any] = {"seat": self.seat, **self.held()}
        return out | {"tile": self.tile, "from": self.source, "flags": list(self.flags)}


# --- the commands --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Finish:
    """End the hand by hand: ``winners`` (none: 流局); ``seats`` replace what the readers
    saw of other seats; the flipped tiles where no reader saw them (a table without
    readers: the hand's whole result comes this way)."""

    audit: Audit
    winners: tuple[WinnerEntry, ...] = ()
    seats: tuple[SeatEntry, ...] = ()
    xia_indicator: str | None = None
    indicator: str | None = None
    an_indicator: str | None = None

    @staticmethod
    def of(
        audit: Audit,
        winners: Sequence[object] = (),
        seats: Sequence[object] = (),
        **flips: str | None,
    ) -> Finish:
        """From JSON objects in the settle vocabulary (the staff API's, a test's)."""
        if len(winners) > 3:
            raise StaffInputError("winners: at most 3")
        return Finish(
            audit,
            tuple(WinnerEntry.of(w, f"winners[{i}]") for i, w in enumerate(winners)),
            tuple(SeatEntry.of(s, f"seats[{i}]") for i, s in enumerate(seats)),
            **flips,
        )


@dataclass(frozen=True, slots=True)
class CorrectWin:
    """The winner's tiles as staff read them on the laid-down hand."""

    audit: Audit
    seat: int
    hand: str
    melds: tuple[MeldEntry, ...] = ()

    @staticmethod
    def of(audit: Audit, seat: int, hand: str, melds: Sequence[object] = ()) -> CorrectWin:
        """From the melds as JSON objects in the settle vocabulary."""
        return CorrectWin(audit, seat, hand, _melds(melds, "melds"))


@dataclass(frozen=True, slots=True)
class CorrectResult:
    """A result entered by hand (a staff finish, the players' claim) entered anew once it
    settled, before the next hand starts: ``entry`` as ``Finish`` takes a result (who
    won and how, the tiles, the other seats, the flips no reader saw), its audit the
    correction's."""

    entry: Finish

    @property
    def audit(self) -> Audit:
        return self.entry.audit


@dataclass(frozen=True, slots=True)
class Penalise:
    """诈胡 or 相公 on ``seat``: the ruleset's amount, else ``owner_amount``."""

    audit: Audit
    seat: int
    penalty: PenaltyName
    owner_amount: int | None = None


@dataclass(frozen=True, slots=True)
class Adjust:
    audit: Audit
    from_seat: int
    to_seat: int
    points: int


@dataclass(frozen=True, slots=True)
class Void:
    """This hand: no points move, the deal stays."""

    audit: Audit


@dataclass(frozen=True, slots=True)
class VoidEarlier:
    """An earlier hand of the session, whose standing nets were ``net``."""

    audit: Audit
    hand_no: int
    net: tuple[Amount, ...]


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the last act of a person in this hand."""

    audit: Audit


@dataclass(frozen=True, slots=True)
class EnterFlip:
    """The turned-up 精 (财神 indicator) where no reader saw it: one tile in notation."""

    audit: Audit
    indicator: str


@dataclass(frozen=True, slots=True)
class CloseSession:
    """End the session after this hand, settled (``terms``: the cash-out terms in force)."""

    audit: Audit
    cause: Literal["staff", "cutoff"]
    terms: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Claim:
    """A player claims the hand's result from their phone (docs/play.md): ``winner``, their
    own win (its ``seat`` theirs), or None for a 流局; ``others``, the other winners of the
    same discard where the ruleset pays them all (一炮多响), each confirming its own hand;
    the flipped tiles no reader saw that come with the result (lianhua's 暗精, concealed
    until the hand ends; yongfeng's 下精, turned up after the win), as a finish takes them;
    for a win that robbed a kong (``from`` ``rob_kong:<seat>``), whom the robbed pung
    was claimed from (``robbed_from``).
    Checked at once; settled once the seats that pay confirm it (``AnswerClaim``)."""

    audit: Audit
    seat: int
    winner: WinnerEntry | None = None
    others: tuple[WinnerEntry, ...] = ()
    an_indicator: str | None = None
    xia_indicator: str | None = None
    robbed_from: int | None = None  # a 抢杠: whom the robbed pung was claimed from


@dataclass(frozen=True, slots=True)
class AnswerClaim:
    """A seat's answer to the pending claim: 确认 (``agree``) or 有异议; ``jing``, the
    (正精, 副精) it holds, where the settlement needs them (the jing family), or ``held``,
    the seat as a staff finish's partial seat (``Ruleset.needs``: its counted 精 as tiles,
    its kongs, its melds that claimed a counted kind), where it needs more."""

    audit: Audit
    seat: int
    agree: bool
    jing: tuple[int, int] | None = None
    held: SeatEntry | None = None  # instead of ``jing``: all the settlement reads of it


@dataclass(frozen=True, slots=True)
class PassClaim:
    """A seat that could have won on the pending claim's discard says it did not (没胡),
    where the ruleset pays several winners of one discard."""

    audit: Audit
    seat: int


StaffCommand = (
    Finish
    | CorrectWin
    | CorrectResult
    | Penalise
    | Adjust
    | Void
    | VoidEarlier
    | Undo
    | EnterFlip
    | CloseSession
    | Claim
    | AnswerClaim
    | PassClaim
)
STAFF_COMMANDS: tuple[type, ...] = get_args(StaffCommand)
# every change to a hand: a player's move, a person's act
Command = Action | StaffCommand
