"""JSON from strangers, bounded: size and nesting checked before ``json.loads`` recurses,
no NaN/Infinity, and every string and number walked once for what a database refuses. The
one parser for JSON from outside: the hub's handlogs and house rulesets (``loads_object``),
the command line's inputs (``controller.cli.json_input``).

``json.loads`` recurses once per nesting level: 200,000 ``[`` raise ``RecursionError``
(not a ``ValueError``), which ends whatever task was parsing. ``loads_bounded`` measures
the depth first, on the text with its strings cut out, in C-speed passes.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

# A JSON string literal (escapes included), cut out before counting brackets; one left open
# runs to the end (json.loads then refuses it), so no input makes the search quadratic.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*(?:"|\\?\Z)', re.DOTALL)
_DEPTH = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_BRACKETS = bytes(range(256)).translate(None, b"[]{}")  # every byte but the four


class JsonBoundsError(ValueError):
    """Not JSON, or JSON beyond the bounds; the message says which."""


def nesting_depth(raw: bytes) -> int:
    """How deep ``raw``'s arrays and objects nest (0: a scalar), strings ignored."""
    brackets = _STRING.sub(b"", raw).translate(None, _BRACKETS)
    return max(accumulate(_DEPTH[b] for b in brackets), default=0)


def _refuse_constant(name: str) -> Any:
    raise JsonBoundsError(f"{name} is not a JSON number")


def loads_bounded(raw: bytes | str, *, max_bytes: int, max_depth: int) -> Any:
    """Parse ``raw`` if it is at most ``max_bytes`` long and nests at most ``max_depth``."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if len(data) > max_bytes:
        raise JsonBoundsError(f"{len(data)} bytes, more than {max_bytes}")
    # (too few brackets to nest that deep, the common case: not counted)
    if data.count(b"[") + data.count(b"{") > max_depth:
        depth = nesting_depth(data)
        if depth > max_depth:
            raise JsonBoundsError(f"nested {depth} deep, more than {max_depth}")
    try:
        return json.loads(data, parse_constant=_refuse_constant)
    except JsonBoundsError:
        raise
    except json.JSONDecodeError as err:
        raise JsonBoundsError(
            f"not JSON ({err.msg} at line {err.lineno} column {err.colno})"
        ) from None
    except ValueError as err:  # not UTF-8; an integer of more digits than Python converts
        raise JsonBoundsError(f"not JSON ({err})") from None


def loads_object(raw: bytes | str, *, max_bytes: int, max_depth: int) -> dict[str, Any]:
    """A JSON object from ``raw`` (``loads_bounded``'s bounds); an array or a scalar is a
    JsonBoundsError too. The messages from the hub and the tables are objects."""
    data = loads_bounded(raw, max_bytes=max_bytes, max_depth=max_depth)
    if not isinstance(data, dict):
        raise JsonBoundsError(f"expected a JSON object, got {type(data).__name__}")
    return data


def check_values(value: Any, where: str, *, max_text: int, max_abs: float) -> None:
    """Refuse what PostgreSQL's jsonb cannot hold or a reader should not get: a NUL or a lone
    surrogate in a string or key, a string longer than ``max_text``, a number that is not
    finite or is beyond ``max_abs``."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            _check_text(item, path, max_text)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int | float):
            if not math.isfinite(item) or abs(item) > max_abs:
                raise JsonBoundsError(f"{path}: number out of range: {item!r:.40}")
        elif isinstance(item, dict):
            for key, child in item.items():
                _check_text(key, f"{path} key", max_text)
                stack.append((f"{path}.{key}", child))
        elif isinstance(item, list):
            stack.extend((f"{path}[{i}]", child) for i, child in enumerate(item))


def _check_text(text: str, path: str, max_text: int) -> None:
    if len(text) > max_text:
        raise JsonBoundsError(f"{path}: a string of {len(text)} characters, more than {max_text}")
    if "\x00" in text:
        raise JsonBoundsError(f"{path}: a NUL character in a string")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise JsonBoundsError(f"{path}: a lone surrogate in a string") from None
