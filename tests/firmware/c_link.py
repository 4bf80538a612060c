"""The firmware's C link (firmware/build/host/libmjt.so) behind the Python `Link` interface,
so the simulations of tests/firmware_bridge/ can put it on one end of the line.

Time: the simulation's float seconds become the firmware's millisecond clock (floor);
deadlines come back a hair after their millisecond so that a simulation jumping to one
always finds the C link due.
"""

from __future__ import annotations

import ctypes
import subprocess
from dataclasses import dataclass, fields

from firmware_bridge.protocol import LinkState, Message, Role
from firmware_bridge.protocol.messages import decode_message

from .host_firmware import FIRMWARE

LIBRARY = FIRMWARE / "build" / "host" / "libmjt.so"

_WRITE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t)
_DELIVER = ctypes.CFUNCTYPE(None, ctypes.c_uint8, ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t)


@dataclass
class CCounters:
    """firmware/core/counters.h, field for field (all uint32)."""

    bad_crc: int = 0
    bad_cobs: int = 0
    runts: int = 0
    oversize: int = 0
    bad_version: int = 0
    resyncs: int = 0
    frames: int = 0
    frames_tx: int = 0
    frames_rx: int = 0
    bytes_tx: int = 0
    bytes_rx: int = 0
    messages_sent: int = 0
    messages_delivered: int = 0
    retransmits: int = 0
    fast_retransmits: int = 0
    timeouts: int = 0
    duplicates: int = 0
    out_of_window: int = 0
    bad_ack: int = 0
    unknown_type: int = 0
    bad_payload: int = 0
    no_session: int = 0
    version_mismatch: int = 0
    hellos_tx: int = 0
    hellos_rx: int = 0
    heartbeats_tx: int = 0
    heartbeats_rx: int = 0
    peer_restarts: int = 0
    failures: int = 0
    rtt_samples: int = 0
    rx_slot_too_small: int = 0


_N_COUNTERS = len(fields(CCounters))
_lib: ctypes.CDLL | None = None


def _library() -> ctypes.CDLL:
    global _lib
    if _lib is None:
        subprocess.run(["make", "-s", "-C", str(FIRMWARE), "host"], check=True)
        lib = ctypes.CDLL(str(LIBRARY))
        sizes = [ctypes.c_size_t() for _ in range(3)]
        lib.mjt_api_sizes(*map(ctypes.byref, sizes))
        # CCounters mirrors counters.h field for field: a counter added there must be here.
        assert sizes[2].value == _N_COUNTERS, "CCounters is out of step with counters.h"
        lib.mjt_api_counters.restype = ctypes.POINTER(ctypes.c_uint32 * _N_COUNTERS)
        for name in ("mjt_api_unsent", "mjt_api_messages", "mjt_api_peer_session"):
            getattr(lib, name).restype = ctypes.c_uint32
        lib.mjt_link_next_deadline.restype = ctypes.c_uint32
        lib.mjt_api_decode_stream.restype = ctypes.c_size_t
        lib.mjt_link_send.argtypes = [ctypes.c_void_p, ctypes.c_uint8, ctypes.c_char_p]
        lib.mjt_link_send.argtypes += [ctypes.c_size_t]
        _lib = lib
    return _lib


def payload_check(type_: int, payload: bytes) -> tuple[str, bytes]:
    """The C codec's verdict on a payload: ("ok", its re-encoding), ("unknown", b"") or
    ("malformed", b"")."""
    lib = _library()
    out = ctypes.create_string_buffer(2048)
    out_n = ctypes.c_size_t()
    verdict = lib.mjt_api_payload_check(
        ctypes.c_uint8(type_), payload, ctypes.c_size_t(len(payload)), out, ctypes.byref(out_n)
    )
    return ("ok", "unknown", "malformed")[verdict], out.raw[: out_n.value]


def decode_stream(data: bytes) -> tuple[list[bytes], CCounters]:
    """The C frame decoder over `data`: each frame's header and payload, and the counters."""
    lib = _library()
    out = ctypes.create_string_buffer(len(data) + 16)
    counters = (ctypes.c_uint32 * _N_COUNTERS)()
    n = lib.mjt_api_decode_stream(data, ctypes.c_size_t(len(data)), out, ctypes.byref(counters))
    raw, frames, i = out.raw[:n], [], 0
    while i < n:
        length = int.from_bytes(raw[i : i + 2], "big")
        frames.append(raw[i + 2 : i + 2 + length])
        i += 2 + length
    return frames, CCounters(*counters)


def _ms(now: float) -> int:
    return int(now * 1000 + 1e-6) & 0xFFFFFFFF


class CLink:
    """A C `mjt_link` in memory owned here. `send` raises when the C queue is full."""

    def __init__(self, *, session: int, role: Role = Role.TABLE_BOARD, window: int = 8) -> None:
        lib = self._lib = _library()
        link_size, ctx_size, counters = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
        lib.mjt_api_sizes(*map(ctypes.byref, (link_size, ctx_size, counters)))
        self._mem = ctypes.create_string_buffer(link_size.value)
        self._ctx = ctypes.create_string_buffer(ctx_size.value)
        self._out = bytearray()
        self._got: list[tuple[int, bytes]] = []
        # Keep the callbacks referenced: C holds raw pointers to them.
        self._write_cb = _WRITE(lambda p, n: self._out.extend(ctypes.string_at(p, n)))
        self._deliver_cb = _DELIVER(lambda t, p, n: self._got.append((t, ctypes.string_at(p, n))))
        self._now = 0.0
        lib.mjt_api_init(
            self._mem, self._ctx, window, int(role), ctypes.c_uint32(session), 0,
            self._write_cb, self._deliver_cb,
        )  # fmt: skip

    def send(self, msg: Message, now: float) -> None:
        payload = msg.encode()
        if self._lib.mjt_link_send(self._mem, int(msg.TYPE), payload, len(payload)) != 0:
            raise RuntimeError("C link queue full")

    def receive_bytes(self, data: bytes, now: float) -> list[Message]:
        self._now = now
        self._lib.mjt_link_receive(self._mem, data, len(data), ctypes.c_uint32(_ms(now)))
        got, self._got = self._got, []
        return [decode_message(t, p) for t, p in got]

    def poll(self, now: float) -> bytes:
        self._now = now
        self._lib.mjt_link_poll(self._mem, ctypes.c_uint32(_ms(now)))
        out, self._out = bytes(self._out), bytearray()
        return out

    def next_deadline(self) -> float:
        now_ms = _ms(self._now)
        deadline = self._lib.mjt_link_next_deadline(self._mem, ctypes.c_uint32(now_ms))
        ahead = ((deadline - now_ms + 2**31) % 2**32) - 2**31
        return self._now if ahead <= 0 else (now_ms + ahead) / 1000 + 1e-7

    @property
    def queued(self) -> int:
        return int(self._lib.mjt_api_unsent(self._mem))

    @property
    def idle(self) -> bool:
        return int(self._lib.mjt_api_messages(self._mem)) == 0

    @property
    def state(self) -> LinkState:
        names = (LinkState.CONNECTING, LinkState.UP, LinkState.FAILED)
        return names[self._lib.mjt_api_state(self._mem)]

    @property
    def peer_session(self) -> int | None:
        return int(self._lib.mjt_api_peer_session(self._mem)) or None

    @property
    def counters(self) -> CCounters:
        return CCounters(*self._lib.mjt_api_counters(self._mem).contents)
