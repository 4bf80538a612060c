"""The dummy hash an unknown name is checked against costs what a real one does."""

from __future__ import annotations

import importlib

import pytest

from controller.web import passwords
from controller.web.passwords import DUMMY_HASH, N, P, R, verify_password


def test_the_dummy_hash_is_of_its_password_at_the_current_cost() -> None:
    scheme, n, r, p, _salt, _key = DUMMY_HASH.split("$")
    assert (scheme, int(n), int(r), int(p)) == ("scrypt", N, R, P)
    assert verify_password("not-a-real-password", DUMMY_HASH)
    assert not verify_password("not-the-password", DUMMY_HASH)


def test_importing_the_passwords_hashes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """16 MiB of scrypt at every start, for a login that may never come."""
    calls: list[object] = []

    def scrypt(*args: object, **kwargs: object) -> bytes:
        calls.append(args)
        return bytes(32)

    monkeypatch.setattr("hashlib.scrypt", scrypt)
    importlib.reload(passwords)
    assert calls == []
