"""Random finished hands in the ``mjtable settle`` JSON shape, for property tests.

A winner's hand is built as four groups and a pair (or seven pairs), some groups melded
(chow from the 上家, pungs and kongs from anyone, concealed kongs), so it always wins; the
other seats get random legal 13-tile fillers from what is left. With a wildcard kind, some
concealed tiles are swapped for it (a wildcard can stand for anything, so the hand still
wins). Sometimes a second winner claims the same discard.
"""

from __future__ import annotations

import json
import random
from typing import Any

from engine.tiles import format_kinds, kind_name, successor
from tests.engine.settle_helpers import settle


class _Pool:
    def __init__(self) -> None:
        self.left = [4] * 34

    def take(self, kinds: list[int]) -> bool:
        need = {k: kinds.count(k) for k in kinds}
        if any(self.left[k] < n for k, n in need.items()):
            return False
        for k in kinds:
            self.left[k] -= 1
        return True

    def random_tiles(self, rng: random.Random, n: int) -> list[int]:
        flat = [k for k in range(34) for _ in range(self.left[k])]
        picked = rng.sample(flat, n)
        for k in picked:
            self.left[k] -= 1
        return picked


def _group(rng: random.Random, pool: _Pool) -> tuple[str, list[int]]:
    for _ in range(100):
        if rng.random() < 0.5:
            suit, start = rng.randrange(3), rng.randrange(7)
            kinds = [suit * 9 + start + i for i in range(3)]
            if pool.take(kinds):
                return "chow", kinds
        else:
            k = rng.randrange(34)
            if pool.take([k] * 3):
                return "pung", [k] * 3
    raise RuntimeError("no group fits")  # cannot happen with 136 tiles and 5 groups


def _winning_hand(
    rng: random.Random,
    pool: _Pool,
    seat: int,
    max_claims: int,
    seven_pairs: bool,
    pair_kind: int | None = None,
) -> tuple[list[int], list[dict[str, Any]]]:
    """(concealed kinds, melds) of a winning hand; ``pair_kind`` forces the pair."""
    if seven_pairs and pair_kind is None and rng.random() < 0.15:
        kinds = [k for k in range(34) if pool.left[k] >= 2]
        pairs = rng.sample(kinds, 7)
        for k in pairs:
            pool.take([k, k])
        return [k for k in pairs for _ in range(2)], []
    concealed: list[int] = []
    melds: list[dict[str, Any]] = []
    claims = 0
    for _ in range(4):
        kind, kinds = _group(rng, pool)
        r = rng.random()
        others = [s for s in range(4) if s != seat]
        if kind == "chow" and r < 0.25 and claims < max_claims:
            claims += 1
            melds.append({"type": "chow", "tiles": format_kinds(kinds), "from": (seat + 3) % 4})
        elif kind == "pung" and r < 0.25 and claims < max_claims:
            claims += 1
            melds.append({"type": "pung", "tiles": format_kinds(kinds), "from": rng.choice(others)})
        elif kind == "pung" and r < 0.45 and pool.take([kinds[0]]):
            kong = rng.choice(["kong_exposed", "kong_added", "kong_concealed"])
            meld: dict[str, Any] = {"type": kong, "tiles": format_kinds([kinds[0]] * 4)}
            if kong != "kong_concealed":
                meld["from"] = rng.choice(others)
            melds.append(meld)
        else:
            concealed += kinds
    if pair_kind is not None and pool.take([pair_kind, pair_kind]):
        concealed += [pair_kind, pair_kind]  # one of them is the claimed discard
    else:
        for _ in range(100):
            k = rng.randrange(34)
            if pool.take([k, k]):
                concealed += [k, k]
                break
    return concealed, melds


