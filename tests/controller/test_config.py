"""Settings: defaults, a TOML file, environment overrides, and errors that name the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import ConfigError, TableSettings, TrackerSettings, load_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("MJTABLE_"):
            monkeypatch.delenv(name)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_run_the_demo() -> None:
    config = load_config()
    assert config.hardware.virtual and config.mqtt.embedded and config.web.enabled
    assert config.store_url == "sqlite:///data/mjtable.db"
    assert (config.mqtt.host, config.mqtt.port, config.mqtt.tls) == ("127.0.0.1", 1883, False)
    assert config.mqtt_client_id == "mjtable-demo-t1"
    assert config.mqtt.ws_port == 9001  # the embedded broker's WebSocket listener
    assert config.ruleset.id == "xingguo"
    assert config.log.format == "console"


def test_example_file_is_valid() -> None:
    config = load_config(ROOT / "deploy" / "table.example.toml")
    assert config == load_config()  # the example spells out the defaults


def test_file_then_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ca.pem").write_text("not checked here")
    path = write(
        tmp_path,
        f"""
        parlour = "donghu"
        table = "t7"
        [ruleset]
        id = "xingguo"
        options = {{ }}
        [mqtt]
        embedded = false
        url = "mqtts://broker.local"
        username = "t7"
        password = "from-file"
        ca_file = "{tmp_path / "ca.pem"}"
        [store]
        url = "postgresql+psycopg://mj@hub/mjtable"
        [log]
        level = "DEBUG"
        """,
    )
    monkeypatch.setenv("MJTABLE_TABLE", "t8")
    monkeypatch.setenv("MJTABLE_MQTT__PASSWORD", "from-env")
    monkeypatch.setenv("MJTABLE_LOG__FORMAT", "json")
    config = load_config(path)
    assert (config.parlour, config.table) == ("donghu", "t8")
    assert config.mqtt.tls and config.mqtt.port == 8883 and config.mqtt.host == "broker.local"
    assert config.mqtt.password is not None
    assert config.mqtt.password.get_secret_value() == "from-env"
    assert "from-env" not in repr(config)  # secrets are not printed
    assert config.store_url.startswith("postgresql+psycopg://")
    assert (config.log.level, config.log.format) == ("debug", "json")
    assert config.mqtt_client_id == "mjtable-donghu-t8"


def test_nested_lists_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    zones = tmp_path / "zones.json"
    zones.write_text("{}")
    monkeypatch.setenv("MJTABLE_HARDWARE__VIRTUAL", "false")
    monkeypatch.setenv(
        "MJTABLE_HARDWARE__READERS", f'[{{"url": "/dev/ttyUSB0", "zone_map": "{zones}"}}]'
    )
    config = load_config()
    assert not config.hardware.virtual
    assert config.hardware.readers[0].codec == "hf"
    assert config.hardware.readers[0].zone_map == zones


def test_readers_on_the_boards_reader_line_alone_make_a_real_table(tmp_path: Path) -> None:
    zones = tmp_path / "zones.json"
    zones.write_text('{"1": "hand:0"}')
    board_only = f"""
        [hardware]
        virtual = false
        [hardware.board]
        url = "socket://127.0.0.1:7001"
        zone_map = "{zones}"
        """
    config = load_config(write(tmp_path, board_only))
    assert config.hardware.board.zone_map == zones and config.hardware.readers == []
    found = problems(write(tmp_path, "[hardware]\nvirtual = false\n"))
    assert "board.zone_map" in found["hardware"]


def test_a_table_without_readers_is_a_real_table(tmp_path: Path) -> None:
    none = '[hardware]\nvirtual = false\nreaders = "none"\n'
    config = load_config(write(tmp_path, none))
    assert config.hardware.readerless and config.hardware.readers == []
    assert not load_config(write(tmp_path, "")).hardware.readerless
    zones = tmp_path / "zones.json"
    zones.write_text('{"1": "hand:0"}')
    both = none + f'[hardware.board]\nzone_map = "{zones}"\n'
    assert "reader line" in problems(write(tmp_path, both))["hardware"]
    found = problems(write(tmp_path, '[hardware]\nreaders = "some"\n'))
    assert "valid list" in found["hardware.readers"]


def problems(path: Path | None = None) -> dict[str, str]:
    with pytest.raises(ConfigError) as err:
        load_config(path)
    return dict(err.value.problems)


def test_errors_name_the_fields(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        table = "t 1"
        [mqtt]
        url = "http://broker:1883"
        keepalive = 1
        colour = "red"
        [gpio]
        buzzer = 17
        [hardware]
        virtual = false
        [[hardware.readers]]
        url = "/dev/ttyUSB0"
        codec = "uhf"
        zone_map = "missing.json"
        [log]
        level = "loud"
        [ruleset]
        options = { no_such_option = true }
        """,
    )
    found = problems(path)
    assert "MQTT topic level" in found["table"]
    assert "mqtt://host:port" in found["mqtt.url"]
    assert "greater than or equal to 5" in found["mqtt.keepalive"]
    assert "unknown setting" in found["mqtt.colour"]
    assert "distinct" in found["gpio"]
    assert "hf" in found["hardware.readers.0.codec"]
    assert "hardware.readers.0.zone_map" in found
    assert "log.level" in found
    assert "no_such_option" in found["ruleset"]


