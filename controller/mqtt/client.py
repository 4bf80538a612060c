"""An aiomqtt client from the settings (host, port, TLS, credentials, keepalive): the
connection the handlog sync and the hub open beside the publisher's."""

from __future__ import annotations

import ssl

import aiomqtt

from controller.config import MqttSettings


def make_client(
    settings: MqttSettings,
    identifier: str,
    *,
    clean_session: bool = True,
    will: aiomqtt.Will | None = None,
) -> aiomqtt.Client:
    tls_context = None
    if settings.tls:
        cafile = str(settings.ca_file) if settings.ca_file is not None else None
        tls_context = ssl.create_default_context(cafile=cafile)
    password = settings.password.get_secret_value() if settings.password is not None else None
    return aiomqtt.Client(
        hostname=settings.host,
        port=settings.port,
        username=settings.username,
        password=password,
        identifier=identifier,
        keepalive=settings.keepalive,
        timeout=settings.publish_timeout,
        tls_context=tls_context,
        clean_session=clean_session,
        will=will,
    )
