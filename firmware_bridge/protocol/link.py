"""The link layer: handshake, sequence numbers, acks, retransmission. Sans-IO.

The Pi's end, and the virtual table's board. It is fed bytes and time (float seconds) and
asked for bytes to write; it never reads a clock or touches a file. See docs/protocol.md for
the protocol; the board's firmware (firmware/core/link.c) is an independent implementation.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections import deque
from dataclasses import dataclass
from enum import Enum

from .framing import MAX_PAYLOAD, PROTOCOL_VERSION, Frame, FrameDecoder, encode_frame
from .messages import (
    MAX_WINDOW,
    Heartbeat,
    Hello,
    MalformedMessage,
    Message,
    MessageError,
    MessageType,
    Role,
    UnknownMessageType,
    decode_message,
    is_sequenced,
)

SEQ_MOD = 256
_NEVER = float("inf")
_LONG_AGO = float("-inf")


class LinkState(Enum):
    CONNECTING = "connecting"  # handshake in progress (start, or after reset_handshake)
    UP = "up"
    FAILED = "failed"  # max_retransmits timeouts without an ack; re-hello in progress


class LinkQueueFull(Exception):
    """send() refused: max_queue messages are already waiting."""


@dataclass(frozen=True, slots=True)
class LinkSettings:
    window: int = MAX_WINDOW  # frames in flight, and frames we buffer out of order
    rto_initial: float = 0.25  # RFC 6298 says 1 s; a cable's round trip is milliseconds
    rto_min: float = 0.02
    rto_max: float = 2.0
    clock_granularity: float = 0.001
    max_retransmits: int = 8  # timeouts in a row without an ack before FAILED
    heartbeat_interval: float = 1.0
    hello_interval_max: float = 2.0
    max_queue: int = 10_000
    role: Role = Role.HOST
    software: str = "mjtable"

    def __post_init__(self) -> None:
        if not 1 <= self.window <= MAX_WINDOW:
            raise ValueError(f"window must be 1..{MAX_WINDOW}")
        if not 0 < self.rto_min <= self.rto_initial <= self.rto_max:
            raise ValueError("need 0 < rto_min <= rto_initial <= rto_max")
        if self.max_retransmits < 1 or self.max_queue < 1:
            raise ValueError("max_retransmits and max_queue must be positive")


@dataclass(slots=True)
class LinkCounters:
    messages_sent: int = 0  # accepted by send()
    messages_delivered: int = 0
    frames_tx: int = 0
    frames_rx: int = 0  # frames that passed framing checks
    bytes_tx: int = 0
    bytes_rx: int = 0
    retransmits: int = 0  # every repeated transmission of a data frame
    fast_retransmits: int = 0  # of which triggered by a sack hole rather than a timeout
    timeouts: int = 0
    duplicates: int = 0
    out_of_window: int = 0
    bad_ack: int = 0
    unknown_type: int = 0
    bad_payload: int = 0
    no_session: int = 0  # frames dropped because no hello has been heard yet
    version_mismatch: int = 0
    hellos_tx: int = 0
    hellos_rx: int = 0
    heartbeats_tx: int = 0
    heartbeats_rx: int = 0
    peer_restarts: int = 0
    failures: int = 0
    rtt_samples: int = 0
    # From the frame decoder.
    bad_crc: int = 0
    bad_cobs: int = 0
    runts: int = 0
    oversize: int = 0
    bad_version: int = 0
    resyncs: int = 0


@dataclass(slots=True)
class _Outstanding:
    seq: int
    type: int
    payload: bytes
    transmissions: int = 0
    last_sent: float = 0.0
    tx_order: int = -1  # global transmit counter, to spot sack holes
    sacked: bool = False
    resend: bool = False  # retransmit at the next poll
    number: int = 0  # its place among the messages send() took (0: a heartbeat)


class Link:
    def __init__(self, config: LinkSettings | None = None, *, session: int | None = None) -> None:
        self.config = config or LinkSettings()
        self._session = session if session is not None else (secrets.randbits(32) or 1)
        if not 1 <= self._session <= 0xFFFFFFFF:
            raise ValueError("session must be 1..2**32-1")
        self._decoder = FrameDecoder()
        self._counters = LinkCounters()
        self._state = LinkState.CONNECTING
        self._peer_session: int | None = None
        self._peer_window = 1
        self._version: int | None = None
        self._now = _LONG_AGO
        # Transmit side.
        self._queue: deque[tuple[int, bytes, int]] = deque()  # (type, payload, number)
        self._inflight: deque[_Outstanding] = deque()
        self._tx_next = 0
        self._tx_order = 0
        self._rto_deadline = _NEVER
        self._consecutive_timeouts = 0
        self._last_data_tx = _LONG_AGO
        self._resend_pending = False  # some in-flight frame has resend set
        self._acked = 0  # the number of the last message the peer acknowledged in order
        # RFC 6298 estimator.
        self._srtt: float | None = None
        self._rttvar = 0.0
        self._rto = self.config.rto_initial
        # Receive side.
        self._rx_next = 0
        self._rx_buffer: dict[int, tuple[int, bytes, int]] = {}  # (type, payload, acked)
        self._ack_pending = False
        # Handshake.
        self._hello_deadline = _LONG_AGO
        self._hello_interval = self.config.rto_initial
        self._hello_reply_pending = False

    # --- inspection -------------------------------------------------------------------

    @property
    def state(self) -> LinkState:
        return self._state

    @property
    def session(self) -> int:
        return self._session

    @property
    def peer_session(self) -> int | None:
        return self._peer_session

    @property
    def version(self) -> int | None:
        return self._version

    @property
    def rto(self) -> float:
        return self._rto

    @property
    def srtt(self) -> float | None:
        return self._srtt

    @property
    def queued(self) -> int:
        """Messages accepted by send() and not yet transmitted."""
        return len(self._queue)

    @property
    def in_flight(self) -> int:
        """Frames transmitted and not yet acknowledged."""
        return len(self._inflight)

    @property
    def idle(self) -> bool:
        return not self._queue and not self._inflight

    @property
    def acknowledged(self) -> int:
        """How many of the messages ``send()`` took the peer has acknowledged: message
        number n (``send`` returns it) was received by the peer once this is ``>= n``."""
        return self._acked

    @property
    def counters(self) -> LinkCounters:
        """A snapshot of all counters, framing errors included."""
        d = self._decoder
        return dataclasses.replace(
            self._counters,
            bad_crc=d.bad_crc,
            bad_cobs=d.bad_cobs,
            runts=d.runts,
            oversize=d.oversize,
            bad_version=d.bad_version,
            resyncs=d.resyncs,
        )

    # --- the sans-IO interface ---------------------------------------------------------

    def send(self, msg: Message, now: float) -> int:
        """Queue a message; it goes out from poll() once the link is up and the window allows.
        Returns its number (1, 2, … in the order sent: ``acknowledged``)."""
        if msg.TYPE in (MessageType.HELLO, MessageType.HEARTBEAT):
            raise ValueError(f"{type(msg).__name__} is link-internal")
        payload = msg.encode()
        if len(payload) > MAX_PAYLOAD:
            raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
        if len(self._queue) >= self.config.max_queue:
            raise LinkQueueFull(f"{len(self._queue)} messages already queued")
        self._counters.messages_sent += 1
        number = self._counters.messages_sent
        self._queue.append((msg.TYPE, payload, number))
        self._now = max(self._now, now)
        return number

    def receive_bytes(self, data: bytes, now: float) -> list[Message]:
        """Feed received bytes; returns newly delivered messages, each once, in order."""
        return [msg for msg, _ in self.receive(data, now)]

    def receive(self, data: bytes, now: float) -> list[tuple[Message, int]]:
        """As ``receive_bytes``, each message with how many of ours the peer had
        acknowledged when it sent it (``acknowledged`` as its frame's ack left it): what
        the peer had received of ours before it said this."""
        self._now = max(self._now, now)
        self._counters.bytes_rx += len(data)
        delivered: list[tuple[Message, int]] = []
        for frame in self._decoder.feed(data):
            self._counters.frames_rx += 1
            self._on_frame(frame, now, delivered)
        return delivered

    def poll(self, now: float) -> bytes:
        """Advance timers to `now`; returns the bytes to write (possibly empty)."""
        self._now = max(self._now, now)
        out = bytearray()
        if self._state is not LinkState.UP and now >= self._hello_deadline:
            self._emit_hello(out, need_reply=True)
            self._hello_deadline = now + self._hello_interval
            self._hello_interval = min(2 * self._hello_interval, self.config.hello_interval_max)
        if self._hello_reply_pending:
            self._emit_hello(out, need_reply=self._state is not LinkState.UP)
        if self._state is LinkState.UP and self._inflight and now >= self._rto_deadline:
            self._on_timeout(now, out)
        if self._state is LinkState.UP:
            if self._resend_pending:
                self._resend_pending = False
                for o in self._inflight:
                    if o.resend:
                        self._transmit(o, now, out)
            if (
                not self._inflight
                and not self._queue
                and now >= self._last_data_tx + self.config.heartbeat_interval
            ):
                hb = Heartbeat(int(now * 1000) & 0xFFFFFFFF)
                self._queue.append((hb.TYPE, hb.encode(), 0))
                self._counters.heartbeats_tx += 1
            while self._queue and len(self._inflight) < self._send_window:
                type_, payload, number = self._queue.popleft()
                o = _Outstanding(self._tx_next, type_, payload, number=number)
                self._tx_next = (self._tx_next + 1) % SEQ_MOD
                self._inflight.append(o)
                self._transmit(o, now, out)
        if self._ack_pending:
            self._emit(out, Frame(MessageType.ACK, ack=self._rx_next, sack=self._sack_bits()))
        return bytes(out)

    def next_deadline(self) -> float:
        """When poll() next has something to do (may be in the past: poll now)."""
        if self._ack_pending or self._hello_reply_pending:
            return self._now
        if self._state is not LinkState.UP:
            return self._hello_deadline
        if self._queue and len(self._inflight) < self._send_window:
            return self._now
        if self._resend_pending:
            return self._now
        if self._inflight:
            return self._rto_deadline
        return self._last_data_tx + self.config.heartbeat_interval

    def reset_handshake(self, now: float) -> None:
        """Re-run the hello handshake now, e.g. after the serial device came back.

        Queued and unacknowledged messages are kept; if the peer is the same session they
        resume where they stopped, if it restarted they are renumbered and resent.
        """
        self._now = max(self._now, now)
        self._state = LinkState.CONNECTING
        self._hello_deadline = now
        self._hello_interval = self.config.rto_initial
        self._rto_deadline = _NEVER

    # --- receive path ---------------------------------------------------------------------

    def _on_frame(self, frame: Frame, now: float, delivered: list[tuple[Message, int]]) -> None:
        type_ = frame.type
        if type_ == MessageType.HELLO:
            try:
                hello = Hello.decode(frame.payload)
            except (MessageError, ValueError):
                self._counters.bad_payload += 1
                return
            self._on_hello(hello, now)
            return
        if self._peer_session is None:
            # Acks and data mean nothing until a hello told us which session they belong to.
            self._counters.no_session += 1
            return
        if type_ == MessageType.ACK:
            self._on_ack(frame.ack, frame.sack, now)
        elif is_sequenced(type_):
            self._on_ack(frame.ack, frame.sack, now)
            self._on_data(frame, delivered)
        else:
            self._counters.unknown_type += 1

    def _on_hello(self, hello: Hello, now: float) -> None:
        self._counters.hellos_rx += 1
        version = min(PROTOCOL_VERSION, hello.max_version)
        if version < hello.min_version:
            self._counters.version_mismatch += 1
            return
        if hello.session != self._peer_session:
            if self._peer_session is not None:
                self._counters.peer_restarts += 1
            self._peer_session = hello.session
            self._renumber()
            if self._state is LinkState.UP:
                self.reset_handshake(now)
        self._version = version
        self._peer_window = hello.window
        if hello.peer_session == self._session:
            if self._state is not LinkState.UP:
                self._go_up(now)
            if hello.need_reply:
                self._hello_reply_pending = True
        else:
            # The peer has not heard us (yet): tell it who we are.
            self._hello_reply_pending = True

    def _on_ack(self, ack: int, sack: int, now: float) -> None:
        inflight = self._inflight
        base = inflight[0].seq if inflight else self._tx_next
        n = (ack - base) % SEQ_MOD
        if n > len(inflight):
            self._counters.bad_ack += 1
            return
        # RTT is sampled from the newest frame acknowledged for the first time by this ack,
        # only if it was sent once (Karn) and not already sacked (its ack was held back by
        # a hole, which would inflate the sample).
        sample: float | None = None
        if n:
            for _ in range(n):
                o = inflight.popleft()
                if o.transmissions == 1 and not o.sacked:
                    sample = now - o.last_sent
                self._acked = max(self._acked, o.number)
            self._consecutive_timeouts = 0
        if sack and inflight:
            newest_seen = -1
            for o in inflight:
                offset = (o.seq - ack - 1) % SEQ_MOD
                if offset < 8 and (sack >> offset) & 1:
                    if not o.sacked and o.transmissions == 1:
                        sample = now - o.last_sent
                    o.sacked = True
                    newest_seen = max(newest_seen, o.tx_order)
            # The line is FIFO: a hole sent before a frame that arrived is lost.
            for o in inflight:
                if not o.sacked and not o.resend and o.tx_order < newest_seen:
                    o.resend = True
                    self._resend_pending = True
                    self._counters.fast_retransmits += 1
        if sample is not None:
            self._update_rto(sample)
        if n:
            self._rto_deadline = now + self._rto if inflight else _NEVER

    def _on_data(self, frame: Frame, delivered: list[tuple[Message, int]]) -> None:
        self._ack_pending = True
        seq = frame.seq
        distance = (seq - self._rx_next) % SEQ_MOD
        if distance == 0:
            self._deliver(frame.type, frame.payload, self._acked, delivered)
            self._rx_next = (self._rx_next + 1) % SEQ_MOD
            while self._rx_next in self._rx_buffer:
                type_, payload, acked = self._rx_buffer.pop(self._rx_next)
                self._deliver(type_, payload, acked, delivered)
                self._rx_next = (self._rx_next + 1) % SEQ_MOD
        elif distance < self.config.window:
            if seq in self._rx_buffer:
                self._counters.duplicates += 1
            else:
                self._rx_buffer[seq] = (frame.type, frame.payload, self._acked)
        elif distance >= SEQ_MOD // 2:
            self._counters.duplicates += 1  # behind rx_next: already delivered
        else:
            self._counters.out_of_window += 1

    def _deliver(
        self, type_: int, payload: bytes, acked: int, delivered: list[tuple[Message, int]]
    ) -> None:
        # Undecodable messages are still acked: resending the same bytes cannot help.
        try:
            msg = decode_message(type_, payload)
        except UnknownMessageType:
            self._counters.unknown_type += 1
            return
        except MalformedMessage:
            self._counters.bad_payload += 1
            return
        if isinstance(msg, Heartbeat):
            self._counters.heartbeats_rx += 1
            return
        self._counters.messages_delivered += 1
        delivered.append((msg, acked))

    # --- transmit path ----------------------------------------------------------------------

    @property
    def _send_window(self) -> int:
        return min(self.config.window, self._peer_window)

    def _emit(self, out: bytearray, frame: Frame) -> None:
        wire = encode_frame(frame)
        out += wire
        self._counters.frames_tx += 1
        self._counters.bytes_tx += len(wire)
        if frame.type != MessageType.HELLO:
            self._ack_pending = False  # every non-hello frame carries the current ack

    def _emit_hello(self, out: bytearray, *, need_reply: bool) -> None:
        hello = Hello(
            session=self._session,
            peer_session=self._peer_session or 0,
            need_reply=need_reply,
            role=self.config.role,
            window=self.config.window,
            software=self.config.software,
        )
        out += b"\x00"  # flush whatever partial frame the peer may be holding
        self._counters.bytes_tx += 1
        self._emit(out, Frame(MessageType.HELLO, payload=hello.encode()))
        self._counters.hellos_tx += 1
        self._hello_reply_pending = False

    def _transmit(self, o: _Outstanding, now: float, out: bytearray) -> None:
        if o.transmissions:
            self._counters.retransmits += 1
        o.transmissions += 1
        o.last_sent = now
        o.tx_order = self._tx_order
        self._tx_order += 1
        o.resend = False
        self._last_data_tx = now
        if self._rto_deadline == _NEVER:
            self._rto_deadline = now + self._rto
        frame = Frame(
            o.type,
            seq=o.seq,
            ack=self._rx_next,
            sack=self._sack_bits(),
            payload=o.payload,
            version=self._version or PROTOCOL_VERSION,
        )
        self._emit(out, frame)

    def _sack_bits(self) -> int:
        if not self._rx_buffer:
            return 0
        bits = 0
        for i in range(8):
            if (self._rx_next + 1 + i) % SEQ_MOD in self._rx_buffer:
                bits |= 1 << i
        return bits

    # --- timers and state -----------------------------------------------------------------

    def _on_timeout(self, now: float, out: bytearray) -> None:
        self._counters.timeouts += 1
        self._consecutive_timeouts += 1
        if self._consecutive_timeouts > self.config.max_retransmits:
            self._fail(now)
            return
        self._rto = min(2 * self._rto, self.config.rto_max)  # RFC 6298 (5.5): back off
        self._rto_deadline = _NEVER
        for o in self._inflight:
            if not o.sacked:
                self._transmit(o, now, out)
        self._rto_deadline = now + self._rto

    def _update_rto(self, sample: float) -> None:
        self._counters.rtt_samples += 1
        if self._srtt is None:
            self._srtt = sample
            self._rttvar = sample / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - sample)
            self._srtt = 0.875 * self._srtt + 0.125 * sample
        self._rto = self._computed_rto()

    def _computed_rto(self) -> float:
        if self._srtt is None:
            return self.config.rto_initial
        rto = self._srtt + max(self.config.clock_granularity, 4 * self._rttvar)
        return min(max(rto, self.config.rto_min), self.config.rto_max)

    def _fail(self, now: float) -> None:
        self._counters.failures += 1
        self._state = LinkState.FAILED
        self._rto_deadline = _NEVER
        self._hello_deadline = now
        self._hello_interval = self.config.rto_initial

    def _go_up(self, now: float) -> None:
        self._state = LinkState.UP
        self._consecutive_timeouts = 0
        self._rto = self._computed_rto()
        self._last_data_tx = now
        self._rto_deadline = now + self._rto if self._inflight else _NEVER
        for o in self._inflight:
            # Sent before the link went down: the peer may never have seen them.
            if o.transmissions and not o.sacked:
                o.resend = True
                self._resend_pending = True

    def _renumber(self) -> None:
        """A new peer session: restart both sequence spaces at 0, keeping unacked messages."""
        self._queue.extendleft(reversed([(o.type, o.payload, o.number) for o in self._inflight]))
        self._inflight.clear()
        self._tx_next = 0
        self._rto_deadline = _NEVER
        self._consecutive_timeouts = 0
        self._rx_next = 0
        self._rx_buffer.clear()
        self._ack_pending = False
