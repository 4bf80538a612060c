"""Putting the service together from its settings: store, broker, publisher, web app,
metrics, the table (real serial devices or the virtual table with bots), and the loop.

``mjtable run`` and ``mjtable demo`` both call :func:`serve`; tests call it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import structlog

from controller.config import MqttSettings, TableSettings, TrackerSettings
from controller.hub.handlog_restore import restore_from_hub
from controller.hub.handlog_sync import HandlogSync
from controller.mqtt import Publisher, Topics
from controller.process import sd_notify
from controller.process.data_lock import data_dir_lock
from controller.process.disk_space import DiskFloor
from controller.process.gc_pauses import collect_and_freeze
from controller.process.metrics import Metrics, MetricsServer, serve_metrics
from controller.process.stop_signals import stop_on_signals
from controller.store import EventStore
from controller.table.alert_sink import AlertSink
from controller.table.dice import DiceRoller
from controller.table.hand_keeper import HandKeeper
from controller.table.house_choice import HouseChoice, RulesInForce
from controller.table.publication import LiveSink, Outlet
from controller.table.service import ServiceSettings, TableService
from controller.table.staff_acts import desk as staff_desk
from controller.table.store_check import (
    behind_mark,
    check_store_url,
    missing_published,
    retained_settlement,
    say,
    unacknowledged,
)
from controller.table.table_inputs import DicePress, TableInputs
from controller.table.tags import TagBook
from controller.tracking.tracker import Tracker
from engine.tiles import KIND_LABELS
from firmware_bridge.protocol.link import Link, LinkSettings
from firmware_bridge.protocol.transport import LinkTransport
from firmware_bridge.registry import TagRegistry
from firmware_bridge.rfid.zones import ZoneMap
from firmware_bridge.table import ReaderLine, TableBridge, open_readers

if TYPE_CHECKING:  # imported where a virtual table is made: a real table never loads them
    from controller.sim.virtual_players import VirtualPlayers
    from controller.voice.announcer import Announcer, AudioSink  # (where the voice is on)
    from firmware_bridge.sim import VirtualTable

log = structlog.get_logger(__name__)

LAG_PROBE_INTERVAL = 1.0  # s; one wake a second costs nothing an idle table would notice


@dataclass
class RunOptions:
    seed: int | None = None
    """Dice derived from this seed (and the virtual table's shuffles); None: ``secrets``."""
    hands: int | None = None
    fresh_session: bool = False
    """Start a new session instead of resuming the open one (the demo's new table)."""
    tracker: TrackerSettings | None = None
    """None: the config's ``[tracker]``."""
    sim: dict[str, Any] = field(default_factory=dict)
    """SimSettings overrides for a virtual table (speeds, misreads)."""
    think: float = 0.0
    """The virtual players' pause before each move."""
    between_hands: float = 0.0
    """The virtual players' pause on a settled hand before the table collects the tiles."""
    audio: AudioSink | None = None
    """Where the voice speaks when ``[voice]`` is enabled; None: espeak-ng and its player."""
    ready: Callable[[dict[str, Any]], None] | None = None
    """Called once everything listens, with where to look (web, mqtt, topics...)."""
    stop: asyncio.Event | None = None
    cards: tuple[bytes, ...] = ()
    """Members' cards the virtual table lays on seat 1, 2, … before its first hand
    (``controller.sim.member_cards``: read by its readers as a real card is)."""


@dataclass
class Running:
    """What :func:`serve` started, for tests and for ``ready``."""

    store: EventStore
    keeper: HandKeeper
    service: TableService
    tracker: Tracker
    alerts: AlertSink
    inputs: TableInputs
    bridge: TableBridge
    publisher: Publisher
    metrics: Metrics
    mqtt_url: str
    topics: Topics
    mqtt_ws_url: str | None = None  # the embedded broker's WebSocket listener
    table: VirtualTable | None = None
    players: VirtualPlayers | None = None
    web_url: str | None = None
    metrics_url: str | None = None
    live: LiveSink | None = None
    voice: Announcer | None = None


def _zones_of(config: TableSettings) -> ZoneMap:
    merged: dict[int, Any] = {}
    board = config.hardware.board.zone_map
    if board is not None:  # readers on the board's own reader line
        merged.update(ZoneMap.load(board))
    for reader in config.hardware.readers:
        zones = ZoneMap.load(reader.zone_map)
        for reader_id, zone in zones.items():
            if reader_id in merged:
                raise ValueError(f"reader id {reader_id} is in two zone maps")
            merged[reader_id] = zone
    return ZoneMap(merged)


def _bridge_for_hardware(config: TableSettings, zones: ZoneMap) -> TableBridge:
    board = LinkTransport(config.hardware.board.url, Link(LinkSettings()))
    lines = []
    for r in config.hardware.readers:
        ids = tuple(sorted(ZoneMap.load(r.zone_map)))
        lines.append(ReaderLine(r.url, r.codec, ids[0], r.address, ids, r.baud))
    readers = open_readers(lines)
    silent = config.tracker.reader_silent_after
    return TableBridge(zones, board=board, readers=readers, silent_after=silent)


def bridge_for_table(table: VirtualTable, **options: Any) -> TableBridge:
    """A bridge on every device a virtual table exposes, reconnecting quickly."""
    lines = [p.line() for p in table.readers]
    readers = open_readers(lines, backoff_initial=0.02, backoff_max=0.5)
    board = LinkTransport(table.board_url, Link(LinkSettings()), backoff_initial=0.02)
    return TableBridge(table.config.zones, board=board, readers=readers, **options)


def _live_hub() -> Any:
    try:
        from controller.web.live import LiveHub
    except ImportError:  # the web package is optional
        return None
    return LiveHub()


async def _web_server(
    config: TableSettings,
    store: EventStore,
    live: Any,
    metrics: Metrics,
    stack: Any,
    inputs: TableInputs | None = None,
) -> str | None:
    if not config.web.enabled or live is None:
        return None
    try:
        import uvicorn

        from controller.web import WebAppSettings, create_app
    except ImportError:
        log.info("web app not installed: serving MQTT only")
        return None

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield  # the service handles SIGINT/SIGTERM itself

    from controller.process.listen import listen

    sock = listen(config.web.host, config.web.port)  # ListenError: the service exits 1
    desk = None if inputs is None else staff_desk(inputs)
    app = create_app(
        store, live, WebAppSettings.from_config(config), metrics=metrics, staff_desk=desk
    )
    server = Server(
        uvicorn.Config(
            app,
            host=config.web.host,
            port=config.web.port,
            log_config=None,
            access_log=False,
            ws="none",  # the app has no WebSocket route: uvicorn need not load a WS library
        )
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))

    async def stop() -> None:
        live.close()
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5.0)

    stack.push_async_callback(stop)
    while not server.started:
        if task.done():
            task.result()  # what stopped it
            return None
        await asyncio.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    host = "127.0.0.1" if config.web.host in ("0.0.0.0", "::") else config.web.host
    return f"http://{host}:{port}/"


