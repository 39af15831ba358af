# The two commands of the quick start: `make serve` (PORT=8080 HOST=0.0.0.0 to change where) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: serve test test-fast venv openapi types state-doc state-types golden bench bench-http bench-compare bench-slow bench-check bench-recheck bench-ledger clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamp files so a second `make` does not reinstall.
# The editable install is setuptools' strict mode: a tree of links to the checkout's files,
# a plain path entry that static checkers can follow (mypy, like a user's checker, sees
# `referee`, `referee_schemas` and py.typed: tests/test_client_types.py), and the only
# editable mode that maps the `schemas/` folder to the package `referee_schemas`. The tree
# holds the files that existed at install time, so adding or removing a module (a change
# of a package folder's listing, hence its mtime) installs again.
EDITABLE := --config-settings editable_mode=strict
PACKAGE_DIRS := $(shell find referee schemas -type d -not -name __pycache__ 2>/dev/null)
$(VENV)/.installed: pyproject.toml $(PACKAGE_DIRS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e . $(EDITABLE)
	touch $@

$(VENV)/.installed-test: pyproject.toml $(PACKAGE_DIRS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]' $(EDITABLE)
	touch $(VENV)/.installed $@

venv: $(VENV)/.installed

serve: $(VENV)/.installed
	$(BIN)/referee serve --host $(HOST) --port $(PORT)

# The gates first (fast, and a red one says exactly what to fix), then every test.
# mypy checks, --strict, the packages and modules that pyproject.toml's [tool.mypy] lists.
test: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

# The inner loop: lint, then every test that starts no server, browser or cluster (tests/conftest.py,
# "make test-fast"). `make test` stays the one full gate.
test-fast: $(VENV)/.installed-test
	$(BIN)/ruff check .
	REFEREE_TESTS_FAST=1 $(BIN)/python -m pytest -q -m "not external"

# Regenerate openapi.yaml from the schemas (tests/test_openapi.py fails when it drifts).
openapi: $(VENV)/.installed
	$(BIN)/referee openapi --output openapi.yaml

# Regenerate clients/typescript/openapi.d.ts from openapi.yaml (tests/test_typescript.py fails when it drifts).
types: openapi
	cd clients/typescript && npm ci --no-audit --no-fund --prefer-offline && npm run --silent generate

# Rewrite docs/state.md's state table from the model (tests/test_model.py fails when it drifts).
state-doc: $(VENV)/.installed
	$(BIN)/python -m tests.state_doc

# Rewrite the TypedDicts generated from the model and the events' schemas (tests/test_state_types.py fails when they drift):
# the engine's state_types.py and event_types.py, and the client's own types.py (the client imports only itself).
state-types: $(VENV)/.installed
	$(BIN)/python -c "from referee.engine.model_doc import typed_dicts_source as s; open('referee/engine/state_types.py', 'w').write(s())"
	$(BIN)/python -c "from referee_schemas.typed import event_types_source as s; open('referee/engine/event_types.py', 'w').write(s())"
	$(BIN)/python -c "from referee_schemas.typed import client_types_source as s; open('referee/client/types.py', 'w').write(s())"
	$(BIN)/ruff format referee/engine/state_types.py referee/engine/event_types.py referee/client/types.py

golden: $(VENV)/.installed
	$(BIN)/python -m tests.golden.playthrough

# The current engine's figures, then the same timings against issue 11's baseline 7bc43d9 in alternating rounds.
bench: $(VENV)/.installed
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/engine.py --baseline 7bc43d9

# /v1/apply beside a parse-and-echo endpoint under gevent direct, sync direct and nginx -> sync, and
# slow-client availability; then every hot endpoint and private mode against the echo (2 workers; wrk if installed);
# then private apply with each ledger against private apply without one (the rows of bench-ledger, 2 rounds).
bench-http: $(VENV)/.installed
	$(BIN)/python benchmarks/http_edge.py
	$(BIN)/python benchmarks/http_load.py
	$(BIN)/python benchmarks/ledger_load.py --rounds 2 --size-games 1

# The baseline revision of issues 8, 10 and 11 and this code's worker classes, side by side, alternated.
bench-compare: $(VENV)/.installed
	$(BIN)/python benchmarks/http_compare.py --baseline 7bc43d9 --worker-classes sync,gevent --rounds 5

# Availability under 40 idle + 40 trickled-header + 2 non-reading sockets (≤ 60 s, loopback).
bench-slow: $(VENV)/.installed
	$(BIN)/python benchmarks/slow_clients.py

# `referee check` on 1,000 generated scenario files of 50 actions each, in-process.
bench-check: $(VENV)/.installed
	$(BIN)/python benchmarks/check.py

# `referee recheck` on an archive of random games: games per second with 1, 2 and N workers, and a LocalCluster.
bench-recheck: $(VENV)/.installed-test
	$(BIN)/python benchmarks/recheck.py --local-cluster

# Private /v1/apply without a ledger, with SQLite and with Redis on loopback (each at two durabilities),
# the same rounds, at 4 and 32 connections; then the ledger's size per game (docs/performance.md, "Ledger").
bench-ledger: $(VENV)/.installed
	$(BIN)/python benchmarks/ledger_load.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache build *.egg-info
