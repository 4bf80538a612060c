"""``mjtable hub``: the parlour hub. Every table's finished hands from the parlour's broker
into PostgreSQL, acknowledged to each table; the owners' web app over all of them.

    mjtable hub --db postgresql+psycopg://mjtable@/mjtable --mqtt mqtt://127.0.0.1:1883 \\
        --parlour p1 --username hub   # password from MJTABLE_HUB_MQTT_PASSWORD

Under systemd (``Type=notify``) it says READY once subscribed and pings the watchdog.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from pathlib import Path
from typing import Annotated, Any

import structlog
import typer

from controller import sd_notify
from controller.config import ConfigError, MqttSettings, StoreSettings, TableConfig
from controller.hub import HubIngest
from controller.listen import ListenError, listen
from controller.logs import configure_logging
from controller.stop_signals import stop_on_signals
from controller.store import EventStore

cli = typer.Typer(add_completion=False)

log = structlog.get_logger(__name__)


def _settings(
    mqtt: str, username: str | None, password: str | None, ca_file: Path | None
) -> MqttSettings:

    values: dict[str, Any] = {"url": mqtt, "embedded": False}
    if username is not None:
        values["username"] = username
    if password is not None:
        values["password"] = password
    if ca_file is not None:
        values["ca_file"] = ca_file
    return MqttSettings(**values)


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
    app = create_app(store, LiveHub(), settings, table_status=hub.statuses.get)
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


@cli.command()
def hub(
    db: Annotated[
        str,
        typer.Option(
            envvar="MJTABLE_HUB_DB",
            help="SQLAlchemy URL, e.g. postgresql+psycopg://mjtable@/mjtable",
        ),
    ],
    parlour: Annotated[str, typer.Option(envvar="MJTABLE_HUB_PARLOUR", help="Parlour id.")],
    mqtt: Annotated[str, typer.Option(envvar="MJTABLE_HUB_MQTT", help="Broker URL.")] = (
        "mqtt://127.0.0.1:1883"
    ),
    username: Annotated[str | None, typer.Option(envvar="MJTABLE_HUB_MQTT_USERNAME")] = None,
    password: Annotated[
        str | None, typer.Option(envvar="MJTABLE_HUB_MQTT_PASSWORD", help="Prefer the variable.")
    ] = None,
    ca_file: Annotated[Path | None, typer.Option(help="CA of the broker's certificate.")] = None,
    web: Annotated[bool, typer.Option(help="Serve the owners' web app.")] = True,
    web_host: Annotated[str, typer.Option(envvar="MJTABLE_HUB_WEB_HOST")] = "0.0.0.0",
    web_port: Annotated[int, typer.Option(envvar="MJTABLE_HUB_WEB_PORT")] = 8080,
    tls_cert: Annotated[
        Path | None,
        typer.Option(envvar="MJTABLE_HUB_TLS_CERT", help="Serve HTTPS with this certificate."),
    ] = None,
    tls_key: Annotated[
        Path | None, typer.Option(envvar="MJTABLE_HUB_TLS_KEY", help="Its private key.")
    ] = None,
    forwarded_allow_ips: Annotated[
        str,
        typer.Option(
            envvar="MJTABLE_HUB_FORWARDED_ALLOW_IPS",
            help="Proxies whose X-Forwarded-Proto is believed (a TLS proxy in front).",
        ),
    ] = "127.0.0.1",
    data_dir: Annotated[Path, typer.Option(envvar="MJTABLE_HUB_DATA", help="Web secret key.")] = (
        Path("data")
    ),
    log_level: Annotated[str, typer.Option()] = "info",
    log_format: Annotated[str, typer.Option(help="console or json")] = "console",
) -> None:
    """Store every table's finished hands (idempotent by hand id) and acknowledge them."""
    try:
        TableConfig(parlour=parlour)  # the same id rules as the tables
        StoreSettings(url=db)
        settings = _settings(mqtt, username, password, ca_file)
    except (ConfigError, ValueError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    if (tls_cert is None) != (tls_key is None):
        typer.echo("error: --tls-cert and --tls-key go together", err=True)
        raise typer.Exit(2)
    configure_logging(log_level, log_format)
    options: dict[str, Any] = {
        "host": web_host,
        "port": web_port,
        "ssl_certfile": tls_cert,
        "ssl_keyfile": tls_key,
        "forwarded_allow_ips": forwarded_allow_ips,
    }
    if web and tls_cert is None and web_host not in ("127.0.0.1", "::1", "localhost"):
        log.warning(
            "owners' web app on plain HTTP: serve it over TLS (docs/parlour.md, Security)",
            host=web_host,
        )
    try:  # before anything else: a port another process holds ends the hub at once
        sock = listen(web_host, web_port) if web else None
    except ListenError as err:
        log.error("cannot serve", why=str(err))
        raise typer.Exit(1) from None
    store = EventStore.open(db)  # migrates to head first
    try:
        ingest = HubIngest(store, settings, parlour=parlour)
        asyncio.run(_run(ingest, store, (data_dir, options, sock) if sock is not None else None))
    finally:
        store.close()
