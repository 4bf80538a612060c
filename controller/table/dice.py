"""The hand's dice, fixed before the walls rise: a seed, its commitment, its rolls.

Before the table can know the wall (before any lift order), the keeper draws a 32-byte
seed for the hand (``secrets``) and stores and publishes only its commitment::

    commitment = SHA-256("mjtable-dice-commit-v1\\n<table>\\n<session>\\n<hand_no>\\n<seed hex>")

Every roll of the hand (the break, the second break, 翻精, 下精: the n-th ``dice_rolled``
event of the hand, n from 0) is derived from the seed, never drawn::

    digest = HMAC-SHA256(key = seed, message = "roll:<n>")
    faces  = [byte % 6 + 1 for byte in digest if byte < 252]   # 252 = 42 * 6: no bias
    roll n = (faces[0], faces[1])

(Should fewer than two bytes of the 32 be under 252, chance below 1e-50, the faces go on
with HMAC-SHA256(seed, "roll:<n>:1"), ":2" ….) After the settlement the seed is published
(``dice_seed_revealed``); anyone can then recompute the commitment and every roll
(``check_dice``, ``mjtable verify-dice``). What this proves and what it does not:
docs/fairness.md.

For tests and the demo's ``--seed`` the seeds themselves are derived from that number and
the hand number, so a seeded demo rolls the same dice every run.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from engine.errors import CorruptLog
from engine.round.events import (
    DiceCommitted,
    DiceRolled,
    DiceSeedRevealed,
    Event,
    Shuffled,
    event_from_dict,
)

log = structlog.get_logger(__name__)

COMMIT_PREFIX = "mjtable-dice-commit-v1"
SEED_BYTES = 32
_UNBIASED = 252  # the largest multiple of 6 a byte can hold, plus one


def commitment_of(seed: str, table: str, session: str, hand_no: int) -> str:
    """SHA-256 (hex) of the seed (hex) with where and when it was drawn."""
    text = f"{COMMIT_PREFIX}\n{table}\n{session}\n{hand_no}\n{seed}"
    return hashlib.sha256(text.encode()).hexdigest()


def roll_of(seed: str, index: int) -> tuple[int, int]:
    """The hand's ``index``-th roll (from 0), derived from its seed (hex)."""
    key = bytes.fromhex(seed)
    faces: list[int] = []
    extra = 0
    while len(faces) < 2:
        message = f"roll:{index}" if extra == 0 else f"roll:{index}:{extra}"
        digest = hmac.new(key, message.encode(), hashlib.sha256).digest()
        faces += [b % 6 + 1 for b in digest if b < _UNBIASED]
        extra += 1
    return faces[0], faces[1]


class DiceRoller:
    """Where a hand's seed comes from: ``secrets``, or (``seed`` given: tests, the seeded
    demo) derived from that number and the hand number."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def new_seed(self, hand_no: int) -> str:
        if self.seed is None:
            return secrets.token_hex(SEED_BYTES)
        return hashlib.sha256(f"mjtable-dice:{self.seed}:{hand_no}".encode()).hexdigest()

    def commit(
        self, *, table: str, session: str, hand_no: int, before_walls: bool = True
    ) -> DiceCommitted:
        """A new hand's seed and its commitment, as the event that stores them."""
        seed = self.new_seed(hand_no)
        return DiceCommitted(
            commitment=commitment_of(seed, table, session, hand_no),
            table=table,
            session=session,
            hand_no=hand_no,
            seed=seed,
            before_walls=before_walls,
        )

    def roll(
        self, commit: DiceCommitted | None, index: int, *, purpose: str, seat: int
    ) -> tuple[int, int]:
        """The hand's ``index``-th roll: from its committed seed; a hand without one (a log
        from before commitments, resumed) rolls from ``secrets``, and says so."""
        if commit is None:
            a, b = secrets.randbelow(6) + 1, secrets.randbelow(6) + 1
        else:
            a, b = roll_of(commit.seed, index)
        log.info(
            "dice rolled",
            index=index,
            purpose=purpose,
            seat=seat,
            a=a,
            b=b,
            committed=commit is not None,
        )
        return a, b


# --- checking a hand's dice ----------------------------------------------------------------


@dataclass
class DiceCheck:
    """What a hand's log says about its dice. ``ok``: True every roll is derived from the
    committed seed; False something does not match (``problems`` says what); None the log
    has no commitment to check against. ``notes``: true, but worth knowing (the seed not
    yet published; a commitment made with the walls already up)."""

    ok: bool | None
    rolls: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return {True: "ok", False: "failed", None: "unverified"}[self.ok]

    def lines(self) -> list[str]:
        head = {
            True: f"dice: all {self.rolls} roll(s) derive from the committed seed",
            False: "dice: FAILED",
            None: "dice: no commitment in this log: its rolls cannot be checked",
        }[self.ok]
        return [
            head,
            *(f"  problem: {p}" for p in self.problems),
            *(f"  note: {n}" for n in self.notes),
        ]


