"""Running one scenario through a backend and judging the outcome against its ``then``."""

from __future__ import annotations

import copy
import difflib
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.engine import EventDict, StateDict
from referee.scenarios import assertions, invariants
from referee.scenarios.assertions import flow, legend, readable_lines
from referee.scenarios.backends import Backend, BackendGame, Refusal
from referee.scenarios.build import BuildError, build_position, expand_game
from referee.scenarios.known import check_names
from referee.scenarios.model import Scenario
from referee.scenarios.refs import RefError, has_refs, resolve_action
from referee.scenarios.source import ScenarioError


@dataclass
class Result:
    """One scenario's verdict: ``status`` is ``passed``, ``failed`` or ``error`` (malformed)."""

    label: str
    name: str
    status: str
    details: list[str] = field(default_factory=list)
    seconds: float = 0.0
    file: str = ""
    line: int = 1
    rule: str | None = None
    error: ScenarioError | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"


@dataclass
class Execution:
    """What happened: the state reached, the events, and where (if anywhere) the referee refused."""

    state: StateDict | None = None
    events: list[EventDict] = field(default_factory=list)
    refusal: Refusal | None = None
    at: int | str | None = None  # "given" or the index of the refused action
    ref_error: str | None = None
    before: StateDict | None = None  # the state before the watched action
    after: StateDict | None = None  # ... and after it, when it was accepted
    resolved: dict[int, Any] = field(default_factory=dict)
    played: int = 0  # the actions applied


# What a play tells its watcher at each step: where ("given" or the action's index), the action (resolved;
# None for the given), then the state and events after it, or the refusal (state None).
Observer = Callable[[int | str, Any, StateDict | None, list[EventDict], Refusal | None], None]


def run(sc: Scenario, backend: Backend) -> Result:
    """Run and judge one scenario; never raises for what a scenario or the referee can do."""
    start = time.perf_counter()
    result = Result(sc.label, sc.name, "passed", file=sc.file, line=sc.doc.line, rule=sc.rule)
    try:
        check_names(sc, backend.catalog)  # a misspelt type or card is a malformed file, not a failure
        details = judge(sc, backend)
    except ScenarioError as exc:
        result.status, result.error, result.details = "error", exc, [str(exc)]
    except Refusal as exc:  # a refusal outside the scenario's steps (legal_actions on a bad state...)
        result.status, result.details = "failed", [f"the referee refused: {exc.describe()}"]
    except Exception as exc:
        if type(exc).__module__.startswith(("referee.client", "httpx")):
            raise
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        result.status = "failed"
        result.details = [
            f"the referee crashed: {type(exc).__name__}: {exc} "
            f"({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno}) — this is a bug in the referee"
        ]
    else:
        if details:
            result.status, result.details = "failed", details
    result.seconds = time.perf_counter() - start
    return result


def _start(sc: Scenario, backend: Backend) -> BackendGame:
    try:
        if sc.given_kind == "game":
            game = sc.given if sc.raw_game else expand_game(backend.catalog, sc.given)
            return backend.new_game(game)
        if sc.given_kind == "state":
            return backend.load(sc.given)
        return backend.load(build_position(backend.catalog, sc.given, backend.ref))
    except BuildError as exc:
        raise sc.doc.error(("given", *exc.path), exc.message) from None


def execute(
    sc: Scenario,
    backend: Backend,
    watch: int | None = None,
    fast: bool = True,
    observe: Observer | None = None,
    until_over: bool = False,
) -> Execution:
    """Build the given, then apply the actions until one is refused.

    ``watch``: the index of an action whose before and after states to keep
    (for the diff of an action that should have been refused). ``fast``
    allows one ``/v1/replay`` request over HTTP when no action uses references.
    ``observe`` is told every step (the invariants); ``until_over`` stops at the end of the game
    (``ends_within``: the rest of a playout a referee that ends the game sooner does not need).
    """
    ex = Execution()
    try:
        session = _start(sc, backend)
    except Refusal as refusal:
        ex.refusal, ex.at = refusal, "given"
        if observe:
            observe("given", None, None, [], refusal)
        return ex
    ex.events = session.events
    if observe:
        observe("given", None, session.state, list(session.events), None)
    when = sc.when
    if (
        fast
        and observe is None
        and watch is None
        and when
        and backend.replays_in_one_request
        and "events" not in sc.assertions
        and not any(has_refs(a) for a in when)
    ):
        try:
            backend.replay(session, when)
        except Refusal as refusal:
            ex.refusal, ex.at = refusal, refusal.index if refusal.index is not None else 0
        ex.state = session.state
        return ex
    for i, raw in enumerate(when):
        state = session.state
        if until_over and state["phase"] == "over":
            break
        try:
            action = resolve_action(state, raw)
        except RefError as exc:
            ex.ref_error, ex.at, ex.state = str(exc), i, state
            return ex
        ex.resolved[i] = action
        if i == watch:
            ex.before = copy.deepcopy(state)
        try:
            events = backend.apply(session, action)
        except Refusal as refusal:
            ex.refusal, ex.at = refusal, i
            if observe:
                observe(i, action, None, [], refusal)
            break
        ex.played += 1
        if observe:
            observe(i, action, session.state, events, None)
        if i == watch:
            ex.after = copy.deepcopy(session.state)
    ex.state = session.state
    ex.events = session.events
    return ex


