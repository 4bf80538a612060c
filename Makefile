# Two commands on a fresh machine: `make demo` and `make test`.
# The virtual environment is created and the project installed on first use.
# Its interpreter: Debian's /usr/bin/python3 when it is 3.11+ and can make a venv, the one
# the table runs on (deploy/install.sh, the Pi's OS): an optimised build (PGO, LTO, no
# shared libpython) that plays 10-15 % more hands a second than a default source build
# such as pyenv's. Else python3 on PATH; PYTHON=... chooses another.
SYSTEM_PYTHON := $(shell /usr/bin/python3 -c 'import sys, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo /usr/bin/python3)
PYTHON ?= $(or $(SYSTEM_PYTHON),python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# ESPHome, to validate the display examples (deploy/displays): a venv of its own, since its
# pins (click, PyYAML; PlatformIO's starlette and uvicorn) clash with the service's.
ESPHOME_VENV  := .venv-esphome
ESPHOME_STAMP := $(ESPHOME_VENV)/.installed
# What a Pi installs (deploy/install.sh: the project without the dev extra), for the
# benchmarks that measure the service's own footprint (bench/latency.py): the dev extra
# brings modules the service would import where present (playwright's greenlet, which
# structlog loads: ~1 MB resident).
RUNTIME_VENV  := .venv-runtime
RUNTIME_STAMP := $(RUNTIME_VENV)/.installed

.PHONY: demo test lint typecheck unit unit-pytest test-busy pi-speed deploy-test bench clean \
	firmware firmware-check

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# pyImpinj (an independent A0 reader driver, for a differential test) pins a libscrc
	# from 2020 that no longer builds; the dev extra has a current libscrc instead.
	$(BIN)/python -m pip install --quiet --no-deps 'pyimpinj==1.2'
	touch $(STAMP)

$(ESPHOME_STAMP): deploy/displays/requirements.txt
	$(PYTHON) -m venv $(ESPHOME_VENV)
	$(ESPHOME_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(ESPHOME_VENV)/bin/python -m pip install --quiet -r deploy/displays/requirements.txt
	touch $(ESPHOME_STAMP)

$(RUNTIME_STAMP): pyproject.toml
	$(PYTHON) -m venv $(RUNTIME_VENV)
	$(RUNTIME_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RUNTIME_VENV)/bin/python -m pip install --quiet .
	rm -rf build  # setuptools' copy of the sources, made by that install
	touch $(RUNTIME_STAMP)

# The table service against the virtual table: four bots play until Ctrl-C
# (RULESET=guangdong, HANDS=5, SEED=7 to choose).
demo: $(STAMP)
	$(BIN)/mjtable demo --ruleset $(or $(RULESET),xingguo) $(if $(HANDS),--hands $(HANDS)) $(if $(SEED),--seed $(SEED))

# Style, dead code (vulture: pyproject's [tool.vulture], vulture_whitelist.py), and the
# import contracts (lint-imports: pyproject's [tool.importlinter]).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/vulture
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

# The board firmware (firmware/): the host build and the ARM build (STM32F405, its RAM and
# flash printed), then its C unit tests (cmocka) and a bounded fuzz run; the Python tests
# drive both builds (tests/firmware/).
firmware:
	$(MAKE) -C firmware all

# Its C unit tests and a 30 s fuzz run of the board's inputs.
firmware-check: firmware
	$(MAKE) -C firmware check
	$(MAKE) -C firmware fuzz FUZZ_SECONDS=30

# Each pytest run ends with its slowest tests: where `make test`'s wall time goes.
DURATIONS := --durations=25 --durations-min=5

# pytest on both cores (pytest-xdist, a file's tests on one worker), the busy tier's files
# left to it. Measured on the quiet 2-core machine: 13-23 min (the machine's speed varies
# from day to day).
unit: firmware-check unit-pytest

unit-pytest: $(STAMP) $(ESPHOME_STAMP) firmware
	$(BIN)/pytest -n 2 --dist loadfile $(DURATIONS) $(addprefix --ignore=,$(BUSY_TESTS))

# The tiers that wait on real time (MQTT, the browser, QEMU, a full disk, a restart, the
# virtual players' pace), run beside two CPU-bound processes of their own, killed however
# the run ends: a busy machine (other work on CI's two cores) must not fail a test.
# `make unit` leaves them to this step, so each runs once in `make test`. Two workers (a
# file's tests on one), so four CPU-bound processes share the two cores: 6-10 min, where
# one worker took 15. BUSY_TESTS=... runs others.
BUSY_TESTS ?= tests/controller/mqtt tests/controller/web/test_browser.py \
	tests/firmware/test_qemu_board.py tests/controller/process/test_disk_full.py \
	tests/controller/table/test_resume.py tests/controller/table/test_power_cut.py \
	tests/controller/web/test_restart_notice_browser.py \
	tests/controller/web/test_readerless_jing_browser.py \
	tests/firmware/test_qemu_hand.py tests/controller/table/test_stalls.py \
	tests/controller/web/test_demo_broker_browser.py \
	tests/controller/web/test_first_shift_readers_browser.py \
	tests/controller/sim/test_virtual_table_restart.py \
	tests/controller/play/test_phone_claims_browser.py
test-busy: $(STAMP) $(ESPHOME_STAMP) firmware
	@burners=""; trap 'kill $$burners 2>/dev/null' EXIT INT TERM; \
	for i in 1 2; do sh -c 'while :; do :; done' & burners="$$burners $$!"; done; \
	echo "test-busy: beside two CPU-bound processes ($$burners)"; \
	$(BIN)/pytest -n 2 --dist loadfile $(DURATIONS) $(BUSY_TESTS)

# The service alone at a Pi 4's CPU speed (a cgroup quota, root: tests/controller/pi_cpu.py),
# a short latency run (~50 s); it fails if a move never reaches MQTT, and (--budget) if the
# worst ratio to a target (p99, idle CPU, RSS with the web app) passes 1.00. The p99 is
# judged on the best of up to 3 runs (--tries 3, each try's load average printed): other
# jobs on the machine's cores lengthen one run's tail (ratios 1.2-3 at load 10-20), a
# service over its target is over it in every run (docs/service.md, "On a Pi's budget").
# The board hand, the stall test and the soak also run at that speed in pytest.
pi-speed: $(STAMP)
	$(BIN)/python bench/latency.py --pi pi4 --moves 150 --idle 5 --budget --tries 3

# The deploy tier, as root: docs/parlour.md's commands on Debian 12 booted with systemd in
# systemd-nspawn, then the install on arm64 under qemu-user (tests/deploy). Its rootfs
# tarballs are built once with mmdebstrap and kept in /var/cache/mjtable-deploy. The two
# tests side by side (the arm64 install is one emulated core's work): ~3 min, not 6; -rP
# prints each part's time.
deploy-test: $(STAMP)
	$(BIN)/pytest -n 2 -m deploy tests/deploy -rP

# The venvs, the checks that need no pytest and the firmware's side by side (one core each,
# mostly: ~1 min, not 3), then the pytest tiers.
test:
	$(MAKE) --no-print-directory -j 3 --output-sync=target lint typecheck firmware-check \
		$(ESPHOME_STAMP)
	$(MAKE) --no-print-directory unit-pytest test-busy pi-speed deploy-test

bench: $(STAMP)
	$(BIN)/python bench/analysis.py
	$(BIN)/python bench/link.py
	$(BIN)/python bench/firmware_link.py
	$(BIN)/python bench/simulate.py
	$(BIN)/python bench/cli.py
	$(BIN)/python bench/login_flood.py
	$(BIN)/python bench/readers.py
	$(BIN)/python bench/latency.py --pi pi4
	$(BIN)/python bench/latency.py --pi zero2w

clean:
	rm -rf $(VENV) $(ESPHOME_VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
