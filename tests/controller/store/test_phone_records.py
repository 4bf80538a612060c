"""The players' phones kept in the table's store: a restart keeps the join code and each
seat's phone (its token's hash only), expiry holds across it, and every join, leave and
release is recorded with who and when."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from controller.store import make_engine
from controller.store.migrate import upgrade
from controller.store.phone_records import PhoneRecords
from controller.web.phone_seats import PhoneSeats, PlayRefused


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_restart_keeps_the_code_and_the_seats_and_every_join_is_recorded(
    tmp_path: Path,
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 't.db'}")
    upgrade(engine)
    clock = Clock()
    phones = PhoneSeats(clock=clock, records=PhoneRecords(engine, "t1"))
    code = phones.code("s1").code
    token, guest = phones.join(0, "王五", None, "s1")
    member_token, _ = phones.join(1, "李四", "m-1", "s1")

    again = PhoneSeats(clock=clock, records=PhoneRecords(engine, "t1"))  # a restart
    assert again.code("s1").code == code
    again.check_code("s1", code)
    assert again.of(token, "s1") == guest
    assert again.taken("s1") == ["王五", "李四", None, None]
    with engine.connect() as c:  # never the token itself
        kept = c.execute(text("SELECT token_hash FROM phone_seats")).scalars().all()
    assert token not in kept and member_token not in kept

    again.release(1, "leave")
    again.release(0, "release", "staff:ann")
    joins = PhoneRecords(engine, "t1").joins()
    assert [(j["act"], j["seat"], j["name"], j["by"]) for j in joins] == [
        ("release", 0, "王五", "staff:ann"),
        ("leave", 1, "李四", f"phone:{joins[1]['sid']}"),
        ("join", 1, "李四", f"phone:{joins[1]['sid']}"),
        ("join", 0, "王五", f"phone:{guest.sid}"),
    ]
    assert joins[2]["member_id"] == "m-1" and joins[3]["member_id"] is None
    assert all(j["at"] for j in joins)

    token, _ = again.join(2, "赵六", None, "s1")
    clock.now += again.seat_ttl + 1  # expiry holds across a restart
    later = PhoneSeats(clock=clock, records=PhoneRecords(engine, "t1"))
    with pytest.raises(PlayRefused):
        later.of(token, "s1")
    with pytest.raises(PlayRefused):
        later.check_code("s1", code)
    assert later.code("s1").code != code
    assert PhoneSeats(clock=clock, records=PhoneRecords(engine, "t1")).taken("s1") == [None] * 4
    engine.dispose()
