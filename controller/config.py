"""The table service's settings: a TOML file, then ``MJTABLE_*`` environment overrides.

``load_config(path)`` is what ``mjtable run --config table.toml`` calls. With no file and no
environment the defaults run the demo: the virtual table, the embedded broker, SQLite in
``./data`` and the web UI on. Environment variables win over the file and nest with ``__``
(``MJTABLE_MQTT__URL=mqtts://hub:8883``); lists take JSON. Relative paths are relative to
the working directory (systemd's ``WorkingDirectory``). A bad value raises ConfigError, whose
message names the field (``mqtt.url``) and, when it came from the environment, the variable.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    FilePath,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from firmware_bridge.gpio.config import GpioConfig

ENV_PREFIX = "MJTABLE_"
ENV_NESTED = "__"
# Parlour and table ids become MQTT topic levels and file names: no '/', '+', '#' or spaces.
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"

_toml_data: ContextVar[dict[str, Any] | None] = ContextVar("_toml_data", default=None)


class ConfigError(ValueError):
    """Invalid settings; ``problems`` lists (field, message), the str() says it all."""

    def __init__(self, message: str, problems: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RulesetSettings(_Section):
    id: str = "xingguo"
    """A built-in preset (``mjtable rules list``)."""
    preset: FilePath | None = None
    """An owner's edited preset (TOML); used instead of the built-in ``id``."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Option overrides on top of the preset, e.g. ``{ bawang = true }``."""

    @model_validator(mode="after")
    def _loads(self) -> RulesetSettings:
        # Fail at start-up, naming the option, rather than at the first settlement.
        from engine.rulesets import PresetError, load_ruleset, ruleset_from_data

        try:
            if self.preset is not None:
                data = tomllib.loads(self.preset.read_text(encoding="utf-8"))
                ruleset_from_data(data, self.options)
            else:
                load_ruleset(self.id, self.options)
        except (PresetError, tomllib.TOMLDecodeError, OSError) as err:
            raise ValueError(str(err)) from None
        return self


class BoardSettings(_Section):
    url: str = "/dev/ttyAMA0"
    """A device or a pyserial URL (``socket://host:port``, ``loop://``)."""
    baud: int = Field(115200, gt=0)
    zone_map: FilePath | None = None
    """JSON file: the zone of each reader on the board's own reader line (its sets arrive
    as INVENTORY messages through the link; docs/firmware.md)."""


class ReaderSettings(_Section):
    url: str
    codec: Literal["hf", "ref", "a0", "iso15693"] = "hf"
    """``a0``: a UHF R2000/E710 reader; ``iso15693``: a FEIG-style HF reader with an
    antenna multiplexer (docs/rfid.md). Their antenna ports 1, 2, ... report as the zone
    map's reader ids in ascending order."""
    baud: int = Field(115200, gt=0)
    address: int = Field(1, ge=0, le=255)
    """Multi-antenna readers: the reader's bus address."""
    zone_map: FilePath
    """JSON file: which zone each of this bus's reader ids covers (docs/rfid.md)."""


class HardwareSettings(_Section):
    virtual: bool = True
    """The simulator plays the table over a pty; board and readers are then ignored."""
    board: BoardSettings = BoardSettings()
    readers: list[ReaderSettings] = Field(default_factory=list)
    """The readers; ``"none"`` in the settings: a table without readers, each hand's result
    entered by staff (docs/staff.md). A virtual table without readers has no board either."""
    registry: Path | None = None
    """The tag registry from ``mjtable enroll``; default ``<data_dir>/tags.json``."""
    _readerless: bool = PrivateAttr(False)

    @model_validator(mode="wrap")
    @classmethod
    def _readers_for_real_table(cls, data: Any, handler: Any) -> HardwareSettings:
        """A real table reads its tiles somewhere, unless ``readers = "none"`` says it has
        no readers (then it has no reader line on the board either)."""
        none = isinstance(data, dict) and data.get("readers") == "none"
        if none:
            data = {**data, "readers": []}
        model: HardwareSettings = handler(data)
        model._readerless = none or model._readerless
        if model._readerless:
            if model.board.zone_map is not None:
                raise ValueError('readers: "none", yet the board has a reader line (zone_map)')
        elif not model.virtual and not model.readers and model.board.zone_map is None:
            raise ValueError(
                "readers: a real table (virtual = false) needs at least one reader (its own "
                'port, or on the board\'s reader line: board.zone_map), or readers = "none"'
            )
        return model

    @property
    def readerless(self) -> bool:
        return self._readerless


