"""The hub's settings: the same file and variables as ``run`` (a ``[hub]`` section,
``MJTABLE_HUB__KEY``) and its options over them; nothing else."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from controller.cli import app
from controller.config import ConfigError, load_config

HUB_TOML = """
parlour = "p1"
data_dir = "/var/lib/mjtable-hub"
[hub]
store = "postgresql+psycopg://mjtable@/mjtable"
mqtt = "mqtt://broker:1883"
username = "hub"
port = 8081
[log]
format = "json"
"""


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("MJTABLE_"):
            monkeypatch.delenv(name)


def _file(tmp_path: Path, text: str = HUB_TOML) -> Path:
    path = tmp_path / "hub.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_hub_reads_its_section_from_the_file(tmp_path: Path) -> None:
    config = load_config(_file(tmp_path))
    assert config.parlour == "p1" and config.data_dir == Path("/var/lib/mjtable-hub")
    hub = config.hub
    assert (hub.store, hub.mqtt, hub.username, hub.port) == (
        "postgresql+psycopg://mjtable@/mjtable",
        "mqtt://broker:1883",
        "hub",
        8081,
    )
    assert config.log.format == "json"
    mqtt = hub.mqtt_settings()
    assert (mqtt.embedded, mqtt.host, mqtt.port, mqtt.username) == (False, "broker", 1883, "hub")


def test_variables_win_over_the_file_and_options_over_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MJTABLE_HUB__PORT", "9000")
    monkeypatch.setenv("MJTABLE_HUB__PASSWORD", "secret")
    config = load_config(_file(tmp_path))
    assert config.hub.port == 9000 and config.hub.username == "hub"  # the rest from the file
    assert config.hub.password is not None and config.hub.password.get_secret_value() == "secret"
    assert load_config(_file(tmp_path), {"hub": {"port": 9001}}).hub.port == 9001


def test_bad_hub_settings_name_the_field(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"hub\.store: .*sqlite or postgresql"):
        load_config(_file(tmp_path, '[hub]\nstore = "mysql://x/y"\n'))
    with pytest.raises(ConfigError, match=r"hub: .*tls_cert and tls_key go together"):
        load_config(_file(tmp_path, f'[hub]\ntls_cert = "{_file(tmp_path, "")}"\n'))
    with pytest.raises(ConfigError, match=r"hub: .*username"):
        load_config(_file(tmp_path, '[hub]\npassword = "x"\n'))


def test_the_hub_command_says_what_it_lacks() -> None:
    runner = CliRunner()
    none = runner.invoke(app, ["hub"])
    assert none.exit_code == 2
    assert "parlour (--parlour, MJTABLE_PARLOUR)" in none.output
    assert "hub.store (--store, MJTABLE_HUB__STORE)" in none.output
    bad = runner.invoke(app, ["hub", "--parlour", "p1", "--store", "mysql://x/y", "--port", "1"])
    assert bad.exit_code == 2 and "hub.store" in bad.output and "sqlite or postgresql" in bad.output