def test_error_message_says_which_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MJTABLE_MQTT__PORT", "1884")  # no such setting: url carries the port
    monkeypatch.setenv("MJTABLE_METRICS__PORT", "70000")
    with pytest.raises(ConfigError) as err:
        load_config()
    text = str(err.value)
    assert "metrics.port" in text and "(from MJTABLE_METRICS__PORT)" in text
    assert "mqtt.port: unknown setting" in text and "(from MJTABLE_MQTT__PORT)" in text


@pytest.mark.parametrize(
    ("toml", "field", "words"),
    [
        ('[mqtt]\nurl = "mqtt://user:pw@h:1883"', "mqtt.url", "mqtt.username"),
        ('[mqtt]\nurl = "mqtts://h:8883"', "mqtt", "embedded broker has no TLS"),
        ('[mqtt]\npassword = "x"', "mqtt", "username: required"),
        ('[mqtt]\nurl = "mqtt://h:99999"', "mqtt.url", "bad port"),
        ("[mqtt]\nws_port = 70000", "mqtt.ws_port", "less than or equal to 65535"),
        ('[mqtt]\nurl = "mqtt://[::1]:9001"', "mqtt", "ws_port: 9001 is the url's port already"),
        ('[mqtt]\nurl = "mqtt://0.0.0.0:1883"', "mqtt", "loopback only"),
        ('[web]\nbrokers = ["http://hub:9001"]', "web.brokers", "ws://host:port"),
        ('[web]\nbrokers = ["ws://u:p@hub:9001"]', "web.brokers", "no account"),
        ('[store]\nurl = "mysql://x/y"', "store.url", "sqlite or postgresql"),
        ('[store]\nurl = "nonsense"', "store.url", "not a database URL"),
        ('[ruleset]\nid = "mars"', "ruleset", "mars"),
        ("[hardware]\nvirtual = false", "hardware", "at least one reader"),
        ("[tracker]\ngrace = 0", "tracker.grace", "greater than 0"),
        ("[tracker]\nclaim_timeout = -1", "tracker.claim_timeout", "greater than 0"),
        ("[tracker]\nmeld_settle = 0", "tracker.meld_settle", "greater than 0"),
    ],
)
def test_more_errors(tmp_path: Path, toml: str, field: str, words: str) -> None:
    assert words in problems(write(tmp_path, toml))[field]


def test_unreadable_or_broken_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "parlour = "))


def test_constructed_directly() -> None:
    assert TableSettings(table="t3").table == "t3"


def test_tracker_timings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware_bridge.table import DEFAULT_SILENT_AFTER

    default = load_config()
    assert default.tracker == TrackerSettings()
    assert default.tracker.reader_silent_after == DEFAULT_SILENT_AFTER
    path = write(
        tmp_path,
        "[tracker]\ngrace = 1.5\nbutton_ttl = 8\nmeld_settle = 0.5\nreader_silent_after = 10\n",
    )
    monkeypatch.setenv("MJTABLE_TRACKER__CLAIM_TIMEOUT", "4")
    config = load_config(path)
    assert config.tracker == TrackerSettings(
        grace=1.5, claim_timeout=4.0, button_ttl=8.0, meld_settle=0.5, reader_silent_after=10
    )
    assert config.tracker.reader_silent_after == 10.0
