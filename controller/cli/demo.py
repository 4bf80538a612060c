"""``mjtable demo``: the whole service against the virtual table, four bots playing.

The virtual table runs over ptys in this process; the service opens them like serial
devices. An embedded MQTT broker (amqtt; MQTT over TCP, and over WebSocket for the floor
page) unless ``--mqtt`` names one, SQLite in the data directory, the web app when
installed. Plays hands until Ctrl-C, or ``--hands N`` and exits 0. A new session each
time (the virtual table has no history).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from pathlib import Path
from typing import Annotated, Any

import typer

from controller.cli.json_input import dumps_line
from controller.cli.options import (
    AsJson,
    DataDir,
    LogFormat,
    LogLevel,
    Port,
    ReaderModel,
    Readers,
    Seed,
    usable,
)
from controller.cli.run import serve_until_done
from controller.config import ConfigError, TableSettings
from controller.process.data_lock import data_dir_lock
from controller.process.local_ports import free_local_port, port_free
from controller.process.logs import bind_table, configure_logging
from controller.runtime import RunOptions, serve
from controller.store.members import MemberInputError, check_card
from engine.rulesets import builtin_ids

cli = typer.Typer(add_completion=False)


def _say(info: dict[str, Any], as_json: bool) -> None:
    if info.get("web") and info.get("mqtt_ws"):
        # Fed from the broker's WebSocket listener; the table's display links from there.
        info = {**info, "floor": f"{info['web']}floor?broker={info['mqtt_ws']}"}
    if as_json:
        typer.echo(dumps_line(info), err=False)
        return
    if info.get("board"):
        typer.echo("mjtable demo: four bots at a virtual table")
    elif info.get("players") == "phones":  # the bots' phones claim and confirm
        typer.echo("mjtable demo: a table without readers, four bots scoring it from their phones")
    else:  # --readers none: no board, no readers; the bots' results come as staff acts
        typer.echo("mjtable demo: a table without readers, four bots' results entered by staff")
    if info.get("web"):
        typer.echo(f"  table display   {info['web']}display")
        typer.echo(f"  dealer's view   {info['web']}dealer")
        typer.echo(f"  owners          {info['web']}owner")
    if info.get("floor"):
        typer.echo(f"  floor           {info['floor']}")
    typer.echo(f"  MQTT            {info['mqtt']}  topics {info['topics']}")
    typer.echo(f"                  mosquitto_sub -L '{info['mqtt']}/{info['topics']}' -v")
    if info.get("mqtt_ws"):
        typer.echo(f"  MQTT WebSocket  {info['mqtt_ws']}")
    if info.get("metrics"):
        typer.echo(f"  metrics         {info['metrics']}")
    if info.get("staff"):
        staff = info["staff"]
        typer.echo(f"  staff console   {info['web']}dealer  账号 (account) {staff['name']}  "
                   f"密码 (password) {staff['password']}")  # fmt: skip
        typer.echo("  每局结果由工作人员在控制台录入 (each result is entered at the console)")
    typer.echo(f"  store           {info['store']}")
    if info.get("board"):
        typer.echo(f"  virtual table   {info['board']}  seed {info.get('seed')}")
    typer.echo("Ctrl-C stops it.")


# What each reader model of the virtual table does (docs/rfid.md): real antennas miss
# tags and read across borders; the reference readers are the project's ideal ones.
READER_MODELS: dict[ReaderModel, dict[str, Any]] = {
    ReaderModel.ref: {},
    ReaderModel.a0: {"codec": "a0", "misread_rate": 0.05, "border_rate": 0.02},
    ReaderModel.iso15693: {"codec": "iso15693", "misread_rate": 0.05, "border_rate": 0.02},
    ReaderModel.none: {},  # a table without readers: the bots' results entered by staff
}


@cli.command()
def demo(
    ruleset: Annotated[str, typer.Option(help=f"One of: {', '.join(builtin_ids())}.")] = "xingguo",
    hands: Annotated[
        int | None, typer.Option(min=1, help="Play this many hands, then exit (default: go on).")
    ] = None,
    seed: Seed = None,
    mqtt: Annotated[
        str | None, typer.Option(help="Use this broker (mqtt://host:port) instead of amqtt.")
    ] = None,
    data_dir: DataDir = Path("data"),
    port: Port = 8080,
    think: Annotated[float, typer.Option(help="Seconds a bot thinks before each move.")] = 0.3,
    between_hands: Annotated[
        float,
        typer.Option(help="Seconds the settlement stays on screen before the next shuffle."),
    ] = 8.0,
    as_json: AsJson = False,
    log_level: LogLevel = "warning",
    log_format: LogFormat = "console",
    readers: Readers = ReaderModel.ref,
    manual: Annotated[
        bool,
        typer.Option(
            help="With --readers none: nobody enters the bots' results; each hand waits for "
            "staff at the console (/dealer, logged in as the demo staff account printed at "
            "the start), as a real table without readers does."
        ),
    ] = False,
    players: Annotated[
        str,
        typer.Option(
            help="With --readers none, who enters the bots' results: staff (the staff API) "
            "or phones (the players' API: join, claim, confirm; docs/play.md)."
        ),
    ] = "staff",
    table: Annotated[
        str | None,
        typer.Option(
            help="The table's id on the broker (default: t1 on the embedded broker; with "
            "--mqtt, an id of this data directory's own, kept in it, so that another table's "
            "retained messages on that broker are never taken for this one's)."
        ),
    ] = None,
    cards: Annotated[
        str | None,
        typer.Option(
            help="Members' card UIDs in hex, comma-separated (e.g. "
            "04a1b2c3d4e5f6,e004015012345678): laid on seat 1, 2, … before the first hand "
            "and read by the virtual readers as a real card is (add the members first: "
            "mjtable member add NAME --card UID)."
        ),
    ] = None,
) -> None:
    """Play hands with four bots on the virtual table through the whole service (with
    --readers none: a table without readers, a demo staff account entering the bots'
    results through the staff API). --json: where to look, as one JSON line."""
    usable(readers, READER_MODELS, "demo")
    laid = _cards(cards)
    if manual and readers is not ReaderModel.none:
        typer.echo("错误：--manual 只用于 --readers none (error: --manual needs --readers none)",
                   err=True)  # fmt: skip
        raise typer.Exit(2)
    if players not in ("staff", "phones") or (
        players == "phones" and (readers is not ReaderModel.none or manual)
    ):
        typer.echo("错误：--players 为 staff 或 phones，phones 只用于 --readers none，"
                   "不与 --manual 同用 (error: --players staff|phones; phones needs "
                   "--readers none, not --manual)", err=True)  # fmt: skip
        raise typer.Exit(2)
    if laid and readers is ReaderModel.none:
        typer.echo("错误：--cards 需要读卡器 (error: --cards needs readers)", err=True)
        raise typer.Exit(2)
    if ruleset not in builtin_ids():
        typer.echo(
            f"error: ruleset: unknown {ruleset!r}; known: {', '.join(builtin_ids())}", err=True
        )
        raise typer.Exit(2)
    broker_port = 1883 if port_free(1883) else 0
    ws_port = 9001 if port_free(9001) else free_local_port()  # (in the config, 0 means none)
    mqtt_settings: dict[str, Any] = {
        "embedded": True,
        "url": f"mqtt://127.0.0.1:{broker_port}",
        "ws_port": ws_port,
    }
    if mqtt is not None:
        mqtt_settings = {"embedded": False, "url": mqtt}
    try:
        config = TableSettings(
            table=table or ("t1" if mqtt is None else own_table_id(data_dir)),
            data_dir=data_dir,
            ruleset={"id": ruleset},
            hardware={"virtual": True, "readers": "none" if readers is ReaderModel.none else []},
            mqtt=mqtt_settings,
            web={"host": "127.0.0.1", "port": port},
            metrics={"host": "127.0.0.1", "port": 9108 if port_free(9108) else 0},
            log={"level": log_level, "format": log_format},
        )
    except (ConfigError, ValueError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    configure_logging(config.log.level, config.log.format)
    bind_table(config.parlour, config.table)
    opts = RunOptions(
        seed=seed,
        hands=hands,
        fresh_session=True,
        think=think,
        between_hands=between_hands,
        ready=lambda info: _say(info, as_json),
        sim=READER_MODELS[readers],
        cards=laid,
    )
    service = (
        _without_readers(config, opts, manual, players == "phones")
        if readers is ReaderModel.none
        else serve(config, opts)
    )
    raise typer.Exit(serve_until_done(service))


OWN_TABLE_FILE = "demo-table-id"


def own_table_id(data_dir: Path) -> str:
    """The demo's table id on a broker it shares (``--mqtt``): ``demo-`` and 8 hex digits,
    made at its first run and kept in its data directory, so that the same demo is the same
    table again (its store checked against what it published) and another table on that
    broker, a real t1 or another demo, is never taken for this one."""
    path = data_dir / OWN_TABLE_FILE
    with contextlib.suppress(OSError):
        kept = path.read_text().strip()
        if kept.startswith("demo-") and kept[5:].isalnum() and len(kept) <= 32:
            return kept
    made = f"demo-{secrets.token_hex(4)}"
    data_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(made + "\n")
    return made


def _cards(text: str | None) -> tuple[bytes, ...]:
    """``--cards``: one card UID per seat, in seat order; exits 2 naming a bad one."""
    if not text:
        return ()
    uids = [u.strip() for u in text.split(",")]
    if len(uids) > 4:
        typer.echo(f"错误：--cards 最多 4 张（每个座位一张），收到 {len(uids)} 张 "
                   f"(error: at most 4 cards, one a seat)", err=True)  # fmt: skip
        raise typer.Exit(2)
    out = []
    for uid in uids:
        try:
            out.append(bytes.fromhex(check_card(uid)))
        except MemberInputError:
            typer.echo(
                f"错误：--cards：{uid!r} 不是卡号（4–32 字节的十六进制，如 04a1b2c3d4e5f6）"
                f" (error: not a card UID: 4-32 bytes in hex)",
                err=True,
            )
            raise typer.Exit(2) from None
    if len(set(out)) != len(out):
        typer.echo("错误：--cards：同一张卡出现两次 (error: a card given twice)", err=True)
        raise typer.Exit(2)
    return tuple(out)


async def _without_readers(
    config: TableSettings, opts: RunOptions, manual: bool, phones: bool = False
) -> int:
    """The service on a table without readers, and the demo's staff entering the bots'
    results over HTTP (``controller.sim.demo_results``): exits 1 if a result is refused.
    ``manual``: nobody enters them; the demo staff account is for a person at the console.
    ``phones``: the bots' phones claim and confirm each result (``controller.sim.demo_phones``)."""
    from controller.sim.demo_phones import PhoneDesk
    from controller.sim.demo_results import ACCOUNT, DemoDeskError, ResultDesk, demo_staff
    from controller.store import EventStore

    config.data_dir.mkdir(parents=True, exist_ok=True)
    with data_dir_lock(config.data_dir):  # another service's store: refused, nothing written
        store = EventStore.open(config.store_url)
        try:
            password = demo_staff(store, config.table)
        finally:
            store.close()
    seed = opts.seed if opts.seed is not None else secrets.randbelow(1 << 30)
    rules = (config.ruleset.id, config.ruleset.options, seed, opts.hands, opts.between_hands)
    desk = PhoneDesk(*rules) if phones else ResultDesk(password, *rules)
    stop = opts.stop = asyncio.Event()
    said = opts.ready
    tasks: list[asyncio.Task[None]] = []
    failed: list[BaseException] = []  # the desk's own failure, not one a stop caused

    def ended(task: asyncio.Task[None]) -> None:
        if task.cancelled() or task.exception() is None:
            return
        if not stop.is_set():
            failed.append(task.exception())  # type: ignore[arg-type]
        stop.set()

    def ready(info: dict[str, Any]) -> None:
        if manual:  # the console's login: the demo's own account on its own store
            info = {**info, "staff": {"name": ACCOUNT, "password": password}}
        if phones:
            info = {**info, "players": "phones"}
        if said is not None:
            said(info)
        if not info.get("web"):
            typer.echo("error: --readers none needs the web app (pip install '.[web]')", err=True)
            stop.set()
            return
        if manual:
            return
        task = asyncio.get_running_loop().create_task(desk.run(info["web"]))
        task.add_done_callback(ended)
        tasks.append(task)

    opts.ready = ready
    code = await serve(config, opts)
    for task in tasks:
        if not task.done():
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError, DemoDeskError):
            await task  # (after a stop: a request the stopping service cut short)
    for err in failed:  # a result the service refused: the demo failed
        typer.echo(f"error: {err}", err=True)
        return 1
    if manual:
        return code
    if not tasks:
        return 1
    if opts.hands is None or len(desk.entered) < opts.hands:  # stopped (Ctrl-C, SIGTERM)
        typer.echo(f"mjtable demo: 已停止，录入了 {len(desk.entered)} 局 "
                   f"(stopped after {len(desk.entered)} hands)", err=True)  # fmt: skip
    return code