def judge(sc: Scenario, backend: Backend) -> list[str]:
    """The failure details (empty when the scenario passes)."""
    watch = sc.expect_index if isinstance(sc.expect_index, int) and sc.expect != "legal" else None
    if sc.invariants:
        return _judge_invariants(sc, backend, watch)
    ex = execute(sc, backend, watch)
    out = _judge(sc, backend, ex)
    if out and watch is None and backend.replays_in_one_request and sc.when:
        # The one-request replay cannot say what an action changed: run again step by step.
        out = _judge(sc, backend, execute(sc, backend, watch, fast=False))
    return out


class StepWatch:
    """The invariants a scenario asserts that are checked as it plays: the per-step ones on the state
    after the given and after each action (the first break of each kept), and the steps' digests for
    ``deterministic``."""

    def __init__(self, backend: Backend, names: list[str], trace: bool):
        self.backend = backend
        self.names = names
        self.trace: list[str] | None = [] if trace else None
        self.broken: dict[str, tuple[int | str, str]] = {}

    def __call__(
        self,
        at: int | str,
        action: Any,
        state: StateDict | None,
        events: list[EventDict],
        refusal: Refusal | None,
    ) -> None:
        if self.trace is not None:
            self.trace.append(
                invariants.step_digest(action, invariants.refusal_step(refusal), None)
                if refusal is not None
                else invariants.step_digest(action, events, state)
            )
        if state is None:
            return
        for name in self.names:
            if name not in self.broken:
                problem = self.check(name, state, events)
                if problem:
                    self.broken[name] = (at, problem)

    def check(self, name: str, state: StateDict, events: list[EventDict]) -> str | None:
        if name == "listed_legal":
            return invariants.listed_legal(self.backend, state)
        if name == "consistent":
            return invariants.consistent(self.backend.catalog, state)
        return invariants.seat_secrets(self.backend, state, events)


def _judge_invariants(sc: Scenario, backend: Backend, watch: int | None) -> list[str]:
    """The invariants first (each one that breaks, with its line and step), then the outcome and assertions."""
    wanted = sc.invariants
    steps = StepWatch(backend, [n for n in invariants.PER_STEP if n in wanted], "deterministic" in wanted)
    ex = execute(sc, backend, watch, fast=False, observe=steps, until_over="ends_within" in wanted)
    problems: dict[str, str] = {name: f"{_after(at)}: {p}" for name, (at, p) in steps.broken.items()}
    if "refusal" in wanted:
        found = _probe_refusals(backend, wanted["refusal"], ex.state)
        if found:
            problems["refusal"] = found
    if "deterministic" in wanted:
        again = StepWatch(backend, [], trace=True)
        execute(sc, backend, watch, fast=False, observe=again, until_over="ends_within" in wanted)
        found = invariants.deterministic(steps.trace or [], again.trace or [])
        if found:
            problems["deterministic"] = found
    if "ends_within" in wanted and ex.state is not None:
        found = invariants.ends_within(wanted["ends_within"], ex.state, ex.played)
        if found:
            problems["ends_within"] = found
    out = [
        f"invariant {name} (line {sc.line_of('then', 'invariants', name)}) does not hold: {problems[name]}"
        for name in wanted
        if name in problems
    ]
    return out + _judge(sc, backend, ex)


def _after(at: int | str) -> str:
    return "after the given" if at == "given" else f"after action {at}"


def _probe_refusals(backend: Backend, probes: list[Any], state: StateDict | None) -> str | None:
    """``then.invariants.refusal``: each action put to the referee on the state reached (not played)."""
    if state is None:
        return "there is no state to put the actions to (the given was refused)"
    for i, raw in enumerate(probes):
        try:
            action = resolve_action(state, raw)
        except RefError as exc:
            return f"refusal.{i}: the reference names no card: {exc}"
        found = invariants.refusal(backend, state, action)
        if found:
            return f"on the state reached: {found}"
    return None


