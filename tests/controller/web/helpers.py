"""Real hands for the web tests: bots play them with the engine, the store logs them."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient
from playwright.sync_api import Locator, expect

from controller.store import EventStore
from engine.round.state import RoundState
from engine.session import Session
from engine.simulation import play_hand


@dataclass
class Filled:
    session_id: str
    finished: list[str] = field(default_factory=list)
    open_hand: str | None = None
    results: dict[str, str] = field(default_factory=dict)


def result_of(state: RoundState) -> tuple[str, int | None, int | None]:
    if not state.wins:
        return "draw", None, None
    win = state.wins[0]
    return ("self_draw" if win.source == "self" else "win"), win.seat, win.discarder


def fill_store(
    store: EventStore,
    *,
    ruleset: str = "xingguo",
    hands: int = 3,
    seed: int = 7,
    table_id: str = "t1",
    parlour: str = "demo",
    open_hand: bool = True,
    options: dict[str, Any] | None = None,
) -> Filled:
    """``hands`` finished hands in one session, then (optionally) one left half-played."""
    rng = random.Random(seed)
    session = Session(ruleset, dict(options or {}))
    sid = store.start_session(ruleset=ruleset, parlour=parlour, table_id=table_id)
    filled = Filled(sid)
    for _ in range(hands):
        started = session.next_hand()
        state, log = play_hand(started, rng)
        assert state.settlement is not None
        events = [e.to_dict() for e in log]
        hid = store.start_hand(
            ruleset=ruleset,
            hand_no=started.hand_no,
            session_id=sid,
            dealer=started.dealer,
            events=events[:1],
        )
        store.append(hid, events[1:])
        result, winner, discarder = result_of(state)
        store.record_settlement(
            hid, state.settlement.as_dict(), result=result, winner=winner, discarder=discarder
        )
        session.record(state.settlement)
        filled.finished.append(hid)
        filled.results[hid] = result
    if open_hand:
        started = session.next_hand()
        _, log = play_hand(started, rng)
        half = [e.to_dict() for e in log[: len(log) // 2]]
        filled.open_hand = store.start_hand(
            ruleset=ruleset,
            hand_no=started.hand_no,
            session_id=sid,
            dealer=started.dealer,
            events=half,
        )
    return filled


def bearer(client: TestClient, name: str, password: str) -> dict[str, str]:
    """Log ``name`` in; the token as a header (the cookie dropped: only the header counts)."""
    r = client.post("/api/v1/auth/login", json={"name": name, "password": password})
    assert r.status_code == 200, r.text
    client.cookies.clear()
    return {"Authorization": f"Bearer {r.json()['token']}"}


def wait_image_loaded(image: Locator) -> None:
    """Until ``image`` (one <img>) has its source and has decoded it, without a JavaScript
    predicate: Playwright polls a string one by evaluating it, which our pages' CSP
    refuses. A broken image loads too, and fails the width check."""
    expect(image).to_have_attribute("src", re.compile("."))
    expect(image).to_have_js_property("complete", True)
    assert image.evaluate("i => i.naturalWidth") > 0
