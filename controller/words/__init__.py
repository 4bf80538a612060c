"""The words people read: one catalogue of messages, Chinese first with the English beside
(docs/web.md, "Messages"). The API answers a refusal as ``{"detail": zh, "en": en}``.

    say("staff.not_of_table", name="ann", table="t1")        # Words(zh=..., en=...)
    refusal("winners[0]: seats[2] 不是胡牌 (not a winning hand)", Places(winners=[2]))

``say`` words a catalogue key; ``refusal`` words a message the engine or the controller
raised in its own (English, field-path) terms, so the engine stays free of wording.
"""

from controller.words.catalogue import CATALOGUE, FIELDS
from controller.words.refusals import Places, Words, refusal, say, seat_name, worded

__all__ = ["CATALOGUE", "FIELDS", "Places", "Words", "refusal", "say", "seat_name", "worded"]
