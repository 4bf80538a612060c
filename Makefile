# Two commands on a fresh machine: `make demo` and `make test`.
# The virtual environment is created and the project installed on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Until the table service lands, the demo analyses and settles sample hands.
demo: $(STAMP)
	$(BIN)/mjtable analyze "123m 456p 789s EEE 5m 6m" --indicator 5m
	$(BIN)/mjtable analyze "147m 258p 3s ESWN CF 6m" --indicator 5m
	$(BIN)/mjtable analyze "123m 456p 11s 2s 3s" --melds "pung 777p"
	$(BIN)/mjtable settle docs/examples/xingguo-deguo-self-draw.json

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python bench/analysis.py
	$(BIN)/python bench/link.py
	$(BIN)/python bench/simulate.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