def random_request(
    seed: int,
    ruleset: str,
    *,
    wildcards: bool = False,
    max_claims: int = 4,
    multiple: bool = True,
    seven_pairs: bool = True,
) -> dict[str, Any]:
    rng = random.Random(seed)
    pool = _Pool()
    indicator = None
    wild = None
    if wildcards:
        indicator = rng.randrange(34)
        pool.take([indicator])
        wild = successor(indicator)
    dealer = rng.randrange(4)
    winner = rng.randrange(4)
    concealed, melds = _winning_hand(rng, pool, winner, max_claims, seven_pairs)
    hands: dict[int, list[int]] = {winner: concealed}
    all_melds: dict[int, list[dict[str, Any]]] = {winner: melds}

    tile = rng.choice(concealed)
    sources = ["self", "discard", "discard"]
    if concealed.count(tile) == 1 and pool.left[tile] == 3:
        sources.append("rob_kong")  # the other three make the pung the robbed seat added to
    if any(m["type"].startswith("kong") for m in melds):
        sources.append("kong_replacement")
    source = rng.choice(sources)
    others = [s for s in range(4) if s != winner]
    win: dict[str, Any] = {"seat": winner, "tile": kind_name(tile)}
    if source == "discard":
        win["from"] = rng.choice(others)
    elif source == "rob_kong":
        robbed = rng.choice(others)
        pool.take([tile] * 3)
        gave = rng.choice([s for s in range(4) if s != robbed])
        all_melds[robbed] = [{"type": "pung", "tiles": kind_name(tile) * 3, "from": gave}]
        win["from"] = f"rob_kong:{robbed}"
    else:
        win["from"] = source
        win["last_tile"] = rng.random() < 0.1
    wins = [win]

    if multiple and source == "discard" and rng.random() < 0.3:
        second = rng.choice([s for s in others if s != win["from"]])
        c2, m2 = _winning_hand(rng, pool, second, max_claims, seven_pairs, pair_kind=tile)
        if tile in c2:
            hands[second], all_melds[second] = c2, m2
            wins.append({"seat": second, "tile": kind_name(tile), "from": win["from"]})

    if wild is not None:
        for seat, kinds in hands.items():
            for i, k in enumerate(kinds):
                # swap a few tiles (never the winning tile) for the wildcard kind
                if k != tile and pool.left[wild] and rng.random() < 0.15:
                    pool.left[wild] -= 1
                    pool.left[k] += 1
                    kinds[i] = wild
            hands[seat] = kinds

    seats: list[dict[str, Any]] = []
    for seat in range(4):
        if seat in hands:
            text = format_kinds(hands[seat])
        else:
            text = format_kinds(pool.random_tiles(rng, 13 - 3 * len(all_melds.get(seat, []))))
        seats.append({"hand": text, "melds": all_melds.get(seat, [])})
    return {
        "ruleset": ruleset,
        "dealer": dealer,
        "dealer_streak": rng.randrange(3),
        "prevailing_wind": rng.choice("ESWN"),
        "indicator": None if indicator is None else kind_name(indicator),
        "seats": seats,
        "win": wins[0] if len(wins) == 1 else wins,
    }


CODES = ("win.", "kong.", "false_win")


def check_settlement_properties(request: dict[str, Any]) -> None:
    """Nets sum to zero, every line is a real payment, the result does not depend on luck."""
    first = settle(request)
    again = settle(request)
    assert first.as_dict() == again.as_dict()
    assert sum(first.net) == 0
    json.dumps(first.as_dict(), ensure_ascii=False)
    for line in first.lines:
        assert line.amount > 0
        assert line.payer != line.payee
        assert 0 <= line.payer <= 3 and 0 <= line.payee <= 3
        assert line.code.startswith(CODES), line.code
        assert line.reason
    winners = [
        w["seat"]
        for w in (request["win"] if isinstance(request["win"], list) else [request["win"]])
    ]
    got = {line.payee for line in first.lines if line.code.startswith("win.")}
    assert got and got <= set(winners)
    assert 0 <= first.next_dealer <= 3