class GpioSettings(_Section):
    enabled: bool = False
    pin_factory: Literal["auto", "lgpio", "rpigpio", "mock"] = "auto"
    """gpiozero pin factory; auto picks lgpio on a Pi 5, RPi.GPIO on older boards."""
    dice_button: int = 17
    link_led: int = 27
    fault_led: int = 22
    buzzer: int = 18
    button_pull_up: bool = True
    bounce_time: float = 0.05
    buzzer_active_high: bool = True

    @model_validator(mode="after")
    def _valid_pins(self) -> GpioSettings:
        self.to_gpio_config()  # its checks (distinct BCM pins) raise ValueError
        return self

    def to_gpio_config(self) -> GpioConfig:
        return GpioConfig(
            dice_button=self.dice_button,
            link_led=self.link_led,
            fault_led=self.fault_led,
            buzzer=self.buzzer,
            button_pull_up=self.button_pull_up,
            bounce_time=self.bounce_time,
            buzzer_active_high=self.buzzer_active_high,
        )


class TrackerSettings(_Section):
    """How long the tracker waits before it raises an alert or closes a claim window, and
    the alert gate's and the readers' times (``controller.tracking.tracker.Tracker`` takes it)."""

    grace: float = Field(3.0, gt=0)
    """Seconds an unexplained observation (a misread, a tile in two zones) waits for the
    readers to settle before it becomes an alert."""
    claim_timeout: float | None = Field(6.0, gt=0)
    """After a 胡 on a discard, seats that said nothing for this long pass (unset: only
    buttons and the next draw close a claim window)."""
    button_ttl: float = Field(5.0, gt=0)
    """Seconds a seat button that does not apply yet is kept (pressed before the readers
    saw the discard)."""
    meld_settle: float = Field(1.0, gt=0)
    """Seconds a meld laid without its claim button must lie still before its tiles alone
    decide, when two of a kind could still become a kong (the seat holds the third)."""
    reader_silent_after: float = Field(3.0, gt=0)
    """Seconds without a scan before a reader is reported silent (the bridge's default)."""
    claim_answer_time: float = Field(90.0, gt=0)
    """Seconds the paying seats have to answer a player's claim from their phones before
    staff are called (docs/play.md)."""
    stuck_after: float = Field(2.0, gt=0)
    """Seconds a reader may stay silent (after ``reader_silent_after``) before the hand in
    play waits for staff and the status topic, the dealer card and the display say so
    (a hand whose walls changed under it waits at once)."""
    alert_window: float = Field(10.0, gt=0)
    """Alerts of one kind at one place after the first within this many seconds go out as
    one summary with a count (a flood of stray tags is a few messages, not thousands)."""


