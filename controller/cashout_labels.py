"""The words that name each player of a cash-out: one label per player, no two alike.

Every view of a cash-out (the display, the console, the printed sheet, the voice) names a
player by the label the cash-out itself carries, never by who sits in that seat now: a
guest is the seat they played in last ("3号位"), a member their name. Where two players
would read alike (two members called 王五, a member named "3号位" beside the guest of
3号位, a member whose name has nothing to show or say) the label says more: the member's
seat ("王五（1号位会员）"), then a running number, so that a payment is never read as
another person's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

_ORDINALS = "二三四五六七八九"


def seat_label(seat: int) -> str:
    """A seat as its sticker numbers it: 0 -> "1号位"."""
    return f"{seat + 1}号位"


def player_labels(players: Sequence[tuple[int, str | None]]) -> list[str]:
    """Distinct labels for ``players``: (the seat they sat in last, the member's name as it
    is to be shown or said; None for a guest, "" for a member with nothing to show)."""
    guests = {seat_label(seat) for seat, name in players if name is None}
    names = Counter(name for _, name in players if name)
    used: set[str] = set(guests)
    out: list[str] = []
    for seat, name in players:
        if name is None:
            out.append(seat_label(seat))
            continue
        label = name
        if not name or names[name] > 1 or name in guests:
            label = f"{name}（{seat_label(seat)}会员）" if name else f"{seat_label(seat)}会员"
        base, n = label, 0
        while label in used:
            label = f"{base}{_ORDINALS[n]}" if n < len(_ORDINALS) else f"{base}{n + 2}"
            n += 1
        used.add(label)
        out.append(label)
    return out
