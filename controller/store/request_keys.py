"""The first answer to each request sent with an ``Idempotency-Key``, kept in the store so
that a request sent twice (a second tap, a retry after a lost answer, a restart between)
is done once: the same key again returns the first answer and stores nothing; the same
key on another request is refused. Keys are an account's own; they are kept ``KEEP``."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select
from sqlalchemy.exc import IntegrityError

from controller.store.models import REQUEST_KEYS, utcnow

KEEP = timedelta(days=2)  # long past any retry; a table's acts are a few a day


class KeyReused(ValueError):
    """The key answered another request: 422, nothing done."""


@dataclass(frozen=True, slots=True)
class RequestKey:
    account: str
    key: str
    fingerprint: str  # what the request asked (``fingerprint``)


def fingerprint(what: str, body: Any) -> str:
    """The request as a hash: its path (or kind) and its body, keys sorted."""
    text = json.dumps([what, body], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def first_answer(engine: Engine, request: RequestKey) -> dict[str, Any] | None:
    """The answer kept for the key, None if the key is new; raises KeyReused when it
    answered another request."""
    query = select(REQUEST_KEYS.c.fingerprint, REQUEST_KEYS.c.answer).where(
        REQUEST_KEYS.c.account == request.account, REQUEST_KEYS.c.key == request.key
    )
    with engine.connect() as c:
        found = c.execute(query).first()
    if found is None:
        return None
    if found.fingerprint != request.fingerprint:
        raise KeyReused("Idempotency-Key: already used for another request; make a new one")
    answer: dict[str, Any] = found.answer
    return answer


@dataclass(frozen=True, slots=True)
class KeptAnswer:
    """The first answer to a keyed request, written in the transaction of the act it
    answers (an act is never stored without its key: a retry after a crash finds both or
    neither)."""

    request: RequestKey
    answer: dict[str, Any]

    def write(self, c: Connection) -> None:
        """Keep it inside ``c`` (and forget keys older than ``KEEP``); a key kept already
        raises IntegrityError, undoing the act with it."""
        now = utcnow()
        key = self.request
        row = {"account": key.account, "key": key.key, "fingerprint": key.fingerprint}
        c.execute(delete(REQUEST_KEYS).where(REQUEST_KEYS.c.created_at < now - KEEP))
        c.execute(insert(REQUEST_KEYS).values(**row, answer=self.answer, created_at=now))


def keep_answer(engine: Engine, request: RequestKey, answer: dict[str, Any]) -> None:
    """Keep the first answer of a request that stored nothing else (its own transaction)."""
    try:
        with engine.begin() as c:
            KeptAnswer(request, answer).write(c)
    except IntegrityError:  # (kept already: the table loop answers one request at a time)
        pass