class NotLoopback(ValueError):
    """The embedded broker was asked to listen where other machines reach it."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def require_loopback(host: str) -> None:
    if not is_loopback(host):
        raise NotLoopback(
            f"the embedded MQTT broker has no accounts, so it listens on loopback only "
            f"(127.0.0.1), not {host!r}: for displays on the LAN run Mosquitto with the "
            f"accounts of `mjtable broker-acl` and set mqtt.embedded = false (docs/service.md)"
        )


class MqttSettings(_Section):
    embedded: bool = True
    """Run the broker in-process (demo, single table); false for a parlour's Mosquitto."""
    url: str = "mqtt://127.0.0.1:1883"
    """``mqtt://host:port`` or ``mqtts://host:port`` (TLS). Embedded: where it listens."""
    ws_port: int = Field(9001, ge=0, le=65535)
    """The broker's MQTT-over-WebSocket port, for the browser pages fed from it (/floor,
    /display?broker=): the embedded broker listens there on the url's host; a parlour's
    Mosquitto has its own (9001 in deploy/mosquitto/mjtable.conf). A page gives its account
    to this port of its own host and no other; 0: to none there."""
    username: str | None = None
    password: SecretStr | None = None
    ca_file: FilePath | None = None
    """CA bundle that signed the broker's certificate (mqtts); system CAs when unset."""
    client_id: str | None = None
    """Default ``mjtable-<parlour>-<table>``; must be unique on the broker."""
    keepalive: int = Field(30, ge=5, le=3600)
    topic_root: str = "mahjong"
    reconnect_min: float = Field(0.5, gt=0)
    """Seconds before the first reconnect; doubles up to reconnect_max."""
    reconnect_max: float = Field(30.0, gt=0)
    publish_timeout: float = Field(10.0, gt=0)
    """Seconds to wait for a PUBACK before the connection is deemed dead."""

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("mqtt", "mqtts"):
            raise ValueError(f"must be mqtt://host:port or mqtts://host:port, got {value!r}")
        if parts.username or parts.password:
            raise ValueError("put credentials in mqtt.username / mqtt.password, not the url")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError(f"must be scheme://host:port with nothing after, got {value!r}")
        try:
            parts.port  # noqa: B018  (raises on a bad port)
        except ValueError:
            raise ValueError(f"bad port in {value!r}") from None
        if not parts.hostname:
            raise ValueError(f"no host in {value!r}")
        return value

    @field_validator("topic_root")
    @classmethod
    def _root(cls, value: str) -> str:
        if not value or any(c in value for c in "+#") or value.startswith("/"):
            raise ValueError(f"not a usable topic prefix: {value!r}")
        return value.rstrip("/")

    @model_validator(mode="after")
    def _consistent(self) -> MqttSettings:
        if self.embedded and self.tls:
            raise ValueError("url: the embedded broker has no TLS; use mqtt:// or embedded = false")
        if self.embedded:
            require_loopback(self.host)
        if self.embedded and self.ws_port and self.ws_port == self.port:
            raise ValueError(f"ws_port: {self.ws_port} is the url's port already")
        if self.password is not None and self.username is None:
            raise ValueError("username: required when a password is set")
        if self.reconnect_max < self.reconnect_min:
            raise ValueError("reconnect_max: must be >= reconnect_min")
        return self

    @property
    def tls(self) -> bool:
        return urlsplit(self.url).scheme == "mqtts"

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        port = urlsplit(self.url).port
        return port if port is not None else (8883 if self.tls else 1883)


class StoreSettings(_Section):
    url: str | None = None
    """SQLAlchemy URL; default ``sqlite:///<data_dir>/mjtable.db``. The hub uses
    ``postgresql+psycopg://user:pass@host/db``."""
    min_free_mb: float = Field(default=64.0, ge=0)
    """No hand starts while the data directory's file system has less free than this
    (a hand's events, outbox and WAL take well under 1 MB; 0: no floor)."""

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return database_url(value)


def database_url(value: str | None) -> str | None:
    """A SQLAlchemy URL of a database we can keep hands in (SQLite, PostgreSQL)."""
    if value is None:
        return None
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        backend = make_url(value).get_backend_name()
    except ArgumentError:
        raise ValueError(f"not a database URL: {value!r}") from None
    if backend not in ("sqlite", "postgresql"):
        raise ValueError(f"sqlite or postgresql only, got {backend!r}")
    return value


class WebSettings(_Section):
    enabled: bool = True
    host: str = "0.0.0.0"
    port: int = Field(8080, ge=0, le=65535)
    brokers: list[str] = []
    """WebSocket brokers (``ws://hub:9001``) the pages may give their account to besides
    one on the page's own host (``?broker=``; docs/displays.md); nothing else is reached."""

    @field_validator("brokers")
    @classmethod
    def _brokers(cls, value: list[str]) -> list[str]:
        return [broker_origin(v) for v in value]


