"""espeak-ng's Mandarin, offline: a text rendered to a WAV, played by ``aplay`` (or the
settings' ``player``). Two child processes, no shell: the text goes in on a pipe, never
on a command line a text could turn into options; the sound goes from one to the other
on a pipe of their own, never through Python.

espeak-ng runs at the lowest CPU priority (``nice -n 19``): on a busy Pi (or a service
held to a share of a core) rendering speech must never take the CPU from the table loop;
the player, which needs little and needs it on time, runs as it is.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess

from controller.config import VoiceSettings

ESPEAK = "espeak-ng"
NICE = ["nice", "-n", "19"]
TIMEOUT = 30.0  # s; a call-out is a few seconds, a hung sound card must not hold the voice


def as_text(text: str) -> bytes:
    """What espeak-ng is given: ``text`` read as text. On its input ``[[...]]`` is raw
    phonemes, whatever the voice; the brackets are taken out, so no text can bring them."""
    return text.replace("[[", " ").replace("]]", " ").encode()


def espeak_command(settings: VoiceSettings) -> list[str]:
    """espeak-ng reading its standard input, writing a WAV to its standard output."""
    amplitude = str(settings.volume * 2)  # espeak-ng's amplitude: 0-200
    return [ESPEAK, "-v", settings.voice, "-a", amplitude, "-s", str(settings.speed), "--stdout"]


def render(settings: VoiceSettings, text: str) -> bytes:
    """The WAV of ``text``; raises ``OSError`` (no espeak-ng) or ``CalledProcessError``."""
    done = subprocess.run(
        espeak_command(settings),
        input=as_text(text),
        capture_output=True,
        timeout=TIMEOUT,
        check=True,
    )
    return whole_wav(done.stdout)


def whole_wav(raw: bytes) -> bytes:
    """A WAV written to a pipe with its lengths set: espeak-ng cannot seek back on its
    output, so it leaves placeholders in the RIFF and ``data`` sizes (a file read as a
    day long, or as nothing). Here the sound is all there: the sizes are what follows."""
    if len(raw) < 12 or raw[:4] != b"RIFF" or raw[8:12] != b"WAVE":
        return raw
    out = bytearray(raw)
    out[4:8] = (len(raw) - 8).to_bytes(4, "little")
    pos = 12
    while pos + 8 <= len(raw):
        size = int.from_bytes(raw[pos + 4 : pos + 8], "little")
        if raw[pos : pos + 4] == b"data":
            out[pos + 4 : pos + 8] = (len(raw) - pos - 8).to_bytes(4, "little")
            break
        pos += 8 + size + (size & 1)
    return bytes(out)


def player_command(settings: VoiceSettings) -> list[str]:
    device = [] if settings.device is None else ["-D", settings.device]
    return [*settings.player, *device]


class EspeakSink:
    """The table's loudspeaker (``controller.voice.announcer.AudioSink``)."""

    def __init__(self, settings: VoiceSettings) -> None:
        self.settings = settings

    def play(self, text: str) -> None:
        """Says ``text``; raises ``FileNotFoundError`` naming a missing program,
        ``CalledProcessError`` (the player's stderr with it) or ``TimeoutExpired``."""
        if shutil.which(ESPEAK) is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), ESPEAK)
        pipe = subprocess.PIPE
        espeak = subprocess.Popen(
            [*NICE, *espeak_command(self.settings)],
            stdin=pipe,
            stdout=pipe,
            stderr=subprocess.DEVNULL,
        )
        assert espeak.stdin is not None and espeak.stdout is not None
        try:
            player = subprocess.Popen(
                player_command(self.settings),
                stdin=espeak.stdout,
                stdout=subprocess.DEVNULL,
                stderr=pipe,
            )
        except OSError:
            espeak.kill()
            espeak.wait()
            raise
        finally:
            espeak.stdout.close()  # the player's now
        try:
            with espeak.stdin:
                espeak.stdin.write(as_text(text))
            _, err = player.communicate(timeout=TIMEOUT)
            espeak.wait(timeout=TIMEOUT)
        except (subprocess.TimeoutExpired, OSError):
            for child in (player, espeak):
                child.kill()
                child.wait()
            raise
        if player.returncode:  # (first: espeak-ng then fails too, on a closed pipe)
            raise subprocess.CalledProcessError(player.returncode, player.args, stderr=err)
        if espeak.returncode:
            raise subprocess.CalledProcessError(espeak.returncode, espeak.args)
