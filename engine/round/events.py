"""What happened in a hand: frozen events, one JSON object each (a log is JSON lines).

Events hold physical tile ids (0–135), never kinds, so the log can be re-folded exactly.
Every event has a stable ``type`` name. ``public_dict`` is the projection a display may
see: it drops the wall order, concealed tiles, draws and lianhua's 暗精.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict  # (pydantic reads typing's only from Python 3.12)

from engine.errors import CorruptLog
from engine.settlement.ledger import Amount, Line, Settlement

DicePurpose = Literal["break", "break_second", "jing", "xia_jing"]
FlipName = Literal["jing", "caishen", "xia_jing"]
ClaimName = Literal["win", "kong", "pung", "chow"]
KongName = Literal["concealed", "exposed", "added"]
SourceName = Literal["self", "discard", "rob_kong", "kong_replacement"]
# what a log's numbers may be (checked when a log is read: ``event_from_dict``)
Seat = Annotated[int, Field(ge=0, le=3)]
TileId = Annotated[int, Field(ge=0, le=135)]  # a physical tile, or a wall position
Die = Annotated[int, Field(ge=1, le=6)]
Wind = Annotated[int, Field(ge=27, le=30)]  # 东 南 西 北 as kinds
ClaimedPair = Annotated[tuple[TileId, ...], Field(min_length=2, max_length=2)]
# a settlement's amount: an int, or an exact fraction as "7/2" (never a float: a replay
# must compare equal)
WireAmount = int | Annotated[str, StringConstraints(pattern=r"^-?[0-9]+/[1-9][0-9]*$")]
# one settlement line ("from" is a keyword, hence the call form)
LineDict = TypedDict(
    "LineDict", {"code": str, "reason": str, "from": Seat, "to": Seat, "amount": WireAmount}
)
with_config(ConfigDict(extra="forbid"))(LineDict)


@with_config(ConfigDict(extra="forbid"))
class SettlementDict(TypedDict):
    """The Settled event's payload (``engine.round.finish.settlement_to_dict``): a log is
    read back into a session and the owners' pages, so every value is checked."""

    lines: list[LineDict]
    net: Annotated[list[WireAmount], Field(min_length=4, max_length=4)]
    next_dealer: Seat
    void: bool
    dealer_streak: Annotated[int, Field(ge=0)]
    prevailing_wind: Wind | None
    notes: list[str]
    house_fee: WireAmount


