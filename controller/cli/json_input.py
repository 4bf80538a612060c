"""Bounded JSON for the command line's inputs (settle, replay, ``analyze --json -``), and
its JSON output on one line whatever the strings in it hold (``dumps_line``).

A settle request or a log line is a few kilobytes and a handful of levels deep. Anything
much larger or deeper is refused with a clear error before it can fill memory or hit the
interpreter's recursion limit (a traceback, and in ``analyze`` the end of the run).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, TextIO

MAX_CHARS = 1 << 20  # one document or one line
MAX_DEPTH = 32  # a settle request nests 6 levels; options a few more


# Characters json.dumps(ensure_ascii=False) leaves raw that str.splitlines() (and many a
# line reader) takes for line breaks: an error echoing such a key split one output line.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def dumps_line(value: Any) -> str:
    """``value`` as JSON on exactly one line, non-ASCII text kept readable (一万)."""
    return json.dumps(value, ensure_ascii=False).translate(_LINE_BREAKS)


class JsonInputError(ValueError):
    """The text is not JSON the command line accepts; the message says why."""


def read_bounded(stream: TextIO) -> str:
    """The whole stream, refused past MAX_CHARS (read no further than that)."""
    text = stream.read(MAX_CHARS + 1)
    if len(text) > MAX_CHARS:
        raise JsonInputError(f"input: longer than {MAX_CHARS} characters")
    return text


def bounded_lines(stream: TextIO) -> Iterator[str | None]:
    """The stream's lines; None for a line longer than MAX_CHARS, skipped to its end."""
    while True:
        line = stream.readline(MAX_CHARS + 1)
        if not line:
            return
        if len(line) > MAX_CHARS and not line.endswith("\n"):
            while (rest := stream.readline(MAX_CHARS)) and not rest.endswith("\n"):
                pass
            yield None
        else:
            yield line


def loads(text: str) -> Any:
    """``json.loads``, refusing text past MAX_CHARS and nesting past MAX_DEPTH."""
    if len(text) > MAX_CHARS:
        raise JsonInputError(f"input: longer than {MAX_CHARS} characters")
    if too_deep(text):  # before parsing: the parser recurses once a level
        raise JsonInputError(f"input: nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise JsonInputError(
            f"input: not JSON ({err.msg} at line {err.lineno} column {err.colno})"
        ) from None
    except ValueError as err:  # e.g. an integer of more digits than Python converts
        raise JsonInputError(f"input: not JSON ({err})") from None


# a string, or an unclosed one to the end: one linear pass, whatever the quotes
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def too_deep(text: str) -> bool:
    """Whether brackets outside strings nest past MAX_DEPTH (counted, not parsed)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False  # the common case: too few to nest that deep
    level = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        level += 1 if match.group() in "[{" else -1
        if level > MAX_DEPTH:
            return True
    return False
