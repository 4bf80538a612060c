"""docs/displays.md is the display contract: the tables there list every topic once, and
the service publishes exactly those (a real run over Mosquitto), each as retained as the
doc says, and every flat value is what the public JSON beside it says."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from controller.mqtt.flat import FLAT_NAMES, from_hand, from_scores
from controller.mqtt.topics import (
    ACK_NAME,
    HOUSE_ACK_NAME,
    HOUSE_RULES_NAME,
    MEMBERS_NAME,
    RETAINED,
    STREAMS,
    Topics,
)
from controller.runtime import running
from controller.table.alerts import Alert, AlertKind, PublicAlert
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import retained_state
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    options,
    recording,
    until,
)

DOC = Path(__file__).parents[3] / "docs" / "displays.md"
ROW = re.compile(r"^\| `([^`]+)` \| (yes|no) \|")

HOUSE = {HOUSE_RULES_NAME, HOUSE_ACK_NAME}  # hub -> table, and its answer


def documented() -> dict[str, bool]:
    """Topic name -> retained, from the doc's topic tables (``<n>``: each seat)."""
    out: dict[str, bool] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m is None:
            continue
        name, retained = m.group(1), m.group(2) == "yes"
        names = [name.replace("<n>", str(s)) for s in range(4)] if "<n>" in name else [name]
        for n in names:
            assert n not in out, f"docs/displays.md lists {n} twice"
            out[n] = retained
    return out


def test_the_doc_lists_every_topic_the_code_knows_once() -> None:
    doc = documented()
    code = {*RETAINED, *STREAMS, *FLAT_NAMES, ACK_NAME, MEMBERS_NAME, *HOUSE}
    assert set(doc) == code
    for name in code - {ACK_NAME, MEMBERS_NAME, *HOUSE}:
        assert doc[name] == Topics.retained(name), name
    assert doc[ACK_NAME] is False
    assert doc[MEMBERS_NAME] is True  # retained: a hub that was down reads the newest


@pytest.mark.timeout(240)
def test_the_service_publishes_exactly_the_documented_topics(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    config = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)

    async def main() -> tuple[list[tuple[str, Any, bool]], dict[str, Any]]:
        async with recording(mosquitto.port) as rec:
            async with running(config, options(5, 2)) as run:
                play = asyncio.create_task(run.service.run(asyncio.Event()))
                await until(lambda: run.keeper.in_progress, "the first hand", GUARD)
                public = PublicAlert(AlertKind.XIANGGONG, 1, have=12, want=13)
                run.alerts(Alert(public, "seat 1 holds 12 tiles"))
                await asyncio.wait_for(play, GUARD * 2)
                await asyncio.wait_for(run.publisher.wait_drained(), GUARD)
            await until(lambda: len(rec.of("settlement")) == 2, "both settlements")
            await until(lambda: len(rec.of("handlog")) >= 2, "both hand logs")
            retained = await retained_state(mosquitto.port)
            return list(rec.messages), retained

    messages, retained = asyncio.run(main())
    doc = documented()
    published = {name for name, _, _ in messages}
    # handlog_ack and house_rules are the hub's to write; no hub runs here
    assert published == set(doc) - {ACK_NAME, HOUSE_RULES_NAME}
    for name, _payload, is_retained in messages:
        # a subscriber sees the retain flag only on what was stored before it subscribed;
        # a stream must never carry it
        assert not is_retained or doc[name], name

    # What a display connecting now is given: every flat value as the JSON says it.
    flat = {k: v for k, v in retained.items() if k.startswith("flat/")}
    expected = from_hand(retained["hand"]) | from_scores(retained["scores"])
    expected |= {"flat/contract": "1"}
    assert flat == {k: v for k, v in expected.items() if v != ""}
    assert flat["flat/state"] == "idle" and flat["flat/hand_no"] == "2"
    assert "flat/alert" not in flat  # the second hand started afresh
    alerts = [(n, p) for n, p, _ in messages if n.startswith("flat/alert")]
    assert ("flat/alert", "xianggong") in alerts and ("flat/alert_seat", "1") in alerts
