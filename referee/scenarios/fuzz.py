"""``referee fuzz``: seeded random playouts on a catalog, every invariant checked at every step.

For catalog authors (a CI job that edits card YAML): thousands of games on
their catalog, and the first game that breaks an invariant handed back as a
scenario file that ``referee check`` replays (docs/scenarios.md, "referee fuzz").

Each game ``i`` of seed ``S`` is dealt from two random legal decks of seed
``S:i`` and played by one of three policies, chosen by ``i``: uniform over
the legal actions; biased towards responses, investigations and end-of-file
play (voluntary draws, mulligans); and the engine's own random player. At
every step, whatever the policy, illegal candidates of every action type are
put to the engine too. The invariants (:data:`INVARIANTS`) are those of
:mod:`referee.scenarios.invariants`, the one implementation of each, which a
scenario asserts with ``then.invariants``: the failing game's scenario asserts
the invariant it broke, and is cut to the shortest prefix ``referee check``
fails on.

- ``listed_legal``, ``refusal`` (the candidates), ``consistent``: on the state
  before every action (``consistent`` on the last state too);
- ``seat_secrets``: after the deal and after every action;
- ``deterministic``: the game replayed from its NewGame and actions, by
  ``referee check``'s own player, gives byte-identical steps;
- ``ends_within``: the game is over within ``--max-actions`` actions.

The engine is used only through its package face and the in-process backend
of ``referee check``, so the fuzzer tests what every caller gets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.engine import ActionDict, Catalog, FieldZone, ResultDict, Session, StateDict
from referee.engine.setup import SeededStream
from referee.scenarios import invariants
from referee.scenarios.backends import InProcess

if TYPE_CHECKING:
    from referee.scenarios.model import Scenario

INVARIANTS = invariants.NAMES
POLICIES = ("uniform", "biased", "engine")
DEFAULT_MAX_ACTIONS = 3000

# docs/api.md §6: every action type and the card fields it takes.
ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "mulligan": (),
    "keep": (),
    "play_case": ("card",),
    "skip_case": (),
    "draw": (),
    "play_fairy": ("card",),
    "play_evidence": ("card", "case"),
    "dispatch": ("fairy", "case"),
    "redispatch": ("fairy", "case"),
    "recall": ("fairy",),
    "investigate": ("case",),
    "use_ability": ("card", "ability", "targets"),
    "cast_spell": ("card", "targets"),
    "counter": ("card", "targets"),
    "pass": (),
    "end_turn": (),
    "discard": ("cards",),
    "concede": (),
}
# The biased policy's weights: responses, investigations and the end of the file come up often.
BIAS = {"counter": 8.0, "investigate": 6.0, "draw": 4.0, "mulligan": 1.0, "keep": 1.5, "concede": 0.0}
FIELD: tuple[FieldZone, ...] = ("cases", "fairies", "evidence")


@dataclass
class Failure:
    """The first invariant a game broke: where, what, and what the scenario's ``then.invariants`` asserts."""

    invariant: str
    step: int  # the actions of the shortest failing prefix
    detail: str
    value: Any = True  # then.invariants.<invariant>: true, the candidate (refusal) or K (ends_within)


@dataclass
class GameReport:
    index: int
    seed: str
    policy: str
    game: dict[str, Any]
    actions: list[ActionDict]
    result: ResultDict | None
    failure: Failure | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"index": self.index, "seed": self.seed, "policy": self.policy, "actions": len(self.actions)}
        out["result"] = self.result
        out["failure"] = None if self.failure is None else asdict(self.failure)
        return out


class Broken(Exception):
    """An invariant does not hold (raised inside one game; becomes its :class:`Failure`)."""

    def __init__(self, failure: Failure):
        super().__init__(failure.detail)
        self.failure = failure


def _holds(problem: str | None, invariant: str, step: int, value: Any = True) -> None:
    if problem:
        raise Broken(Failure(invariant, step, problem, value))


# -- candidates ------------------------------------------------------------------------------------------


def _instances(state: StateDict) -> list[str]:
    return sorted(state["cards"])


