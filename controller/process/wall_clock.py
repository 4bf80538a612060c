"""The wall clock is a fact a table records, never what decides order or what is kept.

A Raspberry Pi has no battery-backed clock: until NTP answers it may say 1970 (or the
time it last shut down), then jump forward, and a bad NTP source can move it back. So a
table orders its hands by its own sequence (``hands.table_seq``, an event's ``seq``),
measures durations with the monotonic clock, and stores the wall time with a flag saying
whether it could be trusted (:func:`clock_synced`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

# No table runs this code before it was written: a clock before this has not been set.
BUILT = datetime(2026, 12, 1, tzinfo=UTC)
# systemd-timesyncd creates this once it has synchronised the clock (since systemd 239).
SYNCHRONIZED = Path("/run/systemd/timesync/synchronized")


def clock_synced(now: datetime | None = None, flag: Path = SYNCHRONIZED) -> bool | None:
    """False: the clock is not set (before the build date); True: timesyncd synchronised
    it; None: it looks plausible, but nothing here says it was synchronised."""
    if (now or datetime.now(UTC)) < BUILT:
        return False
    if flag.exists():
        return True
    return None
