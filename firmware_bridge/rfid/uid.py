"""Tag UIDs: 8 raw bytes on the wire, lower-case hex in files and logs."""

from __future__ import annotations

UID_LEN = 8


def uid_hex(uid: bytes) -> str:
    """``b"\\xe0\\x04..."`` -> ``"e004..."`` (the form stored in the registry)."""
    return uid.hex()


def parse_uid(text: str) -> bytes:
    """Read a UID written as 16 hex digits; spaces, ``:`` and ``-`` between bytes are allowed.

    Raises ValueError naming the text when it is not exactly 8 bytes of hex.
    """
    cleaned = "".join(ch for ch in text.strip() if ch not in " :-")
    if cleaned.lower().startswith("0x"):
        cleaned = cleaned[2:]
    try:
        raw = bytes.fromhex(cleaned)
    except ValueError:
        raise ValueError(f"not a hex UID: {text!r}") from None
    if len(raw) != UID_LEN:
        raise ValueError(f"a UID is {UID_LEN} bytes, got {len(raw)} in {text!r}")
    return raw