def candidates(state: StateDict, stream: SeededStream) -> list[dict[str, Any]]:
    """One candidate of every action type, its fields drawn from the state (mostly the actor's cards),
    some from elsewhere, a few unknown ids: most are illegal, all are well formed."""
    everything = _instances(state)
    actor = _actor(state)
    out = []
    for kind, fields in ACTION_FIELDS.items():
        player = actor if stream.below(4) else 1 - actor
        pl = state["players"][player]
        own = pl["hand"] + [e["card"] for zone in FIELD for e in pl[zone]]
        cases = [e["card"] for p in state["players"] for e in p["cases"]]

        def pick(pool: list[str]) -> str:
            roll = stream.below(10)
            if roll == 0:
                return "zz" + format(stream.below(1 << 16), "04x")  # an id in no game
            if roll <= 2 or not pool:
                return stream.choice(everything)
            return stream.choice(pool)

        a: dict[str, Any] = {"type": kind, "player": player}
        for f in fields:
            if f == "card":
                a[f] = pick(own)
            elif f == "case":
                a[f] = pick(cases)
            elif f == "fairy":
                a[f] = pick([e["card"] for e in pl["fairies"]])
            elif f == "ability":
                a[f] = stream.below(3)
            elif f == "targets":
                a[f] = [pick(everything) for _ in range(stream.below(3))]
            elif f == "cards":
                n = max(0, len(pl["hand"]) - 7) or 1
                n = max(1, n + stream.below(3) - 1)
                hand = list(pl["hand"])
                stream.shuffle(hand)
                a[f] = hand[:n] if len(hand) >= n else [pick(everything) for _ in range(n)]
        out.append(a)
    return out


# -- policies --------------------------------------------------------------------------------------------


def choose(policy: str, listed: list[ActionDict], session: Session, stream: SeededStream) -> ActionDict:
    if policy == "engine":
        from referee.engine.playout import random_action  # the engine's own random player

        return random_action(session.board, stream)
    playable = [a for a in listed if a["type"] != "concede"]
    if not playable or (policy == "uniform" and stream.below(2000) == 0):
        return next(a for a in listed if a["type"] == "concede" and a["player"] == _actor(session.state))
    if policy == "uniform":
        return stream.choice(playable)
    files = [len(pl["file"]) for pl in session.state["players"]]
    weights = [BIAS.get(a["type"], 1.0) * (3.0 if a["type"] == "draw" and min(files) < 8 else 1.0) for a in playable]
    return playable[stream.weighted(weights)]


def _actor(state: StateDict) -> int:
    pending = state["pending"]
    return pending["responder"] if pending else state["active"]


# -- one game --------------------------------------------------------------------------------------------


