"""Bounded JSON for the command line's inputs (settle, replay, ``analyze --json -``), and
its JSON output on one line whatever the strings in it hold (``dumps_line``).

A settle request or a log line is a few kilobytes and a handful of levels deep. Anything
much larger or deeper is refused with a clear error before it can fill memory or hit the
interpreter's recursion limit (a traceback, and in ``analyze`` the end of the run).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TextIO

from controller.json_bounds import JsonBoundsError, loads_bounded

MAX_CHARS = 1 << 20  # one document or one line
MAX_DEPTH = 32  # a settle request nests 6 levels; options a few more


# Characters json.dumps(ensure_ascii=False) leaves raw that str.splitlines() (and many a
# line reader) takes for line breaks: an error echoing such a key split one output line.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def dumps_line(value: Any) -> str:
    """``value`` as JSON on exactly one line, non-ASCII text kept readable (一万)."""
    return json.dumps(value, ensure_ascii=False).translate(_LINE_BREAKS)


def read_bounded(stream: TextIO) -> str:
    """The whole stream, refused past MAX_CHARS (read no further than that)."""
    text = stream.read(MAX_CHARS + 1)
    if len(text) > MAX_CHARS:
        raise JsonBoundsError(f"input: longer than {MAX_CHARS} characters")
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
    """JSON of at most MAX_CHARS characters nesting at most MAX_DEPTH levels
    (``controller.json_bounds``: no NaN or Infinity either)."""
    if len(text) > MAX_CHARS:
        raise JsonBoundsError(f"input: longer than {MAX_CHARS} characters")
    try:  # UTF-8 takes at most 4 bytes a character: the characters were the bound
        return loads_bounded(text, max_bytes=4 * MAX_CHARS, max_depth=MAX_DEPTH)
    except JsonBoundsError as err:
        raise JsonBoundsError(f"input: {err}") from None
