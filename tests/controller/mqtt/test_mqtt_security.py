"""Username/password (Mosquitto password file) and TLS (a CA made here with openssl)."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.process.metrics import Metrics
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto, mosquitto_passwd_binary
from tests.controller.mqtt_helpers import ONLINE, guarded, make_publisher, retained_state, until


def failures(metrics: Metrics) -> float:
    return metrics.registry.get_sample_value("mjtable_mqtt_connect_failures_total") or 0


def test_username_and_password(
    mosquitto_factory: Callable[..., Mosquitto], store: EventStore, tmp_path: Path
) -> None:
    passwords = tmp_path / "passwd"
    subprocess.run(
        [mosquitto_passwd_binary(), "-b", "-c", str(passwords), "t1", "s3cret 密码"], check=True
    )
    passwords.chmod(0o600)  # mosquitto warns about (future: refuses) readable password files
    broker = mosquitto_factory(password_file=passwords)
    other = EventStore.open(f"sqlite:///{tmp_path / 'other.db'}")

    async def main() -> None:
        # Wrong password: refused, retried, and the message stays in the outbox.
        refused_metrics = Metrics()
        refused = make_publisher(
            other, broker.url, refused_metrics, username="t1", password="wrong"
        )
        refused.publish("dice", {"values": [1, 1]})
        refused_task = asyncio.create_task(refused.run())
        await until(lambda: failures(refused_metrics) >= 2, "refused connections")
        assert other.outbox_depth() == 1
        refused.stop()
        await guarded(refused_task, "the refused publisher to stop")

        metrics = Metrics()
        publisher = make_publisher(
            store, broker.url, metrics, username="t1", password="s3cret 密码"
        )
        publisher.publish("dice", {"values": [3, 4]})
        runner = asyncio.create_task(publisher.run())
        await guarded(publisher.wait_drained(), "the outbox to drain")
        state = await guarded(
            retained_state(broker.port, username="t1", password="s3cret 密码"), "retained state"
        )
        assert state == {"status": ONLINE, "dice": {"values": [3, 4]}}
        publisher.stop()
        await guarded(runner, "the publisher to stop")

    asyncio.run(main())
    other.close()


def openssl(*args: str, cwd: Path) -> None:
    binary = shutil.which("openssl")
    if binary is None:
        pytest.fail("openssl is needed to make the test CA: apt-get install openssl")
    subprocess.run([binary, *args], cwd=cwd, check=True, capture_output=True)


def make_ca(folder: Path) -> tuple[Path, Path, Path]:
    """A throwaway CA and a server certificate for 127.0.0.1 signed by it."""
    new_key = ["-newkey", "rsa:2048", "-nodes"]
    ca_subject = ["-subj", "/CN=mjtable test CA", "-keyout", "ca.key", "-out", "ca.pem"]
    openssl("req", "-x509", *new_key, "-days", "2", *ca_subject, cwd=folder)
    server_subject = ["-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr"]
    openssl("req", *new_key, *server_subject, cwd=folder)
    (folder / "san.ext").write_text("subjectAltName = IP:127.0.0.1\n")
    signing = ["-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-extfile", "san.ext"]
    openssl(
        "x509",
        "-req",
        "-in",
        "server.csr",
        *signing,
        "-days",
        "2",
        "-out",
        "server.pem",
        cwd=folder,
    )
    return folder / "ca.pem", folder / "server.pem", folder / "server.key"


def test_tls_with_a_private_ca(
    mosquitto_factory: Callable[..., Mosquitto], store: EventStore, tmp_path: Path
) -> None:
    certs = tmp_path / "certs"
    certs.mkdir()
    ca, cert, key = make_ca(certs)
    broker = mosquitto_factory(tls=(ca, cert, key))
    url = f"mqtts://127.0.0.1:{broker.port}"
    other = EventStore.open(f"sqlite:///{tmp_path / 'other.db'}")

    async def main() -> None:
        # Without our CA the broker's certificate is not trusted: no connection.
        untrusting_metrics = Metrics()
        untrusting = make_publisher(other, url, untrusting_metrics)
        untrusting_task = asyncio.create_task(untrusting.run())
        await until(lambda: failures(untrusting_metrics) >= 1, "a refused handshake")
        untrusting.stop()
        await guarded(untrusting_task, "the untrusting publisher to stop")

        publisher = make_publisher(store, url, ca_file=ca)
        publisher.publish("jing", {"zheng_jing": "9s"})
        runner = asyncio.create_task(publisher.run())
        await guarded(publisher.wait_drained(), "the outbox to drain")
        context = ssl.create_default_context(cafile=str(ca))
        state = await guarded(retained_state(broker.port, tls_context=context), "state")
        assert state == {"status": ONLINE, "jing": {"zheng_jing": "9s"}}
        publisher.stop()
        await guarded(runner, "the publisher to stop")

    asyncio.run(main())
    other.close()
