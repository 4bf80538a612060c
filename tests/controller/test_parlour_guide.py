"""The parlour guide's table settings are valid as written, with the zone map its own
block makes (docs/parlour.md, part 1; tests/deploy runs the blocks on a booted Debian)."""

from __future__ import annotations

import re
from pathlib import Path

from controller.config import load_config
from firmware_bridge.rfid.zones import ZoneMap
from tests.deploy.guide import blocks


def test_the_guide_s_zone_map_and_table_settings_load(tmp_path: Path) -> None:
    guide = blocks()
    (path, body) = re.findall(
        r"tee (\S+) >/dev/null <<'EOF'\n(.*?)\nEOF", guide["table-zones"], re.S
    )[0]
    zones = tmp_path / Path(path).name
    zones.write_text(body, encoding="utf-8")
    assert ZoneMap.load(zones) == ZoneMap.standard()
    toml = tmp_path / "table.toml"
    toml.write_text(guide["table-toml"].replace(path, str(zones)), encoding="utf-8")
    config = load_config(toml)
    assert [r.zone_map for r in config.hardware.readers] == [zones]
    assert config.mqtt.username == "table-t1" and not config.hardware.virtual
