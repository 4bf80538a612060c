"""The cash-out's one renderer (common.js ``cashoutView``: the display, the console and the
printed sheet) in Debian's Chromium, over random sessions where guests and members join,
leave and move seats between hands: whoever sits at the table now, every view names
exactly the payload's people with the payload's amounts."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.controller.table.cashout_sessions import NAMES, random_public_cashout
from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)

STATIC = Path(__file__).resolve().parents[3] / "controller" / "web" / "static"
ORIGIN = "http://mjtable.test"

# Each payload rendered as the display would (with the seats topic's names set to whoever
# sits now), read back as [label, net] rows and [payer, payee, points] transfers.
RENDER = """([payloads, sitting]) => payloads.map((p, i) => {
  MJ.setNames(sitting[i]);
  const view = MJ.cashoutView(MJ.cleaned("cashout", p));
  const rows = [...view.querySelectorAll(".cashout-player")].map((r) =>
    [r.querySelector("td").firstChild.textContent, Number(r.querySelector(".num").textContent)]);
  const pays = [...view.querySelectorAll(".transfer")].map((li) => {
    const [a, b] = li.querySelectorAll("b");
    return [a.textContent, b.textContent, Number(li.lastChild.textContent.trim().split(" ")[0])];
  });
  return { rows, pays };
})"""


def _page(browser: Any) -> Any:  # noqa: F811
    page = browser.new_page()

    def static(route: Any) -> None:
        name = route.request.url.rsplit("/", 1)[-1]
        if name == "blank.html":
            route.fulfill(body="<!doctype html><meta charset=utf-8>", content_type="text/html")
        else:
            route.fulfill(path=str(STATIC / name), content_type="text/javascript")

    page.route(f"{ORIGIN}/**", static)
    page.goto(f"{ORIGIN}/blank.html")
    page.add_script_tag(url=f"{ORIGIN}/common.js")
    return page


def test_every_view_names_the_payloads_people_whoever_sits_now(browser: Any) -> None:  # noqa: F811
    rng = random.Random(48)
    payloads = [random_public_cashout(rng) for _ in range(300)]
    sitting = [[rng.choice([None, *NAMES]) for _ in range(4)] for _ in payloads]
    page = _page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    seen = page.evaluate(RENDER, [json.loads(json.dumps(payloads)), sitting])
    for payload, view in zip(payloads, seen, strict=True):
        labels = [p["label"] for p in payload["players"]]
        assert [r[0] for r in view["rows"]] == labels
        assert [r[1] for r in view["rows"]] == [float(p["net"]) for p in payload["players"]]
        assert len(set(labels)) == len(labels)
        assert view["pays"] == [
            [labels[t["from"]], labels[t["to"]], float(t["points"])] for t in payload["transfers"]
        ]
    assert errors == []
    page.close()
