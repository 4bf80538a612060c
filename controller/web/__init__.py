"""The web app: the table display, the dealer's view, the owners' hand logs and the REST API.

The table service feeds ``LiveHub`` with what it publishes on MQTT (``controller.web.live``
documents the topics) and serves ``create_app(store, hub, settings)``.
"""

import sys

# FastAPI asks of every route's annotations (and responses) whether they are pydantic v1
# models by importing ``pydantic.v1`` (1.4 MB resident), which nothing here uses; an
# absent module is its "no" (``fastapi._compat.shared`` catches the ImportError).
sys.modules.setdefault("pydantic.v1", None)  # type: ignore[arg-type]

from controller.web.app import create_app  # noqa: E402
from controller.web.live import LiveHub, dealer_text  # noqa: E402
from controller.web.settings import WebAppSettings  # noqa: E402

__all__ = ["LiveHub", "WebAppSettings", "create_app", "dealer_text"]
