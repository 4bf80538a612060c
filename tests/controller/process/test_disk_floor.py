"""The disk floor: after a write refused for lack of space, there is room again only once
more is free than when it was refused (and the floor on top)."""

from __future__ import annotations

from pathlib import Path

from controller.process.disk_space import DiskFloor


def test_a_full_disk_with_no_floor_has_no_room_until_space_is_freed() -> None:
    free = [0]
    disk = DiskFloor(Path("/"), 0, lambda: free[0])
    disk.refuse()
    assert not disk.room()  # 0 bytes free refused a write: 0 bytes is no room
    free[0] = 4096
    assert disk.room()
    assert disk.refused_at is None


def test_room_after_a_refusal_needs_the_floor_on_top_of_what_was_refused() -> None:
    free = [1000]
    disk = DiskFloor(Path("/"), 500, lambda: free[0])
    disk.refuse()
    free[0] = 1400
    assert not disk.room()
    free[0] = 1500
    assert disk.room()
