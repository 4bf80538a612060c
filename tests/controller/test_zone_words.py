"""A reader zone has one set of words (controller.words.zones): the alerts on the console,
the owners' alert details and the voice say 3号位手牌 and 精位, never ``hand:2``."""

from __future__ import annotations

from controller.table.alerts import AlertKind, PublicAlert
from controller.voice.phrases import alert_announcement
from controller.words.zones import zone_words, zones_in_words
from firmware_bridge.rfid.zones import Zone, ZoneKind


def test_a_zone_id_reads_as_words_wherever_it_is_shown() -> None:
    assert zone_words(Zone(ZoneKind.HAND, 2)) == "3号位手牌"
    assert zone_words(Zone(ZoneKind.JING)) == "精位"
    assert zones_in_words("少一张牌（hand:0、discards:3、pool、jing）") == (
        "少一张牌（1号位手牌、4号位弃牌、弃牌池、精位）"
    )
    assert zones_in_words("the hand has it") == "the hand has it"  # a word, not an id
    public = PublicAlert(AlertKind.TILE_MISSING, zones=(Zone(ZoneKind.JING),))
    said = alert_announcement({"message": "少一张牌（jing没读到）"}, None)
    assert said is not None and said.text == "注意 少一张牌（精位没读到）"
    assert "精位" in public.message