@contextlib.asynccontextmanager
async def running(config: TableSettings, opts: RunOptions) -> AsyncIterator[Running]:
    """Everything started, each part made before what uses it and handed to it; stopped in
    reverse order on exit."""
    async with contextlib.AsyncExitStack() as stack:
        stack.enter_context(data_dir_lock(config.data_dir))  # before anything opens
        metrics = Metrics()
        damage = check_store_url(config.store_url)  # a damaged file is set aside first
        store = EventStore.open(config.store_url, metrics=metrics)
        stack.callback(store.close)
        metrics_url = _start_metrics(config, metrics, stack)
        mqtt, mqtt_ws_url = await _start_broker(config, stack)
        topics = Topics(config.parlour, config.table, mqtt.topic_root)
        last_published = None
        if not config.mqtt.embedded:  # a parlour broker keeps the last settlement retained
            check_id = f"{config.mqtt_client_id}-check"
            last_published = await retained_settlement(mqtt, topics, check_id)
        publisher = _start_publisher(config, store, mqtt, topics, metrics, stack)
        if not config.mqtt.embedded:
            _start_hub_sync(store, mqtt, topics, stack)
        live = _live_hub()
        # the table inputs first: the web app's staff acts go into them
        inputs = TableInputs()
        web_url = await _web_server(config, store, live, metrics, stack, inputs)
        stack.callback(inputs.close)  # (before the web server stops: its requests answered)
        voice = _start_voice(config, opts.audio, metrics, stack)
        outlet = Outlet(topics, publisher=publisher, live=live, metrics=metrics, voice=voice)
        if live is not None:
            live.publish("status", {"state": "online"})

        hardware = config.hardware
        virtual = (
            await _start_virtual_table(config, opts, stack, _restarts(store, opts))
            if hardware.virtual and not hardware.readerless
            else None
        )
        if virtual is not None:
            zones, bridge = virtual.zones, virtual.bridge
        elif hardware.virtual:  # no readers and nothing to play on: results come from staff
            zones, bridge = ZoneMap({}), TableBridge(ZoneMap({}))
        else:
            zones = _zones_of(config)
            bridge = _bridge_for_hardware(config, zones)
        # a table without readers has no tagged tiles: no registry to read
        registry = TagRegistry() if hardware.readerless else TagRegistry.load(config.registry_path)
        book = TagBook(registry)
        lost = behind_mark(store)  # (on any broker: the embedded one keeps nothing retained)
        lost.problems += missing_published(store, last_published).problems
        lost = unacknowledged(store, lost, last_published, datetime.now(UTC))
        if (damage.problems or lost.problems) and not config.mqtt.embedded:
            # before resuming: the session's totals are rebuilt from what the hub sent back
            restored = await restore_from_hub(
                store, mqtt, topics, f"{config.mqtt_client_id}-restore"
            )
            lost.problems.append(f"hands restored from the hub: {restored}")
        roller = DiceRoller(opts.seed)
        keeper = _open_hands(config, store, outlet, roller, fresh=opts.fresh_session)
        panel = _open_panel(config, inputs, stack)
        alerts = AlertSink(
            keeper, outlet, window=config.tracker.alert_window, metrics=metrics, beeper=panel
        )
        say(damage, alerts)
        say(lost, alerts)
        tracker = Tracker(
            keeper,
            book,
            zones,
            roller=roller,
            alert=alerts,
            settings=opts.tracker or config.tracker,
        )
        service = TableService(
            keeper,
            bridge,
            book,
            outlet,
            tracker=tracker,
            alerts=alerts,
            inputs=inputs,
            options=ServiceSettings(
                hands=opts.hands,
                stuck_after=config.tracker.stuck_after,
                claim_answer_time=config.tracker.claim_answer_time,
                readerless=hardware.readerless,
            ),
            panel=panel,
            disk=DiskFloor(config.data_dir, int(config.store.min_free_mb * 1e6)),
        )
        await _start_bridge(bridge, metrics, stack)
        if virtual is not None and opts.cards:
            _lay_cards(virtual.table, tracker, opts.cards, stack)

        yield Running(
            store=store,
            keeper=keeper,
            service=service,
            tracker=tracker,
            alerts=alerts,
            inputs=inputs,
            bridge=bridge,
            publisher=publisher,
            metrics=metrics,
            mqtt_url=mqtt.url,
            topics=topics,
            mqtt_ws_url=mqtt_ws_url,
            table=None if virtual is None else virtual.table,
            players=None if virtual is None else virtual.players,
            web_url=web_url,
            metrics_url=metrics_url,
            live=live,
            voice=voice,
        )


