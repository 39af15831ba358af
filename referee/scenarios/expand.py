"""``referee expand``: a scenario or a recorded game as the table page's replay file.

The table (``/table``, Replay) steps through ``{"game" or "state", "actions"}``
by applying the actions one by one. A scenario cannot be sent as it is — its
``given`` may be a ``position`` and its actions may hold references such as
``p0.hand.AF-001`` — so this runs it in-process and writes what it resolved to:
the NewGame or State it started from and every action with instance ids,
the refused one included, and ``focus``, the index of the action to look at
(the one refused, or the one that should have been).
"""

from __future__ import annotations

from typing import Any

from referee.scenarios.build import build_position, expand_game
from referee.scenarios.model import Scenario, parse
from referee.scenarios.record import load_replay
from referee.scenarios.records_io import is_record
from referee.scenarios.runner import execute
from referee.scenarios.source import ScenarioError, load_documents


def load(spec: str) -> Scenario:
    """The scenario named by ``FILE`` or ``FILE#N`` (the N-th document, 1-based), or a replay body."""
    path, _, number = spec.partition("#")
    if not number and is_record(path):
        return load_replay(path)
    docs = load_documents(path)
    if not number and len(docs) == 1 and isinstance(docs[0].data, dict) and "given" not in docs[0].data:
        return load_replay(path)
    index = int(number) - 1 if number.isdecimal() else 0
    if not 0 <= index < len(docs):
        raise ScenarioError(path, None, None, f"the file has {len(docs)} document(s), not #{number}")
    return parse(docs[index])


def start_of(sc: Scenario, catalog: Any) -> dict[str, Any]:
    """``{"game": NewGame}`` or ``{"state": State}``: where the scenario starts, as the API takes it."""
    if sc.given_kind == "game":
        return {"game": sc.given if sc.raw_game else expand_game(catalog, sc.given)}
    if sc.given_kind == "state":
        return {"state": sc.given}
    return {"state": build_position(catalog, sc.given, catalog.ref)}


def expand(sc: Scenario, backend: Any) -> dict[str, Any]:
    """The table's replay file for ``sc``: its start, its resolved actions and where to look."""
    ex = execute(sc, backend, fast=False)
    actions = [ex.resolved[i] for i in sorted(ex.resolved)]
    out: dict[str, Any] = {"name": sc.name, "source": sc.label, **start_of(sc, backend.catalog), "actions": actions}
    focus = ex.at if ex.refusal is not None or ex.ref_error is not None else None
    if focus is None and sc.expect != "legal" and isinstance(sc.expect_index, int):
        focus = sc.expect_index
    out["focus"] = None if focus == "given" else focus
    if ex.refusal is not None:
        r = ex.refusal
        out["refused"] = {"index": ex.at, "status": r.status, "rule": r.rule, "code": r.code, "detail": r.detail}
    return out


def hint(label: str, table: str | None = None) -> str:
    """What ``referee check`` prints under a failed scenario: how to see it on the table.

    ``table`` is the table page of the referee the scenarios ran against (``--url``); in-process there is
    none to name, and no address is made up: the page is ``/table`` of whichever referee the reader runs.
    """
    quoted = f"'{label}'" if "#" in label or " " in label else label
    where = f"at {table}" if table else "on the table page (/table of a running referee)"
    return f"see it on the table: referee expand {quoted} -o failed.json, then load failed.json in Replay {where}"
