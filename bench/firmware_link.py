"""The board firmware's cost per frame, and what it is at a 168 MHz Cortex-M4 against the
frame's time on the wire at 115,200 baud (10 bits per byte).

Instructions are counted, not timed, two ways on the same cases (firmware/host/
bench_cases.c): the ARM build under QEMU with `-icount shift=0` (Thumb-2 instructions of
the real firmware code, -Os; SysTick calibrated against a loop of known length), and the
host build under `valgrind --tool=callgrind` (x86-64 instructions, collection on only
inside the board's work) as a cross-check. Both are exact and the same on every run.
Cycles: the Thumb-2 count × 1.5 (conservative: on the M4 most instructions take one cycle,
loads two, taken branches two to four; the flash accelerator hides the wait states).

rx: a frame from the host received, COBS-decoded, CRC-checked, delivered, and acked.
tx: a message queued, framed and sent, and the host's ack processed.

Baseline: the same frame's wire time. A ratio below 1 means the MCU keeps up with the
cable; it is also the share of the CPU the link takes when the line runs flat out.

    python bench/firmware_link.py            # 1000 frames per callgrind case
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
CYCLES_PER_INSTRUCTION = 1.5
ARM_BENCH = FIRMWARE / "build" / "arm" / "bench-icount.elf"
BAUD = 115_200
KIND_LABELS = ("button", "text", "inventory", "max")


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


def arm_instructions() -> dict[str, int]:
    """Thumb-2 instructions per frame from the ARM build under QEMU -icount."""
    command = ["qemu-system-arm", "-M", "netduinoplus2", "-display", "none", "-monitor", "none"]
    command += ["-icount", "shift=0", "-kernel", str(ARM_BENCH), "-serial", "stdio"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    counts: dict[str, int] = {}
    try:
        for line in proc.stdout:
            if line.strip() == "done":
                break
            kind, direction, per_frame, _wire = line.split()
            counts[f"{kind} {direction}"] = int(per_frame)
    finally:
        proc.kill()
        proc.wait()
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 frames per callgrind case")
    args = parser.parse_args()
    frames = 50 if args.quick else 1000
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), "bench"], check=True)
    arm = arm_instructions()
    print(f"board firmware link at {CPU_HZ / 1e6:.0f} MHz vs {BAUD} baud "
          f"({CYCLES_PER_INSTRUCTION} cycles per instruction)")  # fmt: skip
    print(f"{'case':<14}{'wire B':>7}{'M4 instr':>10}{'x86 instr':>11}{'µs':>8}"
          f"{'wire µs':>10}{'ratio':>8}")  # fmt: skip
    worst = (0.0, "")
    for kind in KIND_LABELS:
        for direction in ("rx", "tx"):
            case = f"{kind} {direction}"
            x86, wire = instructions(direction, kind, frames)
            cpu_us = arm[case] * CYCLES_PER_INSTRUCTION / CPU_HZ * 1e6
            wire_us = wire * 10 / BAUD * 1e6
            ratio = cpu_us / wire_us
            worst = max(worst, (ratio, case))
            print(f"{case:<14}{wire:>7}{arm[case]:>10}{x86:>11.0f}{cpu_us:>8.1f}"
                  f"{wire_us:>10.1f}{ratio:>8.3f}")  # fmt: skip
    print(f"firmware link at 168 MHz: at most {worst[0]:.3f} of the wire time ({worst[1]})")


if __name__ == "__main__":
    sys.exit(main())