def broker_origin(url: str) -> str:
    """``ws://host:port`` of a broker's WebSocket URL, as a page (``URL.host``) and its CSP
    name it: lower case, no default port."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if parts.scheme not in ("ws", "wss") or not re.fullmatch(
        r"[a-z0-9.-]{1,253}|[0-9a-f:.]{2,45}", host
    ):
        raise ValueError(f"must be ws://host:port or wss://host:port, got {url!r}")
    if (
        parts.username
        or parts.password
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise ValueError(f"only ws://host:port (no account, path or query), got {url!r}")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"bad port in {url!r}") from None
    name = f"[{host}]" if ":" in host else host
    default = 80 if parts.scheme == "ws" else 443
    return f"{parts.scheme}://{name}" + (f":{port}" if port not in (None, default) else "")


class MetricsSettings(_Section):
    enabled: bool = True
    host: str = "0.0.0.0"
    port: int = Field(9108, ge=0, le=65535)


class LogSettings(_Section):
    level: Literal["debug", "info", "warning", "error"] = "info"
    format: Literal["console", "json"] = "console"
    """console for a terminal; json (one object a line) for journald and log shippers."""

    @field_validator("level", "format", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value


class VoiceKinds(_Section):
    """Which public announcements are spoken (``controller.voice.phrases`` says them)."""

    dice: bool = True
    """Every roll: 骰子 三 五 八点."""
    jing: bool = True
    """The 正精/副精 (or 财神, 下精) once turned up; lianhua's 暗精 never."""
    chow: bool = True
    pung: bool = True
    kong: bool = True
    win: bool = True
    exhausted: bool = True
    """流局."""
    settlement: bool = True
    """Each seat's net."""
    alerts: bool = True
    """The alerts' public text."""
    discard: bool = False
    """Each discarded tile (an automatic table's call-out; off: it talks all hand long)."""
    cashout: bool = True
    """A session's cash-out when it closes: each player's net (by name, or seat), who pays
    whom."""


class VoiceSettings(_Section):
    """Mandarin announcements on the Pi's audio out (docs/voice.md): espeak-ng renders a
    WAV, ``player`` plays it; all of it off the table loop, which only queues them."""

    enabled: bool = False
    speak: VoiceKinds = VoiceKinds()
    volume: int = Field(50, ge=0, le=100)
    """Percent of espeak-ng's loudest (amplitude 200); 50 is espeak-ng's own default. The
    speaker's level is the sound card's (``alsamixer``)."""
    speed: int = Field(150, ge=80, le=450)
    """Words (syllables) a minute (espeak-ng ``-s``)."""
    voice: str = Field("cmn-latn-pinyin", pattern=r"^[A-Za-z0-9_+-]{1,40}$")
    """espeak-ng's Mandarin voice. ``cmn-latn-pinyin`` and not ``cmn``: Debian's ``cmn``
    reads the pinyin of most characters with English letters ("ba one")."""
    quiet_from: dt.time | None = None
    """Quiet hours, local time: nothing is spoken from ``quiet_from`` until ``quiet_until``
    (e.g. "23:00" to "09:00", across midnight). Both or neither."""
    quiet_until: dt.time | None = None
    max_age: float = Field(6.0, gt=0)
    """Seconds an announcement may wait in the queue; older ones are dropped unsaid."""
    queue: int = Field(8, ge=1, le=100)
    """Announcements waiting at most; a full queue drops its oldest."""
    device: str | None = Field(None, pattern=r"^[A-Za-z0-9_:,.=-]{1,80}$")
    """The ALSA device for ``aplay -D`` (``mjtable say --test`` to try; ``aplay -L`` lists
    them); unset: the system's default."""
    player: list[str] = Field(default_factory=lambda: ["aplay", "-q"], min_length=1)
    """The command that plays a WAV from its standard input (``device`` is added as
    ``-D device``)."""

    @model_validator(mode="after")
    def _quiet_hours(self) -> VoiceSettings:
        if (self.quiet_from is None) != (self.quiet_until is None):
            raise ValueError("quiet_from and quiet_until: set both, or neither")
        return self


class HubSettings(_Section):
    """``mjtable hub``: the parlour hub (docs/parlour.md). It reads the same file and
    variables as ``run``: the top-level ``parlour`` and ``data_dir`` (its web secret key),
    ``[log]``, and this section (``MJTABLE_HUB__STORE``, ``MJTABLE_HUB__PORT`` …)."""

    store: str | None = None
    """SQLAlchemy URL of the parlour's database, e.g. ``postgresql+psycopg://mjtable@/mjtable``
    (required to run a hub)."""
    mqtt: str = "mqtt://127.0.0.1:1883"
    """The parlour's broker: ``mqtt://host:port`` or ``mqtts://host:port``."""
    username: str | None = None
    password: SecretStr | None = None
    ca_file: FilePath | None = None
    """CA bundle that signed the broker's certificate (mqtts); system CAs when unset."""
    web: bool = True
    """Serve the owners' web app."""
    host: str = "0.0.0.0"
    port: int = Field(8080, ge=0, le=65535)
    tls_cert: FilePath | None = None
    """Serve HTTPS with this certificate (and ``tls_key``)."""
    tls_key: FilePath | None = None
    forwarded_allow_ips: str = "127.0.0.1"
    """Proxies whose X-Forwarded-Proto is believed (a TLS proxy in front)."""

    @field_validator("store")
    @classmethod
    def _store(cls, value: str | None) -> str | None:
        return database_url(value)

    @model_validator(mode="after")
    def _consistent(self) -> HubSettings:
        self.mqtt_settings()  # (its checks: the url, a password without a username …)
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("tls_cert and tls_key go together")
        return self

    def mqtt_settings(self) -> MqttSettings:
        values: dict[str, Any] = {"url": self.mqtt, "embedded": False}
        for key in ("username", "password", "ca_file"):
            if getattr(self, key) is not None:
                values[key] = getattr(self, key)
        return MqttSettings(**values)


