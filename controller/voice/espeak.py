"""espeak-ng's Mandarin, offline: a text rendered to a WAV, played by ``aplay`` (or the
settings' ``player``). Two child processes, no shell: the text goes in on a pipe, never
on a command line a text could turn into options."""

from __future__ import annotations

import subprocess

from controller.config import VoiceSettings

ESPEAK = "espeak-ng"
TIMEOUT = 30.0  # s; a call-out is a few seconds, a hung sound card must not hold the voice


def espeak_command(settings: VoiceSettings) -> list[str]:
    """espeak-ng reading its standard input, writing a WAV to its standard output."""
    amplitude = str(settings.volume * 2)  # espeak-ng's amplitude: 0-200
    return [ESPEAK, "-v", settings.voice, "-a", amplitude, "-s", str(settings.speed), "--stdout"]


def render(settings: VoiceSettings, text: str) -> bytes:
    """The WAV of ``text``; raises ``OSError`` (no espeak-ng) or ``CalledProcessError``."""
    done = subprocess.run(
        espeak_command(settings),
        input=text.encode(),
        capture_output=True,
        timeout=TIMEOUT,
        check=True,
    )
    return done.stdout


def player_command(settings: VoiceSettings) -> list[str]:
    device = [] if settings.device is None else ["-D", settings.device]
    return [*settings.player, *device]


class EspeakSink:
    """The table's loudspeaker (``controller.voice.announcer.AudioSink``)."""

    def __init__(self, settings: VoiceSettings) -> None:
        self.settings = settings

    def play(self, text: str) -> None:
        wav = render(self.settings, text)
        subprocess.run(
            player_command(self.settings),
            input=wav,
            capture_output=True,
            timeout=TIMEOUT,
            check=True,
        )
