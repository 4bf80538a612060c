"""What a run of simulated hands adds up to: wins by shape, 流局, 德国, 冲关, money moved."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.round.state import RoundState
from engine.settlement import Settlement
from engine.settlement.ledger import Amount, plain
from engine.simulation import win_shapes


@dataclass(slots=True)
class Summary:
    ruleset: str
    hands: int = 0
    wins: int = 0  # declared wins that stood (several on one discard count each)
    exhausted: int = 0  # 流局
    void: int = 0  # hands settled as void (xingguo 流局)
    self_drawn: int = 0
    deguo: int = 0  # hands with a 德国 win
    chongguan: int = 0  # hands in which someone was 冲关
    false_wins: int = 0
    shapes: Counter[str] = field(default_factory=Counter)
    nets: list[Amount] = field(default_factory=lambda: [0, 0, 0, 0])
    swings: list[float] = field(default_factory=list)  # per hand: the largest net gain

    def add(self, state: RoundState, settlement: Settlement) -> None:
        self.hands += 1
        self.exhausted += state.exhausted
        self.void += settlement.void
        self.false_wins += len(state.false_win)
        self.wins += len(state.wins)
        self.self_drawn += sum(1 for w in state.wins if w.source in ("self", "kong_replacement"))
        self.shapes.update(win_shapes(state))
        reasons = [line.reason for line in settlement.lines]
        self.deguo += any("德国" in r for r in reasons)
        self.chongguan += any("冲关" in r for r in reasons)
        for seat, amount in enumerate(settlement.net):
            self.nets[seat] += amount
        self.swings.append(float(max(settlement.net)))

    def as_dict(self) -> dict[str, Any]:
        n = max(self.hands, 1)
        spread = statistics.pstdev(self.swings) if len(self.swings) > 1 else 0.0
        return {
            "ruleset": self.ruleset,
            "hands": self.hands,
            "wins": self.wins,
            "self_drawn": self.self_drawn,
            "exhausted": self.exhausted,
            "exhausted_rate": self.exhausted / n,
            "void": self.void,
            "false_wins": self.false_wins,
            "deguo": self.deguo,
            "deguo_rate": self.deguo / n,
            "chongguan": self.chongguan,
            "chongguan_rate": self.chongguan / n,
            "shapes": dict(self.shapes.most_common()),
            "nets": [plain(x) for x in self.nets],
            "settlement_mean": statistics.fmean(self.swings) if self.swings else 0.0,
            "settlement_stdev": spread,
        }
