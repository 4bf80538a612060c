"""The players' phones at this table (docs/play.md): the session's join code, shown as a QR
code on the display, and one phone a seat, each with a seat token of its own.

Both are bounded: a code belongs to one session and expires (a photo of last week's
code joins nothing); a seat token belongs to one seat of one session and expires too.
Only a token's hash is kept. With the table's store (``PhoneRecords``) both are kept
there too, so a restart keeps the phones seated, and each join, leave and release is
recorded (who, when). Thread-safe: routes run on the event loop and in worker threads.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.store.phone_records import HeldSeat, PhoneRecords

SEATS = 4
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O, 1/I: read off a screen
CODE_LEN = 6
TOKEN_HEADER = "X-Seat-Token"
COOKIE = "mjtable_seat"


def seat_words(seat: int) -> str:
    """A seat as people say it: 1-based."""
    return f"{seat + 1}号位"


class PlayRefused(Exception):
    """What a phone asked cannot be done; ``status`` and a Chinese-first ``detail``."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass(frozen=True, slots=True)
class SeatSession:
    """One phone on one seat for one session: ``sid`` names the phone in the hand's
    events (never the token)."""

    seat: int
    name: str
    member_id: str | None
    session_key: str
    sid: str
    expires: float

    @property
    def who(self) -> str:
        """The actor of the phone's acts, as a hand's events name it (at most 64)."""
        kind = f"member:{self.member_id}" if self.member_id else "guest"
        return f"seat{self.seat}:{kind}:phone:{self.sid}"


@dataclass(frozen=True, slots=True)
class JoinCode:
    code: str
    session_key: str
    expires: float


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class PhoneSeats:
    """The session's join code and the seats' phones."""

    def __init__(
        self,
        code_ttl: float = 4 * 3600.0,
        seat_ttl: float = 8 * 3600.0,
        clock: Callable[[], float] = time.time,  # (the wall clock: expiries outlive a restart)
        records: PhoneRecords | None = None,
    ) -> None:
        self.code_ttl = code_ttl
        self.seat_ttl = seat_ttl
        self.clock = clock
        self.records = records
        self._code: JoinCode | None = None
        self._seats: dict[int, tuple[str, SeatSession]] = {}  # seat -> (token hash, session)
        self._lock = threading.Lock()
        if records is not None:  # what the store kept before a restart
            kept = records.code()
            self._code = None if kept is None else JoinCode(*kept)
            for h in records.seats():
                session = SeatSession(h.seat, h.name, h.member_id, h.session_key, h.sid, h.expires)
                self._seats[h.seat] = (h.token_hash, session)

    def code(self, session_key: str) -> JoinCode:
        """The join code of ``session_key``: a new one for a new session or once expired."""
        now = self.clock()
        with self._lock:
            held = self._code
            if held is None or held.session_key != session_key or held.expires <= now:
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))
                held = self._code = JoinCode(code, session_key, now + self.code_ttl)
                if self.records is not None:
                    self.records.keep_code(held.code, session_key, held.expires)
            return held

    def check_code(self, session_key: str, code: str) -> None:
        now = self.clock()
        with self._lock:
            held = self._code
            ok = (
                held is not None
                and held.session_key == session_key
                and held.expires > now
                and secrets.compare_digest(held.code.encode(), code.upper().encode())
            )
        if not ok:
            raise PlayRefused(
                403, "入桌码已过期或不对：请扫描桌上屏幕的二维码 (join code stale or wrong)"
            )

    def join(
        self, seat: int, name: str, member_id: str | None, session_key: str
    ) -> tuple[str, SeatSession]:
        """A new phone on ``seat`` (free, or held by an expired or earlier session's phone):
        its token and session; refused (409) when another phone holds the seat, or when
        the member sits at another seat already."""
        now = self.clock()
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._drop_stale(now, session_key)
            if seat in self._seats:
                raise PlayRefused(
                    409, f"{seat_words(seat)}已有人入座 (seat {seat + 1} is taken by another phone)"
                )
            for other, (_, held) in self._seats.items():
                if member_id is not None and held.member_id == member_id:
                    raise PlayRefused(
                        409,
                        f"您已在{seat_words(other)}入座 (you sit at seat {other + 1} already)",
                    )
            session = SeatSession(
                seat, name, member_id, session_key, secrets.token_hex(4), now + self.seat_ttl
            )
            self._seats[seat] = (_hash(token), session)
            if self.records is not None:
                self.records.sit(_held(_hash(token), session))
        return token, session

    def of(self, token: str | None, session_key: str) -> SeatSession:
        """The phone holding ``token`` in ``session_key``; refused (401) otherwise."""
        if token:
            now = self.clock()
            want = _hash(token)
            with self._lock:
                self._drop_stale(now, session_key)
                for held_hash, session in self._seats.values():
                    if secrets.compare_digest(held_hash, want):
                        return session
        raise PlayRefused(401, "请先扫码入座 (join a seat first: scan the table's QR code)")

    def release(self, seat: int, act: str = "release", by: str = "") -> SeatSession | None:
        """Free ``seat`` (staff's ``release``, or the phone's ``leave``), recorded as ``by``
        did it: the phone that held it, if any."""
        with self._lock:
            held = self._seats.pop(seat, None)
            if held is not None and self.records is not None:
                self.records.free(_held(*held), act, by or f"phone:{held[1].sid}")
        return None if held is None else held[1]

    def taken(self, session_key: str) -> list[str | None]:
        """Each seat's player's name (None: free), for this session."""
        now = self.clock()
        with self._lock:
            self._drop_stale(now, session_key)
            return [self._seats[s][1].name if s in self._seats else None for s in range(SEATS)]

    def _drop_stale(self, now: float, session_key: str) -> None:
        for seat, (token_hash, held) in list(self._seats.items()):
            if held.expires <= now or held.session_key != session_key:
                del self._seats[seat]
                if self.records is not None:
                    self.records.free(_held(token_hash, held))


def _held(token_hash: str, s: SeatSession) -> HeldSeat:
    return HeldSeat(s.seat, token_hash, s.name, s.member_id, s.session_key, s.sid, s.expires)
