"""The web app: the table display, the dealer's view, the owners' hand logs and the REST API.

The table service feeds ``LiveHub`` with what it publishes on MQTT (``controller.web.live``
documents the topics) and serves ``create_app(store, hub, settings)``.
"""

from controller.web.app import create_app
from controller.web.live import LiveHub, dealer_text
from controller.web.settings import WebAppSettings

__all__ = ["LiveHub", "WebAppSettings", "create_app", "dealer_text"]
