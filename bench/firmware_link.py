"""The board firmware's cost per frame, and what it is at a 168 MHz Cortex-M4 against the
frame's time on the wire at 115,200 baud (10 bits per byte).

Instructions are counted, not timed: the host build of the firmware's link
(firmware/host/bench_link.c, -Os like the ARM build) runs under `valgrind --tool=callgrind`
with collection on only inside the board's work for one frame, so the figures are exact and
the same on every run. They are x86-64 instructions, a proxy for Thumb-2 ones (similar
counts for byte-oriented code like this); the M4 figure assumes one instruction per cycle,
which a table-driven CRC and byte copies from SRAM come close to.

rx: a frame from the host received, COBS-decoded, CRC-checked, delivered, and acked.
tx: a message queued, framed and sent, and the host's ack processed.

Baseline: the same frame's wire time. A ratio below 1 means the MCU keeps up with the
cable; it is also the share of the CPU the link takes when the line runs flat out.

    python bench/firmware_link.py            # 1000 frames per case
    python bench/firmware_link.py --quick    # 50
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
DRIVER = FIRMWARE / "build" / "host" / "bench_link"
CPU_HZ = 168e6
BAUD = 115_200
KINDS = ("button", "text", "inventory", "max")


def instructions(direction: str, kind: str, frames: int) -> tuple[float, int]:
    """(instructions per frame, wire bytes per frame) for one case."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(
            [
                "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                f"--toggle-collect=bench_{direction}_one", str(DRIVER), direction, kind,
                str(frames),
            ],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        wire = int(run.stdout.strip())
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
        total = int(totals[0].split()[1])
    return total / frames, wire


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 frames per case")
    args = parser.parse_args()
    frames = 50 if args.quick else 1000
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), "bench"], check=True)
    print(f"board firmware link, {frames} frames per case; {CPU_HZ / 1e6:.0f} MHz vs {BAUD} baud")
    print(f"{'case':<14}{'wire B':>8}{'instr/frame':>13}{'µs @168MHz':>12}{'wire µs':>10}"
          f"{'ratio':>8}")  # fmt: skip
    worst = (0.0, "")
    for kind in KINDS:
        for direction in ("rx", "tx"):
            per_frame, wire = instructions(direction, kind, frames)
            cpu_us = per_frame / CPU_HZ * 1e6
            wire_us = wire * 10 / BAUD * 1e6
            ratio = cpu_us / wire_us
            worst = max(worst, (ratio, f"{kind} {direction}"))
            print(f"{kind + ' ' + direction:<14}{wire:>8}{per_frame:>13.0f}{cpu_us:>12.1f}"
                  f"{wire_us:>10.1f}{ratio:>8.3f}")  # fmt: skip
    print(f"firmware link at 168 MHz: at most {worst[0]:.3f} of the wire time ({worst[1]})")


if __name__ == "__main__":
    sys.exit(main())
