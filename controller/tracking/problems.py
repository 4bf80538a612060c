"""What the tracker finds wrong, and when it says so: at once, once per cause, or after a
grace time. Each alert's public form names seats and zones only; which tile is the private
detail (``controller.table.alerts``).

An observation no rule explains may be a move half reported; it becomes an alert only if
it is still unexplained ``grace`` seconds later (a tile in two zones, a tile where it
should not be or missing, a seat with the wrong count: 相公).

While the hand waits for staff (``held``) its own discrepancies are not alerted: the one
"waiting for staff" notice says the table no longer follows it, and what the readers see
meanwhile (the players play on, a tile comes and goes) would only say so again and again.
What staff need whatever the hand (a reader, the board, a tag that is no tile of the set)
still goes out; once staff end the hand nothing of it is remembered.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

import structlog

from controller.table.alerts import Alert, AlertKind, PublicAlert
from controller.tracking.picture import TablePicture
from controller.words.zones import zone_words
from engine.round.events import Event, WinRejected
from engine.round.narration import seat_name
from engine.round.state import SEATS, Phase, RoundState
from engine.tiles import kind_name, kind_of
from firmware_bridge.rfid.zones import ZoneKind

log = structlog.get_logger("controller.tracking.tracker")

QUIET_PHASES = (Phase.SETTLE, Phase.DONE)
"""The hand is over: nothing more is tracked."""
MAX_ONCE = 4096
"""Causes remembered as alerted once (tags, refused actions) per wall; beyond, the oldest
may be alerted again (the service's AlertGate sums repeats up)."""
HAND_KINDS = frozenset(
    {
        AlertKind.XIANGGONG,
        AlertKind.DUPLICATE_TAG,
        AlertKind.TILE_MISPLACED,
        AlertKind.TILE_MISSING,
        AlertKind.REFUSED,
        AlertKind.FALSE_WIN,
    }
)
"""The kinds that say the hand's play and the table's picture disagree: quiet while the
hand waits for staff (the readers' picture is then no longer applied to it)."""
_BEFORE_PLAY = (Phase.SHUFFLE, Phase.BREAK_DICE, Phase.SECOND_DICE, Phase.DEAL)


def _tile(t: int) -> str:
    """A tile for the owner's detail: its kind (5s) and which of the 136 it is."""
    return f"{kind_name(kind_of(t))}（第{t}号牌）"


class TrackerAlerts:
    """Where the tracker's alerts go, and what it remembers to raise each one only once."""

    def __init__(self, sink: Callable[[Alert], None], grace: float) -> None:
        self._sink = sink
        self.grace = grace
        self._once: dict[Hashable, None] = {}  # insertion-ordered: the oldest go first
        self._since: dict[Hashable, float] = {}
        self._alerted: set[Hashable] = set()
        self._held = False

    def reset(self) -> None:
        """A new wall: what was alerted for the old one may be alerted again."""
        self._once.clear()
        self._since.clear()
        self._alerted.clear()

    @property
    def held(self) -> bool:
        """The hand waits for staff (``Tracker.held``): its ``HAND_KINDS`` are not alerted."""
        return self._held

    @held.setter
    def held(self, held: bool) -> None:
        if self._held and not held:
            self.reset()  # staff ended the hand: nothing of it carries over to the next
        self._held = held

    def now(self, alert: Alert) -> None:
        if self._held and alert.kind in HAND_KINDS:
            log.debug("alert kept back: the hand waits for staff", kind=alert.kind.value)
            return
        self._sink(alert)  # (logged where it goes out: a flood is summed up first)

    def once(self, key: Hashable, alert: Alert) -> None:
        """Raise ``alert`` unless one was raised for ``key`` since the last reset."""
        if key not in self._once:
            self._once[key] = None
            if len(self._once) > MAX_ONCE:  # a flood of distinct tags: memory stays bounded
                del self._once[next(iter(self._once))]
            self.now(alert)

    def win_rejections(self, events: Iterable[Event]) -> None:
        """诈胡: a 胡 the engine refused (相公 when the seat holds the wrong count)."""
        for e in events:
            if isinstance(e, WinRejected):
                kind = AlertKind.XIANGGONG if e.code == "xianggong" else AlertKind.FALSE_WIN
                self.now(
                    Alert(PublicAlert(kind, e.seat), f"诈胡 {seat_name(e.seat, 'zh')}: {e.reason}")
                )

    def check(self, st: RoundState | None, picture: TablePicture, now: float) -> None:
        """Alert what has stayed unexplained for the grace time; forget what resolved."""
        found: dict[Hashable, Alert] = {}
        if st is not None and st.phase not in (*QUIET_PHASES, Phase.XIA_DICE):
            found = find_problems(st, picture)
        for key in list(self._since):
            if key not in found:
                del self._since[key]
                self._alerted.discard(key)
        for key, alert in found.items():
            first = self._since.setdefault(key, now)
            if now - first >= self.grace and key not in self._alerted:
                self._alerted.add(key)
                self.now(alert)


def find_problems(st: RoundState, picture: TablePicture) -> dict[Hashable, Alert]:
    """What the table shows that the hand does not explain, by cause."""
    found: dict[Hashable, Alert] = {}
    expected = picture.expected_zones(st)
    before_play = st.phase in _BEFORE_PLAY
    counts = picture.counts()
    off: set[int] = set()
    for s in range(SEATS):
        if picture.hand(s) not in picture.observed:
            continue  # its reader is silent (alerted as such): no count to judge
        have, want = counts[picture.hand(s)], len(st.hands[s])
        if before_play:
            want = 14 if s == st.dealer else 13
            if have <= want:
                continue
        if have != want:
            off.add(s)
            held = set(picture.tiles_in(picture.hand(s)))
            extra = " ".join(kind_name(kind_of(t)) for t in sorted(held - set(st.hands[s])))
            lack = " ".join(kind_name(kind_of(t)) for t in sorted(set(st.hands[s]) - held))
            detail = (f" 多: {extra}" if extra else "") + (f" 少: {lack}" if lack else "")
            found[("xianggong", s)] = Alert(
                PublicAlert(AlertKind.XIANGGONG, s, (picture.hand(s),), have=have, want=want),
                f"相公：{seat_name(s, 'zh')}手里有{have}张牌，应有{want}张{detail}",
            )
    for t in picture.read_tiles():
        zs = picture.zones_of(t)
        if len(zs) > 1:
            where = "、".join(zone_words(z) for z in zs)
            found[("duplicate_tag", t)] = Alert(
                PublicAlert(AlertKind.DUPLICATE_TAG, zones=tuple(zs)),
                f"{_tile(t)}同时在{where}被读到",
            )
        here, want_zone = zs[-1], expected.get(t)
        if t in expected and want_zone is None:
            continue  # the engine puts it where no reader looks
        if here == want_zone:
            continue
        if here.kind is ZoneKind.HAND and (before_play or here.seat in off):
            continue  # being dealt, or the seat's count alert says it
        found[("tile_misplaced", t)] = Alert(
            PublicAlert(AlertKind.TILE_MISPLACED, here.seat, (here,)),
            f"{_tile(t)}在{zone_words(here)}，牌局里它在"
            f"{'牌墙' if want_zone is None else zone_words(want_zone)}",
        )
    for t, want_zone in expected.items():
        if want_zone is not None and picture.zone_of(t) is None:
            found[("tile_missing", t)] = Alert(
                PublicAlert(AlertKind.TILE_MISSING, want_zone.seat, (want_zone,)),
                f"{_tile(t)}在{zone_words(want_zone)}没读到",
            )
    return found
