"""controller.process.local_ports: ports chosen now and bound later stay clear of the ports the
kernel gives outgoing connections, of ports in use, and of each other."""

from __future__ import annotations

import socket
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from controller.process import local_ports
from controller.process.local_ports import ephemeral_range, free_local_port, port_free


class Scripted:
    """Stands in for local_ports' random source: the picks come in the given order."""

    def __init__(self, picks: list[int]) -> None:
        self.picks = iter(picks)

    def choices(self, population: Sequence[Any], weights: Sequence[int]) -> list[Any]:
        return [population[0]]

    def choice(self, span: range) -> int:
        return next(self.picks)


def script(monkeypatch: pytest.MonkeyPatch, picks: list[int]) -> None:
    monkeypatch.setattr(local_ports, "_pick", Scripted(picks))
    monkeypatch.setattr(local_ports, "_handed_out", deque(maxlen=256))


def test_ports_are_free_and_outside_the_ephemeral_range() -> None:
    low, high = ephemeral_range()
    for _ in range(300):
        port = free_local_port()
        assert not low <= port <= high, port
        assert 1024 <= port <= 65535
        assert port_free(port)


def test_a_port_in_use_is_passed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", free_local_port()))
        held.listen()
        taken = held.getsockname()[1]
        assert not port_free(taken)
        spare = free_local_port()
        script(monkeypatch, [taken, taken, spare])
        assert free_local_port() == spare


def test_a_port_is_not_handed_out_twice_before_its_server_binds_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = free_local_port(), free_local_port()
    script(monkeypatch, [first, first, second])
    # Nothing has bound ``first`` yet, but the broker it went to will.
    assert free_local_port() == first
    assert free_local_port() == second


def test_the_range_is_read_from_the_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    custom = tmp_path / "ip_local_port_range"
    custom.write_text("40000\t50000\n")
    monkeypatch.setattr(local_ports, "EPHEMERAL_RANGE_FILE", custom)
    assert ephemeral_range() == (40000, 50000)
    assert not any(40000 <= free_local_port() <= 50000 for _ in range(200))
    monkeypatch.setattr(local_ports, "EPHEMERAL_RANGE_FILE", tmp_path / "missing")
    assert ephemeral_range() == local_ports.LINUX_DEFAULT_RANGE


def test_a_range_that_leaves_nothing_outside_falls_back_to_the_kernels_pick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    everything = tmp_path / "ip_local_port_range"
    everything.write_text("1024 65535\n")
    monkeypatch.setattr(local_ports, "EPHEMERAL_RANGE_FILE", everything)
    assert port_free(free_local_port())
