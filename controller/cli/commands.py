"""Every ``mjtable`` command, in the one place that lists them.

A command lives in its own module, which defines ``cli``: a ``typer.Typer`` holding the one
command (or, for ``rules``/``owner``/``staff``/``member``, the group). The module is imported
only when its command runs or help lists it, so ``mjtable settle`` loads the engine and not
the service, MQTT or the web app. To add a command: write the module, add a line here.
"""

from __future__ import annotations

# command name -> module defining ``cli``
COMMANDS: dict[str, str] = {
    "analyze": "controller.cli.analyze",
    "settle": "controller.cli.settle",
    "rules": "controller.cli.rules",
    "simulate": "controller.cli.simulate",
    "replay": "controller.cli.replay",
    "verify-dice": "controller.cli.verify_dice",
    "run": "controller.cli.run_command",  # its options: controller.cli.run
    "demo": "controller.cli.demo",
    "hub": "controller.cli.hub",
    "owner": "controller.cli.owner",
    "staff": "controller.cli.staff",
    "member": "controller.cli.member",
    "broker-acl": "controller.cli.broker_acl",
    "enroll": "controller.cli.enroll",
    "sim-table": "controller.cli.sim_table",
    "readers": "controller.cli.readers",
    "backup": "controller.cli.backup",
    "say": "controller.cli.say",
    "version": "controller.cli.version",
}
