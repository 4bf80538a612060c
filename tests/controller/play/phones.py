"""Helpers for the players' phones tests: a table without readers (its service over a real
Mosquitto, its web app on a local port) and a plain HTTP client for the players' API."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from tests.controller.web.test_staff_api import PASSWORD


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def detail(self) -> str:
        return str(self.body.get("detail")) if isinstance(self.body, dict) else str(self.body)


def call(
    url: str,
    body: Any = None,
    *,
    token: str | None = None,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Answer:
    """One request (POST when there is a body), its status and JSON answer, never raising
    for an HTTP status."""
    sent = {"Content-Type": "application/json", **(headers or {})}
    if token is not None:
        sent["X-Seat-Token"] = token
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(url, data=data, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            text = r.read()
            status, got = r.status, dict(r.headers)
    except urllib.error.HTTPError as err:
        text, status, got = err.read(), err.code, dict(err.headers)
    try:
        parsed = json.loads(text) if text else None
    except ValueError:
        parsed = text.decode(errors="replace")
    return Answer(status, parsed, got)


PHONE = {"width": 360, "height": 780}


def staff_token(base: str) -> str:
    """A login of the table's staff account ``ann`` (``ReaderlessTable`` adds it)."""
    login = call(f"{base}/api/v1/auth/login", {"name": "ann", "password": PASSWORD})
    assert login.status == 200, login.body
    return str(login.body["token"])


def join_all(base: str, names: tuple[str, ...] = ("张三", "李四", "王五", "赵六")) -> list[str]:
    """Four phones on the four seats, as guests: their seat tokens."""
    code = call(f"{base}/api/v1/play/join").body["code"]
    tokens = []
    for seat, name in enumerate(names):
        body = {"table": "t1", "code": code, "name": name}
        got = call(f"{base}/api/v1/play/seats/{seat}/join", body)
        assert got.status == 200, got.body
        tokens.append(str(got.body["token"]))
    return tokens


def open_phones(
    browser: Any, base: str, tokens: list[str]
) -> tuple[list[Any], list[Any], list[str]]:
    """Four phones (360×780) on their seats' pages: contexts, pages, page errors."""
    contexts = [browser.new_context(viewport=PHONE) for _ in range(4)]
    pages, errors = [], []
    for ctx, token in zip(contexts, tokens, strict=True):
        ctx.add_cookies([{"name": "mjtable_seat", "value": token, "url": base}])
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{base}/t/t1")
        pages.append(page)
    return contexts, pages, errors