def _listify(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_listify(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Event:
    type: ClassVar[str] = "event"
    secret: ClassVar[tuple[str, ...]] = ()  # fields a public projection leaves out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            out[f.name] = _listify(getattr(self, f.name))
        return out

    def public_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.to_dict().items() if k not in self.secret}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of ``Event.to_dict``; raises ``CorruptLog`` (a ValueError) naming an unknown
    type or field, or the first field whose value the event cannot hold (a type, a seat, a
    tile id …)."""
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise CorruptLog(f"unknown event type {kind!r}")
    names = {f.name for f in fields(cls)}
    extra = set(data) - names - {"type"}
    if extra:
        raise CorruptLog(f"{kind}: unknown field(s) {', '.join(sorted(extra))}")
    try:
        # strict, as JSON: no "3" or 3.0 or true for a number; arrays become tuples
        text = json.dumps({k: v for k, v in data.items() if k != "type"})
        reader = _READERS.get(cls.type)
        if reader is None:
            reader = _READERS[cls.type] = TypeAdapter(cls)
        event: Event = reader.validate_json(text, strict=True)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise CorruptLog(f"{kind}.{where}: {first['msg']}") from None
    except TypeError as err:  # a value JSON cannot hold (from a caller's dict)
        raise CorruptLog(f"{kind}: {err}") from None
    return event


_READERS: dict[str, TypeAdapter[Event]] = {}  # by event type, built when first read


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    type: ClassVar[str] = "hand_started"
    ruleset: str
    dealer: Seat
    hand_no: int = 1
    dealer_streak: int = 0
    prevailing_wind: Wind = 27
    first_dealer: Seat | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Shuffled(Event):
    """The wall order by position (a reader in the lift), or None when it is not known."""

    type: ClassVar[str] = "shuffled"
    secret: ClassVar[tuple[str, ...]] = ("order",)
    order: tuple[TileId, ...] | None = None


Hex64 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
Name = Annotated[str, StringConstraints(max_length=64)]


@dataclass(frozen=True, slots=True)
class DiceCommitted(Event):
    """The hand's dice seed, drawn before the walls rose; ``commitment`` is its SHA-256
    (``controller.table.dice``), public at once with the table, session and hand number. The
    seed itself is secret until ``DiceSeedRevealed``. ``before_walls``: the table had no
    wall order when it drew the seed (False: a hand started on walls already up, e.g.
    after a restart; its commitment proves nothing about those walls)."""

    type: ClassVar[str] = "dice_committed"
    secret: ClassVar[tuple[str, ...]] = ("seed",)
    commitment: Hex64
    table: Name
    session: Name
    hand_no: int
    seed: Hex64
    before_walls: bool = True


@dataclass(frozen=True, slots=True)
class DiceSeedRevealed(Event):
    """After the settlement: the seed behind the hand's ``DiceCommitted``, made public."""

    type: ClassVar[str] = "dice_seed_revealed"
    seed: Hex64


@dataclass(frozen=True, slots=True)
class DiceRolled(Event):
    type: ClassVar[str] = "dice_rolled"
    purpose: DicePurpose
    seat: Seat
    a: Die
    b: Die


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """Each seat's tiles in the order taken (跳庄 deal)."""

    type: ClassVar[str] = "dealt"
    secret: ClassVar[tuple[str, ...]] = ("tiles",)
    tiles: tuple[tuple[TileId, ...], ...]


@dataclass(frozen=True, slots=True)
class JingFlipped(Event):
    """翻精 / 财神 / 下精. ``under_tile`` is lianhua's 暗精: recorded, never public."""

    type: ClassVar[str] = "jing_flipped"
    secret: ClassVar[tuple[str, ...]] = ("under_tile",)
    purpose: FlipName
    position: TileId
    tile: TileId
    under_tile: TileId | None = None


@dataclass(frozen=True, slots=True)
class Drew(Event):
    type: ClassVar[str] = "drew"
    secret: ClassVar[tuple[str, ...]] = ("tile", "position")
    seat: Seat
    tile: TileId
    position: TileId


@dataclass(frozen=True, slots=True)
class ReplacementDrawn(Event):
    type: ClassVar[str] = "replacement_drawn"
    secret: ClassVar[tuple[str, ...]] = ("tile", "position")
    seat: Seat
    tile: TileId
    position: TileId


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    """``declined_win``: the seat could have won by self-draw and discarded instead. Secret:
    it would tell the table that the discarder's concealed hand was a winning one."""

    type: ClassVar[str] = "discarded"
    secret: ClassVar[tuple[str, ...]] = ("declined_win",)
    seat: Seat
    tile: TileId
    declined_win: bool = False


@dataclass(frozen=True, slots=True)
class ClaimDeclared(Event):
    """A seat claims the discard (or, for ``win``, the tile of an added kong). ``tiles`` is
    secret: a claim that loses to a higher one never shows them."""

    type: ClassVar[str] = "claim_declared"
    secret: ClassVar[tuple[str, ...]] = ("tiles",)
    seat: Seat
    claim: ClaimName
    tiles: tuple[TileId, ...] = ()  # the claimer's own tiles that go into the meld


@dataclass(frozen=True, slots=True)
class Passed(Event):
    type: ClassVar[str] = "passed"
    seat: Seat


@dataclass(frozen=True, slots=True)
class ClaimsResolved(Event):
    """The window is closed; ``passed`` are the seats that let the tile go (漏胡)."""

    type: ClassVar[str] = "claims_resolved"
    tile: TileId
    passed: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class Chowed(Event):
    type: ClassVar[str] = "chowed"
    seat: Seat
    from_seat: Seat
    tile: TileId
    tiles: ClaimedPair  # the claimer's two


@dataclass(frozen=True, slots=True)
class Punged(Event):
    type: ClassVar[str] = "punged"
    seat: Seat
    from_seat: Seat
    tile: TileId
    tiles: ClaimedPair  # the claimer's two


@dataclass(frozen=True, slots=True)
class Konged(Event):
    """``tiles``: the tiles that leave the hand (4 concealed, 3 exposed, 1 added)."""

    type: ClassVar[str] = "konged"
    secret: ClassVar[tuple[str, ...]] = ()
    seat: Seat
    kong: KongName
    tiles: tuple[TileId, ...]
    from_seat: Seat | None = None
    tile: TileId | None = None  # the claimed discard (exposed)

    def public_dict(self) -> dict[str, Any]:
        out = Event.public_dict(self)
        if self.kong == "concealed":
            out["tiles"] = []  # 暗杠 lies face down
        return out


@dataclass(frozen=True, slots=True)
class WinDeclared(Event):
    type: ClassVar[str] = "win_declared"
    seat: Seat
    tile: TileId
    source: SourceName
    discarder: Seat | None = None  # the discarder, or the robbed seat
    tian: bool = False
    di: bool = False
    last_tile: bool = False


@dataclass(frozen=True, slots=True)
class WinRejected(Event):
    """诈胡 (or a win the ruleset bars here): play goes on; ``penalised`` lists the seat."""

    type: ClassVar[str] = "win_rejected"
    seat: Seat
    code: str
    reason: str
    penalised: bool = False


@dataclass(frozen=True, slots=True)
class Exhausted(Event):
    """流局: the live wall is used up and nobody won."""

    type: ClassVar[str] = "exhausted"


@dataclass(frozen=True, slots=True)
class Settled(Event):
    """The ruleset's settlement (``settlement_to_dict`` below)."""

    type: ClassVar[str] = "settled"
    settlement: SettlementDict


# --- the Settled event's payload: a Settlement, exact --------------------------------


def amount_out(a: Amount) -> int | str:
    if type(a) is int:  # nearly every amount: skip the Fraction isinstance (an ABC check)
        return a
    if isinstance(a, Fraction):
        return int(a) if a.denominator == 1 else f"{a.numerator}/{a.denominator}"
    return a


def amount_in(a: Any) -> Amount:
    if type(a) is int:  # nearly every amount (never a bool: its type is bool)
        return a
    if isinstance(a, str):
        return Fraction(a)
    if isinstance(a, int) and not isinstance(a, bool):
        return a
    raise CorruptLog(f"not an amount: {a!r}")


def settlement_to_dict(s: Settlement) -> SettlementDict:
    """Exact (halves as ``"7/2"``), so a replay compares equal; ``net`` is for readers."""
    return {
        "lines": [
            {
                "code": ln.code,
                "reason": ln.reason,
                "from": ln.payer,
                "to": ln.payee,
                "amount": amount_out(ln.amount),
            }
            for ln in s.lines
        ],
        "net": [amount_out(n) for n in s.net],
        "next_dealer": s.next_dealer,
        "void": s.void,
        "dealer_streak": s.dealer_streak,
        "prevailing_wind": s.prevailing_wind,
        "notes": list(s.notes),
        "house_fee": amount_out(s.house_fee),
    }


def settlement_from_dict(d: SettlementDict) -> Settlement:
    """The Settlement a Settled event holds. Raises ``CorruptLog`` when a field is missing
    or holds what it cannot (a damaged row read back unchecked), or when its ``net`` (what
    the displays and the owners' pages show) is not what its lines pay."""
    try:
        lines = tuple(
            Line(ln["code"], ln["reason"], ln["from"], ln["to"], amount_in(ln["amount"]))
            for ln in d["lines"]
        )
        settlement = Settlement(
            lines=lines,
            next_dealer=d["next_dealer"],
            void=d["void"],
            dealer_streak=d["dealer_streak"],
            prevailing_wind=d["prevailing_wind"],
            notes=tuple(d["notes"]),
            house_fee=amount_in(d["house_fee"]),
        )
        net = tuple(amount_in(n) for n in d["net"])
    except KeyError as err:
        raise CorruptLog(f"settlement: no {err.args[0]!r}") from None
    except (TypeError, ValueError, ZeroDivisionError) as err:  # (Fraction's, a list's)
        raise CorruptLog(f"settlement: {err}") from None
    if net != settlement.net:
        shown = ", ".join(str(n) for n in settlement.net)
        raise CorruptLog(f"net {d['net']} is not what its lines pay ({shown})")
    return settlement


# --- acts of a person on the hand (staff or an owner): who, when and why ---------------

Role = Literal["staff", "owner", "player"]  # a player: from their phone (docs/play.md)
AccountName = Annotated[str, StringConstraints(min_length=1, max_length=64)]
# the wall clock as the service recorded it (ISO 8601): the engine has no clock
Stamp = Annotated[str, StringConstraints(min_length=1, max_length=40)]
MAX_REASON = 500  # characters; a reason is shown as text on the owner's log
MAX_POINTS = 100_000  # one adjustment or penalty, in points
Reason = Annotated[str, StringConstraints(max_length=MAX_REASON)]
Points = Annotated[int, Field(ge=1, le=MAX_POINTS)]
PenaltyName = Literal["false_win", "xianggong"]
# a seat's tiles in the ``mjtable settle`` vocabulary (notation, melds as objects)
SettleSeat = dict[str, Any]


@dataclass(frozen=True, slots=True)
class StaffAct(Event):
    """An act of a person on the hand (``engine.round.staff`` makes them)."""

    by: AccountName
    role: Role
    at: Stamp
    reason: Reason


@dataclass(frozen=True, slots=True)
class FinishedByStaff(StaffAct):
    """A hand ended by hand: ``winners`` in the ``mjtable settle`` vocabulary (laid face
    up, so public), none for 流局. ``request``, the whole ``mjtable settle`` object the
    settlement came from, holds the other seats' concealed tiles: kept, never public."""

    type: ClassVar[str] = "finished_by_staff"
    secret: ClassVar[tuple[str, ...]] = ("request",)
    winners: tuple[SettleSeat, ...]
    request: dict[str, Any]


@dataclass(frozen=True, slots=True)
class WinCorrected(StaffAct):
    """The winner's tiles as staff read them on the laid-down hand; ``read`` is what the
    readers saw (both kept). A new settlement follows."""

    type: ClassVar[str] = "win_corrected"
    secret: ClassVar[tuple[str, ...]] = ("request",)
    seat: Seat
    read: SettleSeat
    corrected: SettleSeat
    request: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ResultCorrected(StaffAct):
    """A result entered by hand (``finished_by_staff``, or a correction of one) entered
    anew after it settled: ``was`` the winners it stood on, ``winners`` the corrected ones
    (none: 流局; laid face up, so public), ``request`` the ``mjtable settle`` object the
    new settlement comes from (never public). A new settlement follows."""

    type: ClassVar[str] = "result_corrected"
    secret: ClassVar[tuple[str, ...]] = ("request",)
    was: tuple[SettleSeat, ...]
    winners: tuple[SettleSeat, ...]
    request: dict[str, Any]


# the acts a settlement by hand stands on; of them, those that entered a whole result
SettlingAct = FinishedByStaff | WinCorrected | ResultCorrected
EnteredResult = FinishedByStaff | ResultCorrected


@dataclass(frozen=True, slots=True)
class PenaltyApplied(StaffAct):
    """诈胡 or 相公: ``seat`` pays ``amount`` to each other seat; ``amount_from`` says whose
    amount it is (the ruleset's, or one the owner set where the ruleset has none)."""

    type: ClassVar[str] = "penalty_applied"
    seat: Seat
    penalty: PenaltyName
    amount: Points
    amount_from: Literal["ruleset", "owner"]


@dataclass(frozen=True, slots=True)
class Adjusted(StaffAct):
    """Points moved by hand from one seat to another, outside any settlement."""

    type: ClassVar[str] = "adjusted"
    from_seat: Seat
    to_seat: Seat
    points: Points


@dataclass(frozen=True, slots=True)
class HandVoided(StaffAct):
    """A hand voided: this one (a void settlement follows), or an earlier hand of the
    session, whose standing nets ``reverses`` takes off the totals."""

    type: ClassVar[str] = "hand_voided"
    hand_no: Annotated[int, Field(ge=1)]
    reverses: Annotated[tuple[WireAmount, ...], Field(min_length=4, max_length=4)] = (0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class FlipEntered(StaffAct):
    """The turned-up 精 (or 财神 indicator) as staff entered it, where no reader saw the
    spot (a table without readers): public once turned up, so the displays show the 精
    while the hand is played and the finish settles with it."""

    type: ClassVar[str] = "flip_entered"
    indicator: Annotated[str, StringConstraints(pattern=r"^([1-9][mps]|[ESWNCFP])$")]


@dataclass(frozen=True, slots=True)
class StaffUndone(StaffAct):
    """The last staff act of this hand taken back (``undone`` names its type)."""

    type: ClassVar[str] = "staff_undone"
    undone: str


@dataclass(frozen=True, slots=True)
class SessionClosed(StaffAct):
    """The session ends after this hand, its last: staff closed it, or the owner's daily
    cut-off did (``cause``). ``terms``: the owner's cash-out terms then in force (the
    point value, the table fee), so the cash-out reads the same wherever it is recounted.
    Not undone: the next hand starts a new session."""

    type: ClassVar[str] = "session_closed"
    cause: Literal["staff", "cutoff"]
    terms: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ClaimMade(StaffAct):
    """A player's claim of the result from their phone (``engine.round.player_claims``):
    ``winners`` (laid face up, so public; empty for a 流局), the seats whose confirmation
    settles it (``payers``), whether each enters its 精 count (``jing_counts``), and
    ``request``, the ``mjtable settle`` object as claimed (never public)."""

    type: ClassVar[str] = "claim_made"
    secret: ClassVar[tuple[str, ...]] = ("request",)
    seat: Seat
    winners: tuple[SettleSeat, ...]
    payers: tuple[Seat, ...]
    jing_counts: bool
    request: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ClaimAnswered(StaffAct):
    """A seat's answer to the pending claim: ``agree`` (确认) or not (有异议: staff are
    called); ``jing`` the (正精, 副精) it holds, or ``held``, what the settlement reads of
    the seat as a staff finish's partial seat (its counted 精 as tiles, its kongs, its
    melds that claimed one): kept, never public."""

    type: ClassVar[str] = "claim_answered"
    secret: ClassVar[tuple[str, ...]] = ("jing", "held")
    seat: Seat
    agree: bool
    jing: Annotated[tuple[int, ...], Field(max_length=2)] | None = None
    held: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ClaimJoined(StaffAct):
    """Another winner of the pending claim's discard joins it from its own phone, where
    the ruleset pays several (一炮多响): ``winner``, its own hand (laid face up, public);
    the claim now settles as ``request`` (never public) once ``payers`` confirm it anew
    (the joined winners need not: each entered its own hand)."""

    type: ClassVar[str] = "claim_joined"
    secret: ClassVar[tuple[str, ...]] = ("request",)
    seat: Seat
    winner: SettleSeat
    payers: tuple[Seat, ...]
    request: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ClaimPassed(StaffAct):
    """A seat that could have won on the pending claim's discard says it did not (没胡),
    where the ruleset pays several winners of one discard: the claim settles only once
    each such seat has joined it or said so (``engine.round.player_claims.undecided``)."""

    type: ClassVar[str] = "claim_passed"
    seat: Seat


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        HandStarted,
        DiceCommitted,
        Shuffled,
        DiceRolled,
        DiceSeedRevealed,
        Dealt,
        JingFlipped,
        Drew,
        ReplacementDrawn,
        Discarded,
        ClaimDeclared,
        Passed,
        ClaimsResolved,
        Chowed,
        Punged,
        Konged,
        WinDeclared,
        WinRejected,
        Exhausted,
        Settled,
        FinishedByStaff,
        WinCorrected,
        ResultCorrected,
        PenaltyApplied,
        Adjusted,
        HandVoided,
        FlipEntered,
        StaffUndone,
        SessionClosed,
        ClaimMade,
        ClaimAnswered,
        ClaimJoined,
        ClaimPassed,
    )
}
STAFF_ACT_TYPES = frozenset(t for t, cls in EVENT_TYPES.items() if issubclass(cls, StaffAct))
