"""The web app under uvicorn on a free localhost port, in a background thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from controller.process.local_ports import free_local_port
from controller.web.live import LiveHub


@contextmanager
def serve(app: FastAPI, hub: LiveHub) -> Iterator[str]:
    """Yields the base URL; at exit closes the hub's streams and stops the server."""
    port = free_local_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        hub.close()
        server.should_exit = True
        thread.join(10)
