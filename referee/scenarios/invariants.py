"""The invariants of a game, each written once: ``referee fuzz`` checks them at every step of its games,
and a scenario asserts them with ``then: {invariants: ...}`` (docs/scenarios.md, "Invariants"), so the
scenario the fuzzer writes fails under ``referee check`` for the reason the fuzzer found.

Each check asks a :class:`~referee.scenarios.backends.Backend` (the in-process engine or a service over HTTP,
:mod:`referee.scenarios.backends`) and returns ``None`` when the invariant holds, or a problem in words:

- ``listed_legal``: every action ``legal_actions`` lists is accepted by ``validate`` and by ``apply``;
- ``refusal``: a candidate action is accepted by both ``validate`` and ``apply`` (and then listed), or
  refused by both with the same rule and code, a rule id of the rules reference, leaving the state as it was;
- ``consistent``: the state round-trips through JSON and the consistency check (RULES 13.1) unchanged;
- ``seat_secrets``: each seat's view and events name no card that seat may not know (this module's own
  reading of RULES 4.1/4.4 and docs/api.md §5, not the engine's, so a bug there is caught, not agreed with);
- ``deterministic``: two plays of the same game give byte-identical steps (:func:`step_digest`);
- ``ends_within``: the game is over within K actions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache, partial
from typing import Any

import orjson

from referee.engine import ActionDict, Catalog, EventDict, InvalidInput, StateDict, ViewDict, check_state
from referee.engine.events import events_for
from referee.scenarios.assertions import flow
from referee.scenarios.backends import Backend, Refusal

NAMES = ("listed_legal", "refusal", "consistent", "seat_secrets", "deterministic", "ends_within")
PER_STEP = ("listed_legal", "consistent", "seat_secrets")  # checked on the state after the given and each action
Action = ActionDict | dict[str, Any]  # a listed action, or a candidate built to put to the referee


def dumps(value: Any) -> bytes:
    """The canonical bytes of a JSON value (sorted keys): what "byte-identical" compares."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def key(action: Action) -> bytes:
    """An action without ``pay``, canonical: how listed and candidate actions are compared."""
    return dumps({k: v for k, v in action.items() if k != "pay"})


def _text(action: Any) -> str:
    return flow(action)


# -- listed_legal and refusal -------------------------------------------------------------------------


def guarded(what: str, action: Action | None, call: Callable[[], Any]) -> tuple[Any, str | None]:
    """``(call(), None)``, or ``(None, the problem)`` of a referee that crashed in ``what`` (on ``action``):
    an error it does not raise on purpose. A refusal and a failure to reach a service propagate."""
    try:
        return call(), None
    except Refusal:
        raise
    except Exception as exc:
        if type(exc).__module__.startswith(("referee.client", "httpx")):
            raise
        on = "" if action is None else f" on {_text(action)}"
        return None, f"the referee crashed in {what}{on}: {type(exc).__name__}: {exc}"


def listed_legal(ref: Backend, state: StateDict, listed: list[ActionDict] | None = None) -> str | None:
    """Every listed action (``listed``: ``legal_actions`` on ``state``, when the caller has it) is
    accepted by ``validate`` and by ``apply``."""
    if listed is None:
        listed, crashed = guarded("legal_actions", None, partial(ref.legal_actions, state, None))
        if crashed:
            return crashed
    for a in listed:
        said, crashed = guarded("validate", a, partial(ref.validate, state, a))
        if crashed:
            return crashed
        if said is not None:
            return f"listed action {_text(a)} is refused by validate: {said.describe()}"
        trial, crashed = guarded("apply", a, partial(ref.trial, state, a))
        if crashed:
            return crashed
        if trial.refusal is not None:
            return f"listed action {_text(a)} is refused by apply: {trial.refusal.describe()}"
    return None


@lru_cache(maxsize=1)
def _rule_ids() -> frozenset[str]:
    from referee.engine.rules_index import rule_ids

    return frozenset(rule_ids())


def refusal(ref: Backend, state: StateDict, action: Action, listed: list[ActionDict] | None = None) -> str | None:
    """``action`` (well formed) put to the referee on ``state``: ``validate`` and ``apply`` agree; a refusal
    names a rule id of the reference and changes nothing; an accepted action is one ``legal_actions``
    lists (``listed``, when the caller has it), or any ``discard`` when one is listed."""
    said, crashed = guarded("validate", action, partial(ref.validate, state, action))
    if crashed:
        return crashed
    trial, crashed = guarded("apply", action, partial(ref.trial, state, action))
    if crashed:
        return crashed
    text = _text(action)
    refused = trial.refusal
    if refused is None:
        if said is not None:
            return f"candidate {text}: apply accepts it but validate refuses it: {said.describe()}"
        if listed is None:
            listed, crashed = guarded("legal_actions", None, partial(ref.legal_actions, state, None))
            if crashed:
                return crashed
        keys = {key(a) for a in listed}
        discard_listed = any(a["type"] == "discard" for a in listed)
        if key(action) not in keys and not (action.get("type") == "discard" and discard_listed):
            return f"candidate {text} is accepted, yet legal_actions does not list it"
        return None
    if refused.kind != "violation":
        return f"well-formed candidate {text} is refused as invalid input, naming no rule: {refused.describe()}"
    if refused.rule not in _rule_ids():
        return f"candidate {text} is refused citing rule {refused.rule!r}, not a rule of the reference"
    if said is None or (said.rule, said.code) != (refused.rule, refused.code):
        what = "legal" if said is None else f"rule {said.rule} ({said.code})"
        return f"candidate {text}: apply refuses it ({refused.describe()}) but validate says {what}"
    if trial.state is not None and dumps(trial.state) != dumps(state):
        return f"refused candidate {text} changed the state"
    return None