def check_dice(events: Sequence[Event], context: Mapping[str, Any] | None = None) -> DiceCheck:
    """Check one hand's rolls against its commitment. ``context``: what the hand's log says
    of itself (a handlog's ``table``, ``session_id``, ``hand_no``), compared with what was
    committed to when given."""
    commits = [e for e in events if isinstance(e, DiceCommitted)]
    reveals = [e for e in events if isinstance(e, DiceSeedRevealed)]
    rolls = [e for e in events if isinstance(e, DiceRolled)]
    if not commits:
        problems = [] if not reveals else ["a seed is revealed without a commitment"]
        return DiceCheck(None if not problems else False, len(rolls), problems)
    out = DiceCheck(True, len(rolls))
    if len(commits) > 1:
        out.problems.append(f"{len(commits)} commitments in one hand")
    commit = commits[0]
    position = {id(e): n for n, e in enumerate(events)}
    first_wall = next((e for e in events if isinstance(e, Shuffled)), None)
    first_roll = rolls[0] if rolls else None
    for later, what in ((first_wall, "the wall"), (first_roll, "the first roll")):
        if later is not None and position[id(later)] < position[id(commit)]:
            out.problems.append(f"the commitment is logged after {what}")
    if not commit.before_walls:
        out.notes.append(
            "the seed was drawn with the walls already up (a start on standing walls): "
            "it proves nothing about this wall"
        )
    if context:
        for key, mine in (
            ("table", commit.table),
            ("session_id", commit.session),
            ("hand_no", commit.hand_no),
        ):
            theirs = context.get(key)
            if theirs is not None and theirs != mine:
                out.problems.append(f"the commitment names {key} {mine!r}, the log {theirs!r}")
    if reveals:
        seed = reveals[0].seed
        if len(reveals) > 1:
            out.problems.append(f"{len(reveals)} seeds revealed in one hand")
        if seed != commit.seed:
            out.problems.append("the revealed seed is not the seed stored with the commitment")
    else:
        seed = commit.seed
        out.notes.append(
            "the seed is not published yet (the hand is not settled): checked with the stored seed"
        )
    expected = commitment_of(seed, commit.table, commit.session, commit.hand_no)
    if expected != commit.commitment:
        out.problems.append(_mismatch(seed, commit, expected, context or {}))
    else:
        for n, r in enumerate(rolls):
            a, b = roll_of(seed, n)
            if (r.a, r.b) != (a, b):
                out.problems.append(
                    f"roll {n} ({r.purpose}, seat {r.seat}): logged {r.a}+{r.b}, "
                    f"the seed gives {a}+{b}"
                )
    if out.problems:
        out.ok = False
    return out


HAND_NO_REACH = 1000  # hand numbers either side tried when a commitment does not match


def _changed_field(
    seed: str, commit: DiceCommitted, context: Mapping[str, Any]
) -> tuple[str, object] | None:
    """The one field of the commitment event that, set back to another value, makes the
    seed match again: (its name, the value it was committed with); None if none does."""
    fields = {"table": commit.table, "session_id": commit.session, "hand_no": commit.hand_no}
    tries: list[tuple[str, object]] = [
        (k, context[k]) for k in fields if context.get(k) not in (None, fields[k])
    ]
    tries += [
        ("hand_no", n)
        for n in range(max(0, commit.hand_no - HAND_NO_REACH), commit.hand_no + HAND_NO_REACH)
        if n != commit.hand_no
    ]
    for key, value in tries:
        parts = fields | {key: value}
        if isinstance(parts["hand_no"], int) and isinstance(parts["table"], str):
            again = commitment_of(seed, parts["table"], str(parts["session_id"]), parts["hand_no"])
            if again == commit.commitment:
                return key, value
    return None


def _mismatch(seed: str, commit: DiceCommitted, expected: str, context: Mapping[str, Any]) -> str:
    """Why the seed does not give the commitment, in words: the field that was changed,
    or where the two digests part."""
    changed = _changed_field(seed, commit, context)
    if changed is not None:
        key, was = changed
        now = {"table": commit.table, "session_id": commit.session, "hand_no": commit.hand_no}[key]
        return (
            f"承诺记录的 {key} 被改过：承诺时是 {was!r}，现在是 {now!r}"
            f" (the seed does not match the commitment: its {key} was changed from {was!r}"
            f" to {now!r})"
        )
    k = next(i for i, (a, b) in enumerate(zip(expected, commit.commitment, strict=False)) if a != b)
    return (
        f"种子与承诺不符，自第{k + 1}位起不同：SHA-256 算得 {expected[:k]}[{expected[k:]}]，"
        f"承诺为 {commit.commitment[:k]}[{commit.commitment[k:]}]"
        f" (the seed does not match the commitment: they differ from digit {k + 1})"
    )


# The event types the check reads (the hub reads only these of a stored log).
CHECKED_TYPES = frozenset(
    cls.type for cls in (DiceCommitted, DiceSeedRevealed, DiceRolled, Shuffled)
)


def dice_check_of(
    event_dicts: Sequence[Mapping[str, Any]], context: Mapping[str, Any] | None = None
) -> DiceCheck:
    """``check_dice`` on a stored log's event dicts (reading only ``CHECKED_TYPES``; any
    other entry is skipped unread); an event it cannot read fails the check, naming its
    place in the list."""
    events: list[Event] = []
    for n, data in enumerate(event_dicts):
        if data.get("type") not in CHECKED_TYPES:
            continue
        try:
            events.append(event_from_dict(dict(data)))
        except CorruptLog as err:
            return DiceCheck(False, problems=[f"event {n}: {err}"])
    return check_dice(events, context)
