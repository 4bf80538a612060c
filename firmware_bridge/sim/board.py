"""The virtual table board: a Link on the sim's end of the line, reporting like a real board.

Reports: Status on every state change, WallOrder (the lift order) when the walls are up,
ButtonPress, DiceResult for each DiceRoll. Accepts DisplayText and Led and remembers them.

Status and the lift order are absolute state: while the link is not up they are not queued;
every time it comes up the board sends its current Status and, with the walls up, the lift
order (a host that restarted needs both). Button presses and dice results are events and
always queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable

from firmware_bridge.protocol.link import Link, LinkSettings, LinkState
from firmware_bridge.protocol.messages import (
    MAX_UIDS,
    ButtonPress,
    DiceResult,
    DiceRoll,
    DisplayText,
    Led,
    Message,
    Role,
    SeatButton,
    Status,
    TableState,
    WallOrder,
)
from firmware_bridge.sim.noise import DelimitedNoise, FrameNoise
from firmware_bridge.sim.ports import SimPort

WALL_ORDER_CHUNK = 68  # 136 tags in two messages, as docs/protocol.md suggests


class VirtualBoard:
    def __init__(
        self,
        port: SimPort,
        rng: random.Random,
        *,
        drop_rate: float = 0.0,
        lift_reader: bool = True,
        session: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_command: Callable[[Message], None] | None = None,
    ) -> None:
        self.port = port
        self.link = Link(LinkSettings(role=Role.SIMULATOR, software="mjtable-sim"), session=session)
        self.rng = rng
        self.lift_reader = lift_reader
        self._clock = clock
        self._on_command = on_command
        self._tx_noise = DelimitedNoise(FrameNoise(drop_rate, rng))
        self._rx_noise = DelimitedNoise(FrameNoise(drop_rate, rng))
        self.status = Status(TableState.IDLE)
        self.lift_order: tuple[bytes, ...] = ()
        self.dice: tuple[int, ...] | None = None
        self.texts: dict[int, str] = {}
        self.leds: dict[int, Led] = {}
        self.received: list[Message] = []
        self._was_up = False
        self._timer: asyncio.Task[None] | None = None
        self._kick = asyncio.Event()
        port.on_bytes = self._on_bytes

    @property
    def noise(self) -> FrameNoise:
        return self._tx_noise.noise

    async def start(self) -> None:
        await self.port.plug()
        self._timer = asyncio.get_running_loop().create_task(self._timers())

    async def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._timer
            self._timer = None
        await self.port.unplug()

    # --- what the table reports ---------------------------------------------------------

    def set_state(self, state: TableState, faults: tuple[int, ...] = ()) -> None:
        self.status = Status(state, faults)
        if self.link.state is LinkState.UP:
            self._send(self.status)

    def walls_up(self, lift_order: tuple[bytes, ...]) -> None:
        self.lift_order = lift_order
        if self.link.state is LinkState.UP:
            self._send_lift_order()
        self.set_state(TableState.WALLS_UP)

    def press(self, seat: int, button: SeatButton) -> None:
        self._send(ButtonPress(seat, button))

    # --- the line -----------------------------------------------------------------------------

    def _send_lift_order(self) -> None:
        if not self.lift_reader or not self.lift_order:
            return
        total = len(self.lift_order)
        chunk = min(WALL_ORDER_CHUNK, MAX_UIDS)
        for start in range(0, total, chunk):
            self._send(WallOrder(start, total, tuple(self.lift_order[start : start + chunk])))

    def _send(self, msg: Message) -> None:
        self.link.send(msg, self._clock())
        self._kick.set()

    def _on_bytes(self, data: bytes) -> None:
        for msg in self.link.receive_bytes(self._rx_noise.apply(data), self._clock()):
            self._on_message(msg)
        self._kick.set()

    def _on_message(self, msg: Message) -> None:
        self.received.append(msg)
        if isinstance(msg, DiceRoll):
            self.dice = tuple(self.rng.randint(1, 6) for _ in range(msg.count))
            self._send(DiceResult(self.dice))
        elif isinstance(msg, DisplayText):
            self.texts[msg.target] = msg.text
        elif isinstance(msg, Led):
            self.leds[msg.led] = msg
        # (any other host message a board does not act on: ignored)
        if self._on_command is not None:
            self._on_command(msg)

    def _pump(self) -> None:
        out = self.link.poll(self._clock())
        up = self.link.state is LinkState.UP
        if up and not self._was_up:
            # Absolute state for a host that just (re)connected.
            self._send(self.status)
            if self.status.state is TableState.WALLS_UP:
                self._send_lift_order()
            out += self.link.poll(self._clock())
        self._was_up = up
        if out:
            self.port.write(self._tx_noise.apply(out))

    async def _timers(self) -> None:
        while True:
            self._kick.clear()
            self._pump()
            delay = min(max(self.link.next_deadline() - self._clock(), 0.0), 0.1)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._kick.wait()
