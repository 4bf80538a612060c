"""espeak-ng says every announcement the table can make: a WAV with sound in it (sox's
``stat``), every character read in Mandarin (never spelled out as English letters)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from controller.config import VoiceSettings
from controller.process.metrics import Metrics
from controller.table.alerts import AlertKind, PublicAlert
from controller.voice.announcer import Announcer
from controller.voice.espeak import EspeakSink, espeak_command, render
from controller.voice.phrases import announcements
from engine.simulation import play_session
from firmware_bridge.rfid.zones import Zone, ZoneKind
from tests.controller.voice.test_voice_cashout import PAYLOAD

ROOT = Path(__file__).resolve().parents[3]
SETTINGS = VoiceSettings(enabled=True)
CASHOUT = PAYLOAD  # (a session's cash-out: members by name, guests by seat, halves)


def every_text() -> list[str]:
    """What the table may say: simulated hands of several rulesets, and every alert."""
    messages: list[tuple[str, object]] = []
    for ruleset in ("xingguo", "lianhua", "chongji", "yongfeng"):
        for hand in play_session(ruleset, 3, random.Random(ruleset)):
            messages += [("events", {"event": e.public_dict()}) for e in hand.log]
            messages.append(("settlement", hand.settlement.as_dict()))
    zones = (Zone(ZoneKind.HAND, 2), Zone(ZoneKind.POOL))
    for kind in AlertKind:
        alert = PublicAlert(kind, 1, zones, reader=3, have=15, want=14, device="/dev/ttyUSB0")
        messages.append(("alerts", alert.as_dict()))
    messages.append(("cashout", CASHOUT))
    return sorted({a.text for a in announcements(messages)})


def sox_stat(wav: bytes) -> dict[str, float]:
    done = subprocess.run(
        ["sox", "-t", "wav", "-", "-n", "stat"], input=wav, capture_output=True, check=True
    )
    found = re.findall(r"^(.+?):\s+(-?[0-9.]+)$", done.stderr.decode(), re.MULTILINE)
    return {k.strip(): float(v) for k, v in found}


def test_every_announcement_renders_to_sound() -> None:
    texts = every_text()
    assert len(texts) > 40
    for text in texts:
        stat = sox_stat(render(SETTINGS, text))
        assert stat["Length (seconds)"] > 0.3, text
        assert stat["RMS     amplitude"] > 0.02, text
        assert stat["Maximum amplitude"] > 0.2, text


def test_every_character_is_read_in_mandarin() -> None:
    """Debian's ``cmn`` voice reads most characters' pinyin as English ("ba one"); the
    voice the settings name must not switch to another language anywhere."""
    texts = every_text()
    command = [c for c in espeak_command(SETTINGS) if c != "--stdout"]
    for text in texts:
        done = subprocess.run(
            [*command, "-q", "-x"], input=text.encode(), capture_output=True, check=True
        )
        phonemes = done.stdout.decode()
        assert "(en)" not in phonemes, (text, phonemes)


def test_the_cashout_renders_to_sound() -> None:
    (said,) = announcements([("cashout", CASHOUT)])
    assert said.text.startswith("本场结算：王五")
    stat = sox_stat(render(SETTINGS, said.text))
    assert stat["Length (seconds)"] > 3, said.text  # seven parts: a few seconds
    assert stat["RMS     amplitude"] > 0.02 and stat["Maximum amplitude"] > 0.2


ODD_NAMES = [
    "Tom Lee",
    "12345678901234",
    "😀🀄",
    "[[h@'loU]]",
    "-v en --stdout",
    "<speak>王五</speak>",
    "محمد",
    "김철수",
    "Z\u0301\u0302\u0303a\u0300\u0301l\u0327go",
    "\u202e五王",
]


def one_named(name: str, n: int = 0) -> dict[str, object]:
    """A cash-out whose first player is ``name``, paid by the guest at 2号位."""
    players = [
        {"seat": 0, "name": name, "net": 5},
        {"seat": 1, "name": None, "net": -5},
        {"seat": 2, "name": None, "net": 0},
        {"seat": 3, "name": None, "net": 0},
    ]
    transfers = [{"from": 1, "to": 0, "points": 5}]
    return {"session_id": f"s{n}", "players": players, "transfers": transfers}


@pytest.mark.parametrize("name", ODD_NAMES)
def test_an_odd_display_name_is_said_with_sound(name: str) -> None:
    (said,) = announcements([("cashout", one_named(name))])
    stat = sox_stat(render(SETTINGS, said.text))
    assert stat["Length (seconds)"] > 1 and stat["RMS     amplitude"] > 0.02, said.text


def test_odd_display_names_never_stop_the_voice(tmp_path: Path) -> None:
    """Every odd name's cash-out through the announcer, the real espeak-ng and a player
    (one that keeps the WAVs): each said, none failed."""
    heard = tmp_path / "heard.wav"
    player = {"player": ["sh", "-c", f"cat >> {heard}"], "max_age": 600.0, "queue": 20}
    settings = SETTINGS.model_copy(update=player)
    metrics = Metrics()
    announcer = Announcer(settings, EspeakSink(settings), metrics=metrics)
    try:
        for n, name in enumerate(ODD_NAMES):
            announcer.hear([("cashout", one_named(name, n))])
        assert announcer.wait_idle(120.0)
    finally:
        announcer.close()
    fates = {
        fate: metrics.registry.get_sample_value("mjtable_voice_announcements_total", {"fate": fate})
        for fate in ("said", "failed")
    }
    assert fates == {"said": len(ODD_NAMES), "failed": None}
    assert heard.read_bytes()[:4] == b"RIFF"


def test_the_volume_setting_is_louder_or_softer() -> None:
    soft = sox_stat(render(VoiceSettings(volume=10), "骰子 三 五 八点"))
    loud = sox_stat(render(VoiceSettings(volume=60), "骰子 三 五 八点"))
    assert loud["RMS     amplitude"] > 2 * soft["RMS     amplitude"]


def mjtable(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "say", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_say_test_writes_a_sample_with_sound(tmp_path: Path) -> None:
    wav = tmp_path / "sample.wav"
    done = mjtable("--test", "--wav", str(wav))
    assert done.returncode == 0, done.stderr
    stat = sox_stat(wav.read_bytes())
    assert stat["Length (seconds)"] > 3 and stat["RMS     amplitude"] > 0.02
    # the header's lengths are the file's: what a player or an editor reads first
    with wave.open(str(wav)) as w:
        frames, rate = w.getnframes(), w.getframerate()
        assert frames * w.getsampwidth() * w.getnchannels() + 44 <= wav.stat().st_size
    assert frames / rate == pytest.approx(stat["Length (seconds)"], abs=0.01)
    soxi = subprocess.run(["soxi", "-D", str(wav)], capture_output=True, text=True, check=True)
    assert float(soxi.stdout) == pytest.approx(frames / rate, abs=0.01)


def test_say_test_samples_a_hand_and_its_sessions_cashout() -> None:
    from controller.cli.say import SAMPLE

    said = {a.kind for a in announcements(SAMPLE)}
    assert {"dice", "jing", "pung", "win", "settlement", "cashout"} <= said


def test_say_plays_through_the_configured_player(tmp_path: Path) -> None:
    import os

    heard = tmp_path / "heard.wav"
    player = f'["sh", "-c", "cat > {heard}"]'
    done = mjtable("骰子 三 五 八点", env=os.environ | {"MJTABLE_VOICE__PLAYER": player})
    assert done.returncode == 0, done.stderr
    assert heard.read_bytes()[:4] == b"RIFF"
    assert sox_stat(heard.read_bytes())["RMS     amplitude"] > 0.02


@pytest.mark.parametrize(
    ("args", "error"),
    [((), "give TEXT or --test"), (("x", "--test"), "give TEXT or --test")],
)
def test_say_needs_a_text_or_the_test(args: tuple[str, ...], error: str) -> None:
    done = mjtable(*args)
    assert done.returncode == 2 and error in done.stderr


def test_say_names_a_missing_player(tmp_path: Path) -> None:
    import os

    done = mjtable("测试", env=os.environ | {"MJTABLE_VOICE__PLAYER": '["no-such-player"]'})
    assert done.returncode == 1 and "no-such-player is not installed" in done.stderr


def test_say_tells_what_the_player_said_when_it_fails() -> None:
    import os

    player = '["sh", "-c", "echo no such card >&2; exit 3"]'
    done = mjtable("测试", env=os.environ | {"MJTABLE_VOICE__PLAYER": player})
    assert done.returncode == 1 and "no such card" in done.stderr


def test_no_text_reaches_espeak_as_raw_phonemes() -> None:
    # espeak-ng reads ``[[...]]`` on its input as phonemes: a text is said as text
    settings = VoiceSettings()
    assert render(settings, "[[h@'loU]]") == render(settings, "  h@'loU  ")
