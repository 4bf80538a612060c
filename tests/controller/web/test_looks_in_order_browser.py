"""A page's looks apply in the order they were asked (common.js ``MJ.newest``), in Debian's
Chromium: whatever order the answers come back in, the screen shows an answer only if none
asked later was shown before it, and the last look asked is always shown. The pages that
poll the table (the phones, the staff console) read their look only that way: an older
look answered after a tap's look would put the screen back behind the tap and send its old
``seen`` with the next act (refused: 请看清后再操作)."""

from __future__ import annotations

import random
import re
from typing import Any

from tests.controller.web.test_browser import browser  # noqa: F401 (a fixture)
from tests.controller.web.test_cashout_views_browser import _page
from tests.controller.web.test_page_scripts import STATIC, _code

# Ask len(order) looks at once, answer them in `order` (those in `fails` with an error),
# and give back what was shown, in the order it was shown ("e3": look 3's error).
ANSWER = """async (cases) => {
  const out = [];
  for (const [order, fails] of cases) {
    const answer = [];
    const look = MJ.newest(() => new Promise((ok, fail) => answer.push([ok, fail])));
    const shown = [];
    const done = order.map(() => look().then(
      (v) => { if (v !== MJ.STALE) shown.push(v); },
      (e) => { shown.push("e" + e.message); }));
    for (const i of order) {
      if (fails.includes(i)) answer[i][1](new Error(String(i))); else answer[i][0](String(i));
      await new Promise((r) => setTimeout(r, 0));
    }
    await Promise.all(done);
    out.push(shown);
  }
  return out;
}"""


def _expected(order: list[int], fails: list[int]) -> list[str]:
    """Each answer that is later-asked than every answer before it, in the order answered."""
    shown: list[str] = []
    newest = -1
    for i in order:
        if i > newest:
            newest = i
            shown.append(f"e{i}" if i in fails else str(i))
    return shown


def test_looks_show_in_the_order_asked_whatever_order_they_answer(browser: Any) -> None:  # noqa: F811
    rng = random.Random(7)
    cases = []
    for _ in range(300):
        n = rng.randint(1, 6)
        order = rng.sample(range(n), n)
        cases.append((order, [i for i in range(n) if rng.random() < 0.25]))
    page = _page(browser)
    shown = page.evaluate(ANSWER, [list(c) for c in cases])
    for (order, fails), got in zip(cases, shown, strict=True):
        assert got == _expected(order, fails), (order, fails)
        last = len(order) - 1
        assert got[-1] == (f"e{last}" if last in fails else str(last))


# The looks the pages poll, and the scripts that read them
POLLED = {"/api/v1/play/me": "play.js", "/api/v1/staff/hands/current": "console.js"}


def test_the_polled_looks_are_read_only_in_the_order_asked() -> None:
    for path, script in POLLED.items():
        code = _code(STATIC / script)
        reads = [m.start() for m in re.finditer(re.escape(f'"{path}"'), code)]
        assert reads, f"{script} no longer reads {path}: update POLLED"
        for at in reads:
            before = code[max(0, at - 60) : at]
            assert "MJ.newest(" in before, f"{script} reads {path} outside MJ.newest"
