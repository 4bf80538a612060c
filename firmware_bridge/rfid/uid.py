"""Tag ids: an 8-byte ISO-15693 UID or a 12-byte (96-bit) EPC, raw bytes on the wire and
lower-case hex in files and logs."""

from __future__ import annotations

UID_LEN = 8
"""An ISO-15693 UID (HF tiles)."""
EPC_LEN = 12
"""A 96-bit EPC (UHF tiles)."""
TAG_ID_LENS = (UID_LEN, EPC_LEN)
CARD_UID_LENS = (4, 7, 8, 10)
"""The UID sizes of the cards the supported HF readers report: ISO 14443 single, double
and triple size (4, 7, 10 bytes; most NFC cards are 7) and ISO 15693 (8). A member's
card may be any of them; a tile is always ``UID_LEN`` or ``EPC_LEN``."""
MAX_READ_LEN = 32
"""The longest tag id a reader frame carries; a reader never reports a longer one."""


def reportable(raw: bytes) -> bool:
    """Whether a reader can report this tag id at all (1 … ``MAX_READ_LEN`` bytes): what
    a virtual reader leaves out rather than fail on a tag no real one could name."""
    return 1 <= len(raw) <= MAX_READ_LEN


def is_tag_id(raw: bytes) -> bool:
    return len(raw) in TAG_ID_LENS


def tag_id_problem(raw: bytes) -> str | None:
    """None for a valid tag id, else why not (for a Problem or a rejection message)."""
    if is_tag_id(raw):
        return None
    shown = raw.hex() or "(empty)"
    return f"tag id {shown} is {len(raw)} bytes, not {UID_LEN} (UID) or {EPC_LEN} (EPC)"


def uid_hex(uid: bytes) -> str:
    """``b"\\xe0\\x04..."`` -> ``"e004..."`` (the form stored in the registry)."""
    return uid.hex()


def parse_uid(text: str) -> bytes:
    """Read a tag id written as 16 (UID) or 24 (EPC) hex digits; spaces, ``:`` and ``-``
    between bytes are allowed. Raises ValueError naming the text when it is neither."""
    cleaned = "".join(ch for ch in text.strip() if ch not in " :-")
    if cleaned.lower().startswith("0x"):
        cleaned = cleaned[2:]
    try:
        raw = bytes.fromhex(cleaned)
    except ValueError:
        raise ValueError(f"not a hex UID or EPC: {text!r}") from None
    if not is_tag_id(raw):
        raise ValueError(
            f"a UID is {UID_LEN} bytes and an EPC {EPC_LEN}, got {len(raw)} in {text!r}"
        )
    return raw
