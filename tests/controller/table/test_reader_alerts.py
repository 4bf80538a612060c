"""A reader's alert (a multi-antenna reader's bad input) reaches the tracker's alerts naming
the reader and antenna; the tag it may mention stays in the private detail."""

from __future__ import annotations

from controller.table.alerts import AlertKind
from firmware_bridge.rfid.events import ReaderAlert
from firmware_bridge.rfid.inventory import TagIn
from firmware_bridge.rfid.zones import Zone, ZoneKind
from tests.controller.tracking.test_tracker import Table


def test_a_reader_alert_names_reader_and_antenna_and_keeps_the_tag_private() -> None:
    table = Table()
    message = "a0 reader 1 on /dev/ttyUSB0: tag 30aabbccddeeff0011223344 read by 4 antennas"
    alert = ReaderAlert("a0 reader 1 on /dev/ttyUSB0", 3, "many_antennas", message, 1.0)
    table.tracker.observe(alert, table.at())
    (raised,) = table.alerts
    assert raised.kind is AlertKind.READER_FAULT
    public = raised.public.message
    assert "a0 reader 1 on /dev/ttyUSB0" in public and "天线 3" in public
    assert "30aabbcc" not in public and "30aabbcc" in raised.detail
    assert "30aabbcc" not in str(raised.public.as_dict())


def test_an_epc_nobody_enrolled_is_alerted_naming_the_zone() -> None:
    table = Table()
    epc = bytes.fromhex("30aabbccddeeff0011223344")  # a 96-bit EPC, not in the registry
    table.tracker.observe(TagIn(Zone(ZoneKind.DISCARDS, 2), epc, table.now), table.at())
    (raised,) = table.alerts
    assert raised.kind is AlertKind.UNKNOWN_TAG
    assert "3号位弃牌" in raised.public.message and "30aabbcc" not in raised.public.message
