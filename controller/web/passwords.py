"""Password hashes with the standard library's scrypt: ``scrypt$n$r$p$salt$hash`` (base64).

n=2**14, r=8 takes 16 MiB and some 50-150 ms on a Pi: slow for guessing, fine for a login.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

N, R, P = 2**14, 8, 1
SALT_BYTES, KEY_BYTES = 16, 32
MIN_LENGTH, MAX_LENGTH = 8, 1024


class WeakPassword(ValueError):
    pass


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _derive(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=KEY_BYTES, maxmem=64 * 2**20
    )


def check_password(password: str) -> str:
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise WeakPassword(f"password: {MIN_LENGTH}-{MAX_LENGTH} characters")
    return password


def hash_password(password: str) -> str:
    check_password(password)
    salt = secrets.token_bytes(SALT_BYTES)
    return f"scrypt${N}${R}${P}${_b64(salt)}${_b64(_derive(password, salt, N, R, P))}"


def verify_password(password: str, stored: str) -> bool:
    """True when ``password`` matches; False for a wrong one or a malformed hash."""
    try:
        scheme, n, r, p, salt, key = stored.split("$")
        if scheme != "scrypt" or len(password) > MAX_LENGTH:
            return False
        expected = base64.b64decode(key)
        got = _derive(password, base64.b64decode(salt), int(n), int(r), int(p))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


# A hash to check against when the name is unknown, so that both cases take as long: of
# "not-a-real-password" at N, R, P (tests/controller/web/test_passwords.py checks), written
# out rather than made at import, which took 16 MiB and a Pi's ~0.1 s at every start.
DUMMY_HASH = (
    "scrypt$16384$8$1$g0mB6v77DroZVr90MI4v9w==$Ogunk0nXDuvdXlxTws3qf6/xvdXu3uQs6bxrSM/DHwE="
)