def new_game_for(catalog: Catalog, seed: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    from referee.engine.playout import random_new_game

    return random_new_game(catalog, seed, **({"options": options} if options else {}))


def _play(
    catalog: Catalog, game: dict[str, Any], seed: str, policy: str, max_actions: int, actions: list[ActionDict]
) -> tuple[Session, list[str]]:
    """Play one game, every invariant checked at every step (raising :class:`Broken`), the actions
    appended to ``actions``; returns the session and the steps' digests (for ``deterministic``)."""
    probe = InProcess(catalog)  # the invariants' referee: the engine, as `referee check` asks it
    session, dealt = Session.new(catalog, game)
    choices = SeededStream("choices:" + seed)
    wrong = SeededStream("candidates:" + seed)
    trace = [invariants.step_digest(None, list(dealt), session.state)]
    _holds(invariants.seat_secrets(probe, session.state, list(dealt)), "seat_secrets", 0)
    while not session.over:
        step = len(actions)
        if step >= max_actions:
            _holds(invariants.ends_within(max_actions, session.state, step), "ends_within", step, max_actions)
        listed, crashed = invariants.guarded("legal_actions", None, session.legal_actions)
        _holds(crashed, "listed_legal", step)
        _check_step(probe, session.state, listed, wrong, step)
        action = choose(policy, listed, session, choices)
        applied, crashed = invariants.guarded("apply", action, partial(session.apply, action))
        _holds(crashed, "listed_legal", step)
        events = list(applied.events)
        actions.append(action)
        trace.append(invariants.step_digest(action, events, session.state))
        _holds(invariants.seat_secrets(probe, session.state, events), "seat_secrets", step + 1)
    _holds(invariants.consistent(catalog, session.state), "consistent", len(actions))
    return session, trace


def _check_step(probe: InProcess, state: StateDict, listed: list[ActionDict], wrong: SeededStream, step: int) -> None:
    """The invariants on the state before an action: consistent, every listed action legal, and one
    candidate of every action type (those not listed) refused as a referee should refuse it."""
    _holds(invariants.consistent(probe.catalog, state), "consistent", step)
    _holds(invariants.listed_legal(probe, state, listed), "listed_legal", step)
    keys = {invariants.key(a) for a in listed}
    for c in candidates(state, wrong):
        if invariants.key(c) not in keys:
            _holds(invariants.refusal(probe, state, c, listed), "refusal", step, [c])


def fuzz_game(catalog: Catalog, index: int, seed: str, max_actions: int = DEFAULT_MAX_ACTIONS) -> GameReport:
    """Fuzz game ``index`` of ``seed``: play it with every check, then replay it as `referee check` would
    to compare (determinism); a failure is cut to the shortest prefix `referee check` fails on."""
    game_seed = f"{seed}:{index}"
    policy = POLICIES[index % len(POLICIES)]
    options = {"response_windows": "strict"} if index % 2 else None
    game = new_game_for(catalog, game_seed, options)
    actions: list[ActionDict] = []
    try:
        session, trace = _play(catalog, game, game_seed, policy, max_actions, actions)
    except Broken as broken:
        failure = broken.failure
        report = GameReport(index, game_seed, policy, game, actions[: failure.step], None, failure)
    else:
        report = GameReport(index, game_seed, policy, game, actions, session.state["result"])
        problem = invariants.deterministic(trace, _replayed(catalog, report))
        if problem is None:
            return report
        report.failure = Failure("deterministic", len(actions), problem)
    _shrink(catalog, report)
    return report


def _scenario(doc: dict[str, Any], report: GameReport) -> Scenario:
    from referee.scenarios.model import parse
    from referee.scenarios.source import Document

    return parse(Document(doc, f"fuzz-{report.seed}"))


def _replayed(catalog: Catalog, report: GameReport) -> list[str]:
    """The game's steps played again from its NewGame and actions, by `referee check`'s own player."""
    from referee.scenarios.runner import StepWatch, execute

    backend = InProcess(catalog).trusting()  # the states were checked as the game was played
    again = StepWatch(backend, [], trace=True)
    game = {"given": _given(report), "when": report.actions, "then": {"legal": True}}
    execute(_scenario(game, report), backend, fast=False, observe=again)
    return again.trace or []


def _reproduces(catalog: Catalog, report: GameReport, steps: int) -> bool:
    """Whether `referee check` fails the scenario of the first ``steps`` actions on the failure's invariant."""
    from referee.scenarios.runner import run

    assert report.failure is not None
    result = run(_scenario(scenario_for(catalog, report, steps), report), InProcess(catalog))
    said = f"invariant {report.failure.invariant} "
    return result.status == "failed" and any(line.startswith(said) for line in result.details)


def _shrink(catalog: Catalog, report: GameReport) -> None:
    """Cut the failing game to the shortest prefix whose scenario `referee check` fails (a binary search:
    an invariant checked at every step that breaks after a prefix breaks after every longer one).
    ``ends_within`` keeps its K actions: a shorter game is not one that should have ended."""
    f = report.failure
    assert f is not None
    if f.invariant == "ends_within":
        return
    low, high = 0, f.step
    while low < high:
        mid = (low + high) // 2
        if _reproduces(catalog, report, mid):
            high = mid
        else:
            low = mid + 1
    f.step = high
    report.actions = report.actions[:high]


# -- the failing game as a scenario ------------------------------------------------------------------------


def scenario_for(catalog: Catalog, report: GameReport, steps: int | None = None) -> dict[str, Any]:
    """The failing game as a scenario: its NewGame, the first ``steps`` actions (default: the report's),
    and ``then.invariants`` asserting the invariant it broke, which `referee check` fails while the bug is
    there (and passes once it is fixed)."""
    f = report.failure
    assert f is not None
    when = report.actions if steps is None else report.actions[:steps]
    return {
        "name": f"fuzz {report.seed}: {f.invariant} at action {len(when)}",
        "description": (
            f"Found by `referee fuzz` (catalog {catalog.id} {catalog.digest[:19]}..., policy {report.policy}): "
            f"{f.detail}"
        ),
        "given": _given(report),
        "when": when,
        "then": {"legal": True, "invariants": {f.invariant: f.value}},
    }


def _given(report: GameReport) -> dict[str, Any]:
    """The game's NewGame as a scenario's given (``first_player`` written: a scenario's default is 0)."""
    return {"game": {**report.game, "first_player": report.game.get("first_player")}}


def write_scenario(catalog: Catalog, report: GameReport, out_dir: str) -> str:
    """Write the failing game's scenario into ``out_dir`` (one action a line, as ``referee record`` writes);
    returns its path."""
    from referee.scenarios.assertions import flow

    Path(out_dir).mkdir(parents=True, exist_ok=True)
    f = report.failure
    assert f is not None
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in report.seed)
    path = Path(out_dir) / f"fuzz-{safe}-{f.invariant}.yaml"
    doc = scenario_for(catalog, report)
    lines = [
        f"# `referee check` on this file fails while the bug is there (then.invariants.{f.invariant}).",
        f"name: {flow(doc['name'])}",
        f"description: {flow(doc['description'])}",
        "given:",
        "  game:",
    ]
    for key, value in doc["given"]["game"].items():
        if key != "decks":
            lines.append(f"    {key}: {flow(value)}")
    lines.append("    decks:")
    lines.extend(f"      - {flow(deck)}" for deck in doc["given"]["game"]["decks"])
    lines.append("when:" if doc["when"] else "when: []")
    lines.extend(f"  - {flow(a)}" for a in doc["when"])
    lines.append("then:")
    lines.extend(f"  {key}: {flow(value)}" for key, value in doc["then"].items())
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return str(path)