def _lay_cards(
    table: VirtualTable,
    tracker: Tracker,
    cards: tuple[bytes, ...],
    stack: contextlib.AsyncExitStack,
) -> None:
    """The members' cards laid before the first hand, as the table loop runs."""
    from controller.sim.member_cards import lay_cards

    task = asyncio.get_running_loop().create_task(lay_cards(table, tracker, cards))

    async def cancel() -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    stack.push_async_callback(cancel)


def _start_voice(
    config: TableSettings,
    audio: AudioSink | None,
    metrics: Metrics,
    stack: contextlib.AsyncExitStack,
) -> Announcer | None:
    """The loudspeaker's announcer when enabled (its own thread; closed on exit)."""
    if not config.voice.enabled:
        return None
    # Here, not at the top: a table without a loudspeaker (the default) never loads the
    # announcer, its phrases and espeak's driver (~1 MB resident).
    from controller.voice.announcer import Announcer
    from controller.voice.espeak import EspeakSink

    sink = audio or EspeakSink(config.voice)
    announcer = Announcer(config.voice, sink, metrics=metrics)
    stack.callback(announcer.close)
    return announcer


def _start_metrics(
    config: TableSettings, metrics: Metrics, stack: contextlib.AsyncExitStack
) -> str | None:
    """The loop-lag probe, and the Prometheus endpoint when enabled (its URL)."""
    lag_probe = asyncio.create_task(_probe_loop_lag(metrics))
    stack.callback(lag_probe.cancel)
    if not config.metrics.enabled:
        return None
    server: MetricsServer = serve_metrics(metrics, config.metrics.host, config.metrics.port)
    stack.callback(server.close)
    return f"http://127.0.0.1:{server.port}/metrics"


