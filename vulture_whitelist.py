"""What vulture (``make lint``) would call dead but is used by name: by a framework, a
library's callback, a C struct's layout, JSON a page reads, or a protocol's values."""

# ruff: noqa: B018

_ = object()

# framework and library hooks: uvicorn's Server, pydantic-settings, amqtt's plugins,
# http.server, SQLAlchemy's TypeDecorator, gpiozero's callbacks, asyncio's Protocol, pytest
_.capture_signals
_.should_exit
_.autocommit  # psycopg's connection
_.dotenv_settings  # settings_customise_sources' keyword parameters
_.file_secret_settings
_.AnonymousTopics  # amqtt loads its plugins by dotted name
_.topic_filtering
_.daemon_threads
_.log_message
_.hashable
_.should_evaluate_none
_.when_pressed
_.when_released
_.connection_made
_.connection_lost
_._read_ready  # pyserial-asyncio's transport hook
_.weights  # random.choices' keyword, in a stand-in
_.pytest_runtest_makereport
_.teardown  # hypothesis' RuleBasedStateMachine
_.controller  # tests import controller.cli.enroll for the command it adds
# Starlette's Route matching reads these of an ApiRoute not yet built (controller/web/routes.py)
_.methods
_.path_regex
_.path_format
_.param_convertors

# fields serialised by name: the pages' JSON, the metrics (every counter of a dataclass),
# a ctypes struct laid out as the firmware's C one, an event's data
_.self_draws
_.acknowledged_role  # a store loss's acknowledgement, read back by the API
_.big_hands
_.currency
_.entered_by_staff  # controller.web.schemas.HandOut: the owners' list marks it
_.expires_at
_.frames_tx
_.frames_rx
_.bytes_tx
_.bytes_rx
_.out_of_window
_.rx_slot_too_small
_.last_report

# a protocol's or an enum's values, named for the ones the other side sends
_.MAN, _.PIN, _.SOU  # engine.tiles.suit_of's values
_.READER_BUS
_.OFF
_.ON
