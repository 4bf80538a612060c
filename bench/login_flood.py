"""How much a flood of logins delays the event loop the table shares with the web app.

Run: ``.venv/bin/python bench/login_flood.py`` (``--quick``: fewer logins).

The web app runs in-process on one event loop (as in the table service); a ticker on the
same loop sleeps 10 ms at a time and records how late it wakes (what the table loop would
suffer). Then ``N`` concurrent logins with wrong passwords (scrypt, 16 MiB each) arrive,
first with the app's bound (``hash_slots`` 2, 32 waiting, 503 beyond), then, as the
baseline in the same run, with the bound lifted (up to 40 hashing at once in FastAPI's
thread pool, as without the bound). Besides the loop, the bound caps memory: 2 x 16 MiB
rather than 40 x 16 MiB. The last line is ``login flood: p99 loop lag unbounded / bounded = X.XX``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password

TICK = 0.010


async def _ticker(lags: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(TICK)
        lags.append(time.perf_counter() - start - TICK)


async def _flood(store: EventStore, n: int, slots: int, waiting: int) -> tuple[float, int]:
    # as many threads as FastAPI ran sync routes in (anyio's 40): the old login's hashing
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(40))
    settings = WebAppSettings(
        secret_key=b"k" * 32, hash_slots=slots, login_attempts_per_client=10 * n
    )
    app = create_app(store, LiveHub(), settings)
    app.state.ctx.hashing._waiting = waiting
    lags: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(lags, stop))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://b", timeout=600) as c:
        replies = await asyncio.gather(
            *(
                c.post("/api/v1/auth/login", json={"name": f"n{i}", "password": "wrong pw"})
                for i in range(n)
            )
        )
    stop.set()
    await ticker
    busy = sum(r.status_code == 503 for r in replies)
    return statistics.quantiles(lags, n=100)[98] * 1000, busy


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    n = 40 if parser.parse_args().quick else 150
    with tempfile.TemporaryDirectory() as folder:
        store = EventStore.open(f"sqlite:///{folder}/bench.db")
        OwnerAccounts(store).add("boss", hash_password("a long enough secret"))
        bounded, busy = asyncio.run(_flood(store, n, 2, 32))
        unbounded, _ = asyncio.run(_flood(store, n, n, n))
        store.close()
    print(f"{n} concurrent logins; timings on a shared machine are noisy")
    print(f"bounded (2 hashing, 32 waiting): p99 loop lag {bounded:.1f} ms, {busy} answered 503")
    print(f"unbounded (all hashing at once): p99 loop lag {unbounded:.1f} ms")
    print(f"login flood: p99 loop lag unbounded / bounded = {unbounded / max(bounded, 0.01):.2f}")


if __name__ == "__main__":
    main()