async def _start_broker(
    config: TableSettings, stack: contextlib.AsyncExitStack
) -> tuple[MqttSettings, str | None]:
    """The embedded broker of a standalone table, if configured: the MQTT settings that
    reach it, and its WebSocket URL. Otherwise the parlour's broker, as configured."""
    mqtt = config.mqtt
    if not mqtt.embedded:
        return mqtt, None
    from controller.mqtt.embedded import EmbeddedBroker  # amqtt: the demo's only

    own = Topics(config.parlour, config.table, mqtt.topic_root).prefix  # where it may write
    broker = EmbeddedBroker(mqtt.host, mqtt.port, mqtt.ws_port or None, writable=own)
    await broker.start()
    stack.push_async_callback(broker.stop)
    return mqtt.model_copy(update={"url": broker.url}), broker.ws_url


def _start_publisher(
    config: TableSettings,
    store: EventStore,
    mqtt: MqttSettings,
    topics: Topics,
    metrics: Metrics,
    stack: contextlib.AsyncExitStack,
) -> Publisher:
    """The outbox's publisher to MQTT; on exit it drains what it can (5 s)."""
    publisher = Publisher(store, mqtt, topics, client_id=config.mqtt_client_id, metrics=metrics)
    task = asyncio.create_task(publisher.run())

    async def stop() -> None:
        publisher.stop(drain_timeout=5.0)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 10.0)

    stack.push_async_callback(stop)
    return publisher


def _start_hub_sync(
    store: EventStore, mqtt: MqttSettings, topics: Topics, stack: contextlib.AsyncExitStack
) -> None:
    """A parlour broker means a hub: re-send every finished hand it has not acked. (The
    embedded broker of a standalone table has no hub to ack anything.)"""
    sync = HandlogSync(store, mqtt, topics)
    task = asyncio.create_task(sync.run())

    async def stop() -> None:
        sync.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 10.0)

    stack.push_async_callback(stop)


@dataclass
class _Virtual:
    table: VirtualTable
    players: VirtualPlayers
    zones: ZoneMap
    bridge: TableBridge


def _restarts(store: EventStore, opts: RunOptions) -> int:
    """How far the table's history goes when the service resumes it (the newest stored
    hand's number), 0 for a new session: a virtual table started again shuffles anew."""
    if opts.fresh_session:
        return 0
    newest = store.list_hands(limit=1)
    return (newest[0].table_seq or 0) if newest else 0


async def _start_virtual_table(
    config: TableSettings, opts: RunOptions, stack: contextlib.AsyncExitStack, restarts: int = 0
) -> _Virtual:
    """The virtual table on ptys, played by bots, and a bridge on its devices.

    Its tiles live in this process: started again after a restart (``restarts``: the
    stored history it comes back to), it is a table whose tiles were pushed in and
    shuffled while the service was down, with walls unlike any played (with ``--seed``,
    the seed's next shuffles, not its first again). A hand open at the restart is resumed
    as on a real table; the walls it finds cannot explain it, so it waits for staff."""
    from controller.sim.virtual_players import VirtualPlayers
    from firmware_bridge.sim import SimSettings, VirtualTable

    seed = opts.seed if opts.seed is not None else random.randrange(1 << 30)
    seed = (seed + restarts * 1_000_003) % (1 << 30) if restarts else seed
    overrides: dict[str, Any] = {"auto_start": False} if opts.cards else {}  # (cards first)
    sim = SimSettings(
        seed=seed, kinds=KIND_LABELS, registry_path=config.registry_path, **overrides, **opts.sim
    )
    players = VirtualPlayers(
        config.ruleset.id,
        sim.tile_set().uids,
        options=config.ruleset.options,
        zones=sim.zones,
        think=opts.think,
        between_hands=opts.between_hands,
    )
    table = VirtualTable(sim, driver=players)
    await table.start()
    stack.push_async_callback(table.close)
    bridge = bridge_for_table(table, silent_after=config.tracker.reader_silent_after)
    return _Virtual(table, players, sim.zones, bridge)