def _judge(sc: Scenario, backend: Backend, ex: Execution) -> list[str]:
    if ex.ref_error is not None:
        return [
            *_step_header(sc, ex, ex.at),
            f"  the reference names no card: {ex.ref_error}",
            *_state_block("state at that point", ex.state),
        ]
    if sc.expect == "legal":
        if ex.refusal is not None:
            return [
                *_step_header(sc, ex, ex.at),
                "  expected: legal",
                f"  actual:   {_refusal_text(ex.refusal, ex.state)}",
                *_state_block("state before it" if ex.at != "given" else None, ex.state),
            ]
        return _assert(sc, backend, ex)
    want = sc.then[sc.expect]
    if ex.refusal is None:
        out = [
            *_step_header(sc, ex, sc.expect_index if sc.expect_index != "any" else None),
            f"  expected: {_expected_text(sc)}",
            "  actual:   accepted" + (" (every action was legal)" if sc.expect_index == "any" else ""),
        ]
        if ex.before is not None and ex.after is not None:
            out += _diff_block(ex.before, ex.after)
        return out
    problems = []
    if sc.expect_index != "any" and ex.at != sc.expect_index:
        problems.append(f"refused at {_step_name(ex.at)}, expected at {_step_name(sc.expect_index)}")
    if ex.refusal.kind != sc.expect:
        problems.append(f"expected a {sc.expect}, got a{'n' if ex.refusal.kind == 'error' else ''} {ex.refusal.kind}")
    else:
        if sc.expect == "violation" and want.get("rule") != ex.refusal.rule:
            problems.append(f"rule {ex.refusal.rule}, not {want.get('rule')}")
        if "code" in want and want["code"] != ex.refusal.code:
            problems.append(f"code {ex.refusal.code}, not {want['code']}")
        if sc.expect == "error":
            if want.get("status", 400) != ex.refusal.status:
                problems.append(f"status {ex.refusal.status}, not {want.get('status', 400)}")
            field_ = want.get("field")
            if field_ and not any(
                k == field_ or k.endswith(("." + field_, "." + field_ + ".")) or k.startswith(field_ + ".")
                for k in ex.refusal.errors
            ):
                problems.append(f"no error for field {field_} (errors: {flow(ex.refusal.errors)})")
    if problems:
        return [
            *_step_header(sc, ex, ex.at),
            f"  expected: {_expected_text(sc)}",
            f"  actual:   {_refusal_text(ex.refusal, ex.state)}",
            *(f"  ({p})" for p in problems),
        ]
    return _assert(sc, backend, ex) if sc.assertions else []


def _assert(sc: Scenario, backend: Backend, ex: Execution) -> list[str]:
    if not sc.assertions:
        return []
    if ex.state is None:
        return ["there is no state to check the assertions against (the given was refused)"]
    mismatches = assertions.check(sc.assertions, ex.state, ex.events, backend.legal_actions)
    if not mismatches:
        return []
    after = "after every action" if ex.refusal is None else f"reached (before the refused {_step_name(ex.at)})"
    out = [f"the state {after} differs from then (line {sc.line_of('then')}):"]
    for mm in mismatches:
        lines = mm.lines()
        lines[0] = f"{mm.key} (line {sc.line_of('then', mm.key)}):"
        out += ["  " + line for line in lines]
    return out


def _step_name(at: Any) -> str:
    return "the given" if at == "given" else f"action {at}"


def _step_header(sc: Scenario, ex: Execution, at: Any) -> list[str]:
    if at is None:
        return []
    if at == "given":
        return [f"at the given ({sc.given_kind}, line {sc.line_of('given')}):"]
    raw = sc.when[at]
    out = [f"at action {at} (when.{at}, line {sc.line_of('when', at)}): {flow(raw)}"]
    resolved = ex.resolved.get(at)
    if resolved is not None and resolved != raw:
        out.append(f"  resolved: {flow(resolved)}")
    return out


def _expected_text(sc: Scenario) -> str:
    want = sc.then[sc.expect]
    if sc.expect == "violation":
        text = f"violation of rule {want['rule']}" + (f" ({want['code']})" if "code" in want else "")
    else:
        text = f"error {want.get('status', 400)}" + (f" ({want['code']})" if "code" in want else "")
        if want.get("field"):
            text += f" on field {want['field']}"
    return text + f" at {_step_name(sc.expect_index)}" if sc.expect_index != "any" else text


def _refusal_text(refusal: Refusal, state: StateDict | None) -> str:
    text = refusal.describe()
    if refusal.errors:
        text += " " + "; ".join(f"[{k}: {' '.join(v)}]" for k, v in sorted(refusal.errors.items()))[:400]
    key = legend(refusal.detail, state)
    return text + (f" ({key})" if key else "")


def _state_block(title: str | None, state: StateDict | None) -> list[str]:
    if not title or not state:
        return []
    return [f"  {title}:", *("    " + line for line in readable_lines(state))]


def _diff_block(before: StateDict, after: StateDict) -> list[str]:
    diff = [
        d
        for d in difflib.unified_diff(readable_lines(before), readable_lines(after), lineterm="", n=0)
        if not d.startswith(("---", "+++", "@@"))
    ]
    return ["  what it changed (- before, + after):", *("    " + d for d in diff)] if diff else []