# -- consistent ---------------------------------------------------------------------------------------------


def consistent(catalog: Catalog, state: StateDict) -> str | None:
    """RULES 13.1 and the JSON round trip: the state, read back from its JSON and checked, is unchanged."""
    text = dumps(state)
    try:
        again = check_state(catalog, json.loads(text))
    except InvalidInput as exc:
        return f"the state fails the consistency check: {exc}"
    if dumps(again) != text:
        return "the state changes through JSON and the consistency check"
    return None


# -- seat_secrets: what a seat may know, this module's own reading of the rules ------------------------------


def knowable(state: StateDict, seat: int) -> set[str]:
    """The instances whose card ``seat`` may know (RULES 4.1, 4.4; docs/api.md §5)."""
    out: set[str] = set()
    for p, pl in enumerate(state["players"]):
        out.update(pl["trash"])
        out.update(e["card"] for e in pl["fairies"])
        out.update(e["card"] for e in pl["evidence"])
        out.update(e["card"] for e in pl["cases"] if e["face_up"] or p == seat)
        if p == seat:
            out.update(pl["hand"])
    pending = state.get("pending")
    if pending:
        out.update(pending.get("counters", ()))
        act = pending["action"]
        if act["type"] != "play_case" and isinstance(act.get("card"), str):
            out.add(act["card"])
    return out


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def secrets_named(catalog: Catalog, state: StateDict, seat: int, view: ViewDict, events: list[EventDict]) -> str | None:
    """What ``view`` or ``events`` tell ``seat`` that it may not know, or ``None``."""
    allowed = knowable(state, seat)
    for field in ("seed", "rng"):
        if field in view:
            return f"the view of player {seat} holds the {field}"
    shown = view.get("cards", {})
    leaked = sorted(set(shown) - allowed)
    if leaked:
        return f"the view of player {seat} names hidden card(s) {', '.join(leaked[:5])}"
    wrong = sorted(iid for iid, cid in shown.items() if state["cards"].get(iid) != cid)
    if wrong:
        return f"the view of player {seat} gives wrong cards for {', '.join(wrong[:5])}"
    for p, pl in enumerate(view.get("players", ())):
        if not isinstance(pl.get("file"), int):
            return f"the view of player {seat} lists player {p}'s file"
    known_cids = {state["cards"][iid] for iid in allowed}
    for event in events:
        if "seed" in event:
            return f"an event for player {seat} holds the seed: {event}"
        named = {s for s in _strings(event) if s in catalog.cards}
        if not named:
            continue
        instances = {s for s in _strings(event) if s in state["cards"]}
        for cid in named:
            if cid not in known_cids or not any(
                state["cards"][iid] == cid and iid in allowed for iid in instances | allowed
            ):
                return f"an event for player {seat} names card {cid} it may not know: {event}"
            if instances and not any(state["cards"][iid] == cid and iid in allowed for iid in instances):
                return f"an event for player {seat} names card {cid} of an instance it may not know: {event}"
    return None


def seat_secrets(ref: Backend, state: StateDict, events: list[EventDict]) -> str | None:
    """Each seat's view of ``state`` and its share of ``events`` (the events that led to it, as private
    play tells them to that seat: the engine's filter, docs/api.md §10) name nothing it may not know."""
    for seat in (0, 1):
        leak = secrets_named(ref.catalog, state, seat, ref.view(state, seat), events_for(events, state, seat))
        if leak:
            return leak
    return None


# -- deterministic and ends_within ---------------------------------------------------------------------------


def step_digest(action: Any, events: Sequence[Mapping[str, Any]], state: StateDict | None) -> str:
    """One step of a play, as two plays compare it: the action (``None`` for the given), its events, the
    state after it (``None`` when the referee refused it: ``events`` then holds the refusal)."""
    return hashlib.sha256(dumps([action, events, state])).hexdigest()


def refusal_step(refusal: Refusal) -> list[dict[str, Any]]:
    """What a refused step records in place of its events."""
    return [{"refused": refusal.status, "rule": refusal.rule, "code": refusal.code}]


def deterministic(first: list[str], second: list[str]) -> str | None:
    """Two plays' steps (:func:`step_digest`, the given first) are the same, step for step."""
    if first == second:
        return None
    at = next((i for i, (x, y) in enumerate(zip(first, second)) if x != y), min(len(first), len(second)))
    where = "after the given" if at == 0 else f"at action {at - 1}"
    return (
        f"the same game played twice differs {where} "
        f"(the first play has {len(first) - 1} action(s), the second {len(second) - 1})"
    )


def ends_within(limit: int, state: StateDict, played: int) -> str | None:
    """The game is over after at most ``limit`` actions (``played`` of them were played)."""
    if state["phase"] == "over":
        return None
    if played >= limit:
        return f"the game is not over after {limit} action(s)"
    return f"the game is not over after all {played} action(s) of when (it must be within {limit})"