def _open_hands(
    config: TableSettings, store: EventStore, outlet: Outlet, roller: DiceRoller, *, fresh: bool
) -> HandKeeper:
    """The hand keeper on a new session (``fresh``) or the open one, resumed (a virtual
    table's too: its players take the table's deal, and staff end a hand it cannot
    explain, as on a real table)."""
    keeper = HandKeeper(
        store,
        outlet,
        parlour=config.parlour,
        table=config.table,
        ruleset=config.ruleset.id,
        options=config.ruleset.options,
        roller=roller,
    )
    # an owner's house ruleset, assigned on the owners' page or by the hub, from a session
    configured = RulesInForce(config.ruleset.id, dict(config.ruleset.options))
    keeper.rules_choice = HouseChoice(store, config.table, configured)
    if fresh:
        keeper.new_session()
    else:
        keeper.resume()
    return keeper


async def _start_bridge(
    bridge: TableBridge, metrics: Metrics, stack: contextlib.AsyncExitStack
) -> None:
    """The bridge's devices opened, their link and reader counters watched."""
    await bridge.start()
    stack.push_async_callback(bridge.close)
    if bridge.board is not None:
        board = bridge.board
        metrics.watch_link("board", lambda: board.link.counters)
    for reader in bridge.readers:
        metrics.watch_reader(reader.url, lambda r=reader: r.stats)  # type: ignore[misc]


async def _probe_loop_lag(metrics: Metrics) -> None:
    """The metric ``mjtable_event_loop_lag_seconds``: how late a timer fires (the soak
    watches it for growth; a loop that falls behind delays every move)."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + LAG_PROBE_INTERVAL
        await asyncio.sleep(LAG_PROBE_INTERVAL)
        metrics.loop_lag.set(max(0.0, loop.time() - due))


def _open_panel(
    config: TableSettings, inputs: TableInputs, stack: contextlib.AsyncExitStack
) -> Any:
    """The GPIO panel (dice button, LEDs, buzzer) when enabled; its presses go to ``inputs``."""
    if not config.gpio.enabled:
        return None
    from firmware_bridge.gpio import TablePanel, make_pin_factory

    factory_name = None if config.gpio.pin_factory == "auto" else config.gpio.pin_factory
    panel = TablePanel(config.gpio.to_gpio_config(), make_pin_factory(factory_name))
    stack.callback(panel.close)
    loop = asyncio.get_running_loop()

    def pressed(_t: float) -> None:  # in gpiozero's thread
        loop.call_soon_threadsafe(inputs.put, DicePress())

    panel.on_dice(pressed)
    return panel


def describe(run: Running, config: TableSettings) -> dict[str, Any]:
    info: dict[str, Any] = {
        "web": run.web_url,
        "mqtt": run.mqtt_url,
        "mqtt_ws": run.mqtt_ws_url,
        "topics": run.topics.all,
        "metrics": run.metrics_url,
        "store": config.store_url,
        "ruleset": config.ruleset.id,
    }
    if run.table is not None:
        info["board"] = run.table.board_url
        info["seed"] = run.table.config.seed
    return info


async def serve(config: TableSettings, opts: RunOptions) -> int:
    """Run until stopped (SIGINT/SIGTERM, ``opts.stop``) or ``opts.hands`` are played."""
    stop = opts.stop or asyncio.Event()
    stop_on_signals(stop.set)  # where the loop cannot take signals, opts.stop does
    async with running(config, opts) as run:
        if opts.ready is not None:
            opts.ready(describe(run, config))
        collect_and_freeze()  # what start-up built stays: out of the collector's way
        # systemd (Type=notify): READY once serving, then watchdog pings while the loop runs
        sd_notify.ready()
        watchdog = asyncio.create_task(sd_notify.watchdog_loop())
        try:
            await run.service.run(stop)
        finally:
            sd_notify.stopping()
            watchdog.cancel()
        # Played out (--hands): publish everything before leaving; stopped: do not linger.
        played_out = run.service.done.is_set()
        drain = 600.0 if played_out else 10.0
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(run.publisher.wait_drained(), drain)
        if played_out and run.bridge.board is not None:
            # and the board has the last texts (the settlement): a link slowed by a busy
            # CPU still had them in flight when the service left
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(run.bridge.board.wait_delivered(), 30.0)
    return 0
