"""Signed login tokens: ``base64(json).base64(hmac-sha256)``, sent as a cookie or a bearer.

The token names the account (and its role when it is staff), its expiry (a whole number
of seconds), a fingerprint of the password hash and the account's token generation: a
new password or a logout bumps the generation (``OwnerAccounts.end_logins``) and so ends
every login made before. No server-side session table.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def _b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def fingerprint(password_hash: str) -> str:
    return hashlib.sha256(password_hash.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class TokenClaims:
    owner: str
    expires: float
    fingerprint: str
    generation: int = 0
    role: str = "owner"  # or "staff" (docs/staff.md): an owner's routes refuse it


class TokenSigner:
    def __init__(self, secret: bytes, clock: Callable[[], float] = time.time) -> None:
        if len(secret) < 16:
            raise ValueError("secret key: at least 16 bytes")
        self._secret = secret
        self._clock = clock

    def _sign(self, body: str) -> str:
        return _b64e(hmac.new(self._secret, body.encode("ascii"), hashlib.sha256).digest())

    def issue(
        self,
        owner: str,
        password_hash: str,
        ttl: float,
        generation: int = 0,
        role: str = "owner",
    ) -> tuple[str, float]:
        expires = self._clock() + ttl
        claims: dict[str, object] = {
            "sub": owner,
            "exp": int(expires),
            "fp": fingerprint(password_hash),
            "gen": generation,
        }
        if role != "owner":
            claims["role"] = role
        body = _b64e(json.dumps(claims, separators=(",", ":")).encode())
        return f"{body}.{self._sign(body)}", float(int(expires))

    def verify(self, token: str) -> TokenClaims | None:
        """The claims of a genuine, unexpired token; None otherwise."""
        body, _, signature = token.partition(".")
        if not body or not signature or len(token) > 4096:
            return None
        try:
            if not hmac.compare_digest(self._sign(body), signature):
                return None
            claims = json.loads(_b64d(body))
            owner, expires, fp = claims["sub"], claims["exp"], claims["fp"]
            generation = claims.get("gen", 0)
            role = claims.get("role", "owner")
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeEncodeError):
            return None
        # Whole seconds only: a float exp could be inf or nan (never expiring).
        if not all(type(n) is int for n in (expires, generation)):
            return None
        if not isinstance(owner, str) or not isinstance(fp, str) or expires < self._clock():
            return None
        if role not in ("owner", "staff"):
            return None
        return TokenClaims(owner, float(expires), fp, generation, role)


def load_or_create_secret(path: Path) -> bytes:
    """The web app's signing key, kept in a file (mode 600) so logins survive a restart."""
    try:
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    data = secrets.token_bytes(32)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.chmod(0o600)
    tmp.replace(path)
    return data
