"""The deployment files hold together: the compose file's structure and mounts, the systemd
units, udev rules, journald settings and the install script (docker and systemd do not run
here; the broker config runs in test_broker_acl)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from bench.latency import SERVICE_ENV
from controller.config import HubSettings, env_name

pytestmark = pytest.mark.timeout(60)
DEPLOY = Path(__file__).parents[2] / "deploy"
REPO = DEPLOY.parent
GENERATED = {"hub.env", "mjtable.passwd", "mjtable.acl"}  # made by the technician


def unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """systemd's ini dialect: sections of repeatable keys."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key, []).append(value)
    return sections


def test_compose_file() -> None:
    compose = yaml.safe_load((DEPLOY / "hub" / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "mosquitto", "hub"}
    assert services["postgres"]["image"] == "postgres:15"
    assert services["mosquitto"]["image"].startswith("eclipse-mosquitto:2")
    assert services["hub"]["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "mosquitto": {"condition": "service_started"},
    }
    assert "healthcheck" in services["postgres"]
    named = set(compose["volumes"])
    for name, service in services.items():
        assert service["restart"] == "unless-stopped", name
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                path = (DEPLOY / "hub" / source).resolve()
                assert path.exists() or path.name in GENERATED, f"{name}: {source}"
            else:
                assert source in named, f"{name}: volume {source} not declared"
        env_file = service.get("env_file")
        if env_file is not None:
            assert env_file == "hub.env" and (DEPLOY / "hub" / "hub.env.example").exists()
    # The hub's settings are the ones `mjtable hub` reads.
    hub = services["hub"]
    build = hub["build"]
    dockerfile = (DEPLOY / "hub" / build["context"] / build["dockerfile"]).resolve()
    assert dockerfile.exists()
    read = {env_name(("hub", f)) for f in HubSettings.model_fields} | {
        env_name(loc) for loc in (("parlour",), ("data_dir",), ("log", "level"), ("log", "format"))
    }
    for variable in hub["environment"]:
        assert variable in read, variable
    env = hub["environment"]
    assert env["MJTABLE_HUB__STORE"].startswith("postgresql+psycopg://")
    assert "@postgres:5432/" in env["MJTABLE_HUB__STORE"]
    assert env["MJTABLE_HUB__MQTT"] == "mqtt://mosquitto:1883"
    assert hub["ports"] == [f"${{HUB_PORT:-8080}}:{env['MJTABLE_HUB__PORT']}"]
    example = (DEPLOY / "hub" / "hub.env.example").read_text()
    for needed in ("POSTGRES_PASSWORD", "PGPASSWORD", "MJTABLE_PARLOUR", "MJTABLE_HUB__PASSWORD"):
        assert f"{needed}=" in example
        assert needed in read or not needed.startswith("MJTABLE_")
    # What the image copies exists, and it runs `mjtable hub`.
    text = dockerfile.read_text()
    for copied in re.findall(r"^COPY (.+) \S+$", text, re.M):
        for name in copied.split():
            assert (REPO / name).exists(), name
    assert 'ENTRYPOINT ["mjtable", "hub"]' in text
    ignored = (DEPLOY / "hub" / ".gitignore").read_text().split()
    assert set(ignored) >= GENERATED


@pytest.mark.parametrize("name", ["mjtable.service", "mjtable-hub.service"])
def test_systemd_units(name: str) -> None:
    sections = unit(DEPLOY / "systemd" / name)
    service = sections["Service"]
    assert service["Type"] == ["notify"]  # READY=1 and WATCHDOG=1 from controller.process.sd_notify
    assert service["Restart"] == ["on-failure"]
    assert int(service["WatchdogSec"][0]) >= 10
    assert service["User"] == ["mjtable"]
    assert service["ExecStart"][0].startswith("/opt/mjtable/venv/bin/mjtable ")
    assert sections["Install"]["WantedBy"] == ["multi-user.target"]


def test_table_unit_has_the_hardware_groups_and_config() -> None:
    service = unit(DEPLOY / "systemd" / "mjtable.service")["Service"]
    assert set(service["SupplementaryGroups"][0].split()) == {"dialout", "gpio", "audio"}
    assert service["ExecStart"] == [
        "/opt/mjtable/venv/bin/mjtable run --config /etc/mjtable/table.toml"
    ]
    assert service["WorkingDirectory"] == ["/var/lib/mjtable"]


def test_the_bench_runs_the_service_with_the_units_environment() -> None:
    """bench/latency.py's memory figure is the Pi's only if the allocator and interpreter
    settings it measures with are the unit's."""
    service = unit(DEPLOY / "systemd" / "mjtable.service")["Service"]
    environment = dict(line.partition("=")[::2] for line in service["Environment"])
    assert {k: environment.get(k) for k in SERVICE_ENV} == SERVICE_ENV


def test_udev_rules() -> None:
    rules = [
        line
        for line in (DEPLOY / "udev" / "99-mjtable.rules").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    names = []
    for rule in rules:
        assert 'SUBSYSTEM=="tty"' in rule
        for attr in ("idVendor", "idProduct", "serial"):
            assert re.search(rf'ATTRS\{{{attr}\}}=="[^"]+"', rule), rule
        names += re.findall(r'SYMLINK\+="([^"]+)"', rule)
    assert names[0] == "mjtable-board"
    assert names[1:] == [f"mjtable-reader-{i}" for i in range(len(names) - 1)]


def test_journald_retention() -> None:
    journal = unit(DEPLOY / "journald" / "mjtable.conf")["Journal"]
    assert journal["Storage"] == ["persistent"]
    assert journal["SystemMaxUse"] and journal["MaxRetentionSec"]


def test_install_script() -> None:
    script = DEPLOY / "install.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)
    text = script.read_text()
    needed = ("python3-lgpio", "fonts-noto-cjk", "dialout,gpio,audio", "CONF=/etc/mjtable")
    needed += ("espeak-ng", "alsa-utils")  # the voice (docs/voice.md)
    needed += ('"$CONF/table.toml"', "DATA=/var/lib/mjtable", "--system-site-packages")
    for word in needed:
        assert word in text, word
    for installed in re.findall(r'"\$SRC/(deploy/[^"]+)"', text):
        assert (REPO / installed).exists(), installed