def nested(into: dict[str, Any], loc: tuple[str, ...], value: Any) -> None:
    """``into[loc[0]][loc[1]]… = value``, making the sections on the way."""
    for key in loc[:-1]:
        into = into.setdefault(key, {})
    into[loc[-1]] = value


class TableSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_NESTED,
        extra="forbid",
        frozen=True,
    )

    parlour: str = "demo"
    table: str = "t1"
    data_dir: Path = Path("data")
    ruleset: RulesetSettings = RulesetSettings()
    hardware: HardwareSettings = HardwareSettings()
    gpio: GpioSettings = GpioSettings()
    tracker: TrackerSettings = TrackerSettings()
    mqtt: MqttSettings = MqttSettings()
    store: StoreSettings = StoreSettings()
    web: WebSettings = WebSettings()
    metrics: MetricsSettings = MetricsSettings()
    log: LogSettings = LogSettings()
    voice: VoiceSettings = VoiceSettings()
    hub: HubSettings = HubSettings()

    @field_validator("parlour", "table")
    @classmethod
    def _topic_level(cls, value: str) -> str:
        if not re.fullmatch(ID_PATTERN, value):
            raise ValueError(
                f"1-64 letters, digits, '_', '-' or '.' (it becomes an MQTT topic level), "
                f"got {value!r}"
            )
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Priority, highest first: constructor arguments, environment, the TOML file.
        file_source = InitSettingsSource(settings_cls, init_kwargs=_toml_data.get() or {})
        return (init_settings, env_settings, file_source)

    @property
    def store_url(self) -> str:
        return self.store.url or f"sqlite:///{self.data_dir / 'mjtable.db'}"

    @property
    def registry_path(self) -> Path:
        return self.hardware.registry or self.data_dir / "tags.json"

    @property
    def mqtt_client_id(self) -> str:
        return self.mqtt.client_id or f"mjtable-{self.parlour}-{self.table}"


def env_name(loc: tuple[str | int, ...]) -> str:
    """The environment variable that sets a field: ("mqtt", "url") -> MJTABLE_MQTT__URL."""
    return ENV_PREFIX + ENV_NESTED.join(str(p) for p in loc).upper()


def _describe(err: ValidationError, source: str) -> ConfigError:
    problems: list[tuple[str, str]] = []
    for item in err.errors():
        loc = tuple(item["loc"])
        field = ".".join(str(p) for p in loc) or "(top level)"
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown setting (check the spelling)"
        # The outermost named field that an environment variable sets, if any.
        origin = next(
            (env_name(loc[:n]) for n in range(1, len(loc) + 1) if env_name(loc[:n]) in os.environ),
            None,
        )
        where = f" (from {origin})" if origin else ""
        problems.append((field, f"{message}{where}"))
    lines = [f"  {field}: {message}" for field, message in problems]
    return ConfigError(f"invalid settings in {source}:\n" + "\n".join(lines), problems)


def load_config(
    path: Path | str | None = None, overrides: Mapping[str, Any] | None = None
) -> TableSettings:
    """Settings from ``path`` (TOML, optional), overridden by ``MJTABLE_*`` variables, then
    by ``overrides`` (nested like the file: a command's options)."""
    data: dict[str, Any] = {}
    source = "defaults and environment"
    if path is not None:
        path = Path(path)
        source = f"{path} and environment"
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as err:
            raise ConfigError(f"cannot read {path}: {err.strerror}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise ConfigError(f"{path}: not valid TOML: {err}") from None
    token = _toml_data.set(data)
    try:
        return TableSettings(**dict(overrides or {}))
    except ValidationError as err:
        raise _describe(err, source) from None
    finally:
        _toml_data.reset(token)
