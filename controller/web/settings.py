"""What the web app needs to know besides the store and the live hub."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from controller.web.tokens import load_or_create_secret

if TYPE_CHECKING:
    from controller.config import TableSettings

SECRET_FILE = "web_secret.key"
DEFAULT_WS_PORT = 9001  # MQTT over WebSocket: deploy/mosquitto/mjtable.conf, mqtt.ws_port


@dataclass(frozen=True, slots=True)
class WebAppSettings:
    parlour: str = "demo"
    table: str = "t1"
    """The table this service is; hands played outside a session are listed under it."""
    hub: bool = False
    """The parlour hub: it is no table itself (``table`` only names the app), and every
    table's status comes from the hub's broker."""
    secret_key: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    """Signs login tokens; the default (random per process) ends logins at each restart."""
    login_ttl: float = 12 * 3600.0
    staff_login_ttl: float = 4 * 3600.0
    """A staff login is short: a shift, not a week (docs/staff.md)."""
    cookie_secure: bool = False
    """Always mark the login cookie Secure. Without it the cookie is Secure whenever the
    request came over HTTPS (see docs/parlour.md, "Serving over TLS")."""
    login_attempts: int = 5
    """Failed logins per name within ``login_window`` seconds before it answers 429."""
    login_window: float = 300.0
    login_attempts_per_client: int = 20
    """Login attempts per client address within ``login_window`` (any names)."""
    hash_slots: int = 2
    """Password checks at once (scrypt: 16 MiB and ~0.1 s of a core each)."""
    live_streams: int = 200
    """Open live streams (SSE) in all; each holds a file descriptor."""
    live_streams_per_client: int = 8
    brokers: tuple[str, ...] = ()
    """WebSocket brokers (``ws://host:port``) the pages may reach besides their own host's
    (config ``web.brokers``): the CSP's connect-src and the pages' own check."""
    broker_port: int | None = DEFAULT_WS_PORT
    """The port of the broker's WebSocket listener on the page's own host (``mqtt.ws_port``;
    None: no broker there): the only port of that host a page gives its account to."""

    @classmethod
    def from_config(cls, config: TableSettings) -> WebAppSettings:
        """Parlour and table from the settings; the key kept in ``<data_dir>/web_secret.key``."""
        return cls(
            parlour=config.parlour,
            table=config.table,
            secret_key=load_or_create_secret(config.data_dir / SECRET_FILE),
            brokers=tuple(config.web.brokers),
            broker_port=config.mqtt.ws_port or None,
        )