# -- many games ----------------------------------------------------------------------------------------------


def fuzz_batch(spec: Any, batch: list[tuple[int, str, int]]) -> list[GameReport]:
    """A worker's task: fuzz a batch of games (``(index, seed, max_actions)``) with the spec's catalog."""
    catalog = spec.backend().catalog
    return [fuzz_game(catalog, index, seed, max_actions) for index, seed, max_actions in batch]


@dataclass
class Summary:
    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    failures: list[GameReport] = field(default_factory=list)
    scenarios: list[str] = field(default_factory=list)

    def exit_code(self) -> int:
        return 1 if self.failures else 0


def fuzz(
    catalog: Catalog,
    games: int,
    seed: str,
    *,
    max_actions: int = DEFAULT_MAX_ACTIONS,
    jobs: int | None = 1,
    dask: str | None = None,
    out_dir: str | None = None,
    on_game: Callable[[GameReport], None] | None = None,
    stop_at_first: bool = True,
) -> Summary:
    """Fuzz ``games`` games; stops at the first failing game (its scenario written into ``out_dir``)."""
    import time

    from referee.scenarios.parallel import BackendSpec, open_pool

    start = time.perf_counter()
    summary = Summary()
    items = [(i, seed, max_actions) for i in range(games)]
    with open_pool(jobs, dask, items=games) as pool:
        if pool.executor is None:
            reports: Iterator[GameReport] = (fuzz_game(catalog, *item) for item in items)
        else:
            size = max(1, min(8, games // (pool.workers * 8)))
            batches = [items[i : i + size] for i in range(0, games, size)]
            spec = BackendSpec.of(InProcess(catalog))
            reports = (r for batch in pool.map(fuzz_batch, batches, spec) for r in batch)
        for report in reports:
            summary.games += 1
            summary.actions += len(report.actions)
            if on_game:
                on_game(report)
            if report.failure is not None:
                summary.failures.append(report)
                if out_dir:
                    summary.scenarios.append(write_scenario(catalog, report, out_dir))
                if stop_at_first:
                    break
    summary.seconds = time.perf_counter() - start
    return summary
