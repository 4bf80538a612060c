"""``mjtable hub``: the parlour hub. Every table's finished hands from the parlour's broker
into PostgreSQL, acknowledged to each table; the owners' web app over all of them.

    mjtable hub --config hub.toml      # parlour, data_dir, [hub], [log]: docs/parlour.md
    mjtable hub --store postgresql+psycopg://mjtable@/mjtable --mqtt mqtt://127.0.0.1:1883 \\
        --parlour p1 --username hub   # password from MJTABLE_HUB__PASSWORD

Settings come as for ``mjtable run``: the file, then ``MJTABLE_*`` variables
(``MJTABLE_HUB__STORE``, ``MJTABLE_PARLOUR`` …), then the options. Under systemd
(``Type=notify``) it says READY once subscribed and pings the watchdog.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from pathlib import Path
from typing import Annotated, Any

import structlog
import typer

from controller.cli.options import LOG_FORMAT_HELP, LOG_LEVEL_HELP
from controller.config import ConfigError, load_config, nested
from controller.hub.service import HubIngest
from controller.process import sd_notify
from controller.process.listen import ListenError, listen
from controller.process.logs import configure_logging
from controller.process.stop_signals import stop_on_signals
from controller.store import EventStore

cli = typer.Typer(add_completion=False)

log = structlog.get_logger(__name__)


def _web_server(
    hub: HubIngest, store: EventStore, data_dir: Path, options: dict[str, Any], sock: socket.socket
) -> Any:
    import uvicorn

    from controller.web import LiveHub, WebAppSettings, create_app
    from controller.web.settings import SECRET_FILE
    from controller.web.tokens import load_or_create_secret

    # The hub is no table (no phantom "hub" in the list); the tables' status from its broker.
    settings = WebAppSettings(
        parlour=hub.parlour,
        table="hub",
        hub=True,
        secret_key=load_or_create_secret(data_dir / SECRET_FILE),
    )
    app = create_app(
        store, LiveHub(), settings, table_status=hub.statuses.get, table_software=hub.software.get
    )
    # options: host, port, TLS files, the proxies trusted for X-Forwarded-Proto (docs/parlour.md)
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, **options))
    # Our SIGTERM handler stops the hub, then the server (uvicorn's would only stop itself).
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    return server


async def _run(
    hub: HubIngest, store: EventStore, web: tuple[Path, dict[str, Any], socket.socket] | None
) -> None:
    stop_on_signals(hub.stop)
    ingest = asyncio.create_task(hub.run())
    server, serving = None, None
    if web is not None:
        server = _web_server(hub, store, *web)
        serving = asyncio.create_task(server.serve(sockets=[web[2]]))
    # Ready once subscribed; a stop before that (broker unreachable, SIGTERM) just ends.
    subscribed = asyncio.create_task(hub.connected.wait())
    await asyncio.wait({subscribed, ingest}, return_when=asyncio.FIRST_COMPLETED)
    subscribed.cancel()
    if hub.connected.is_set():
        sd_notify.ready(f"subscribed to {hub.filter}")
    watchdog = asyncio.create_task(sd_notify.watchdog_loop())
    try:
        await ingest
    finally:
        sd_notify.stopping()
        watchdog.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watchdog
        if server is not None and serving is not None:
            server.should_exit = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(serving, 10.0)


Opt = typer.Option


@cli.command()
def hub(
    config: Annotated[
        Path | None,
        Opt(help="Settings (TOML): parlour, data_dir, \\[hub], \\[log]; MJTABLE_* win."),
    ] = None,
    store: Annotated[
        str | None, Opt(help="SQLAlchemy URL, e.g. postgresql+psycopg://mjtable@/mjtable")
    ] = None,
    parlour: Annotated[str | None, Opt(help="Parlour id.")] = None,
    mqtt: Annotated[str | None, Opt(help="Broker URL \\[default: mqtt://127.0.0.1:1883].")] = None,
    username: Annotated[str | None, Opt(help="The hub's broker account.")] = None,
    password: Annotated[str | None, Opt(help="Prefer MJTABLE_HUB__PASSWORD.")] = None,
    ca_file: Annotated[Path | None, Opt(help="CA of the broker's certificate.")] = None,
    web: Annotated[bool | None, Opt("--web/--no-web", help="Serve the owners' web app.")] = None,
    host: Annotated[str | None, Opt(help="Where the web app listens \\[default: 0.0.0.0].")] = None,
    port: Annotated[int | None, Opt(help="The web app's port \\[default: 8080].")] = None,
    tls_cert: Annotated[Path | None, Opt(help="Serve HTTPS with this certificate.")] = None,
    tls_key: Annotated[Path | None, Opt(help="Its private key.")] = None,
    forwarded_allow_ips: Annotated[
        str | None, Opt(help="Proxies whose X-Forwarded-Proto is believed (a TLS proxy in front).")
    ] = None,
    data_dir: Annotated[Path | None, Opt(help="Where the web secret key is kept.")] = None,
    log_level: Annotated[str | None, Opt(help=LOG_LEVEL_HELP)] = None,
    log_format: Annotated[str | None, Opt(help=LOG_FORMAT_HELP)] = None,
) -> None:
    """Store every table's finished hands (idempotent by hand id) and acknowledge them."""
    overrides: dict[str, Any] = {}
    given = {
        ("hub", "store"): store,
        ("parlour",): parlour,
        ("hub", "mqtt"): mqtt,
        ("hub", "username"): username,
        ("hub", "password"): password,
        ("hub", "ca_file"): ca_file,
        ("hub", "web"): web,
        ("hub", "host"): host,
        ("hub", "port"): port,
        ("hub", "tls_cert"): tls_cert,
        ("hub", "tls_key"): tls_key,
        ("hub", "forwarded_allow_ips"): forwarded_allow_ips,
        ("data_dir",): data_dir,
        ("log", "level"): log_level,
        ("log", "format"): log_format,
    }
    for loc, value in given.items():
        if value is not None:
            nested(overrides, loc, value)
    try:
        settings = load_config(config, overrides)
        missing = []
        if "parlour" not in settings.model_fields_set:  # no parlour is the hub's by default
            missing.append("parlour (--parlour, MJTABLE_PARLOUR)")
        if settings.hub.store is None:
            missing.append("hub.store (--store, MJTABLE_HUB__STORE)")
        if missing:
            raise ConfigError(f"the hub needs {' and '.join(missing)}")
    except ConfigError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    configure_logging(settings.log.level, settings.log.format)
    h = settings.hub
    assert h.store is not None
    options: dict[str, Any] = {
        "host": h.host,
        "port": h.port,
        "ssl_certfile": h.tls_cert,
        "ssl_keyfile": h.tls_key,
        "forwarded_allow_ips": h.forwarded_allow_ips,
    }
    if h.web and h.tls_cert is None and h.host not in ("127.0.0.1", "::1", "localhost"):
        log.warning(
            "owners' web app on plain HTTP: serve it over TLS (docs/parlour.md, Security)",
            host=h.host,
        )
    try:  # before anything else: a port another process holds ends the hub at once
        sock = listen(h.host, h.port) if h.web else None
    except ListenError as err:
        log.error("cannot serve", why=str(err))
        raise typer.Exit(1) from None
    hands = EventStore.open(h.store)  # migrates to head first
    try:
        ingest = HubIngest(hands, h.mqtt_settings(), parlour=settings.parlour)
        web_parts = (settings.data_dir, options, sock) if sock is not None else None
        asyncio.run(_run(ingest, hands, web_parts))
    finally:
        hands.close()
