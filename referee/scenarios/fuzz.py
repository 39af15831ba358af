"""``referee fuzz``: seeded random playouts on a catalog, every invariant checked at every step.

For catalog authors (a CI job that edits card YAML): thousands of games on
their catalog, and the first game that breaks an invariant handed back as a
scenario file that ``referee check`` replays (docs/scenarios.md, "referee fuzz").

Each game ``i`` of seed ``S`` is dealt from two random legal decks of seed
``S:i`` and played by one of three policies, chosen by ``i``: uniform over
the legal actions; biased towards responses, investigations and end-of-file
play (voluntary draws, mulligans); and the engine's own random player. At
every step, whatever the policy, illegal candidates of every action type are
put to the engine too. The invariants (:data:`INVARIANTS`):

- ``listed_legal``: every listed action is accepted by ``validate`` and ``apply``;
- ``refusal``: every refused candidate names a rule id of the rules reference,
  ``validate`` and ``apply`` agree on it, and the refusal changes nothing;
  a candidate that is accepted is one ``legal_actions`` lists;
- ``consistent``: the state round-trips through JSON and through the
  consistency check (RULES 13.1) unchanged;
- ``seat_secrets``: each seat's view and events never name a card that seat
  may not know (judged by this module's own reading of RULES 4.1/4.4 and
  docs/api.md §5, not by the engine's);
- ``deterministic``: playing the same seed again gives byte-identical actions,
  events and states;
- ``ends``: the game is over within ``--max-actions`` actions.

The engine is used only through its package face, so the fuzzer tests what
every caller gets.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from referee.engine import Catalog, InvalidInput, RuleViolation, Session, check_state
from referee.engine.events import events_for
from referee.engine.setup import SeededStream

INVARIANTS = ("listed_legal", "refusal", "consistent", "seat_secrets", "deterministic", "ends")
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


@dataclass
class Failure:
    """The first invariant a game broke: where, what, and the scenario that replays it."""

    invariant: str
    step: int  # the number of actions applied before it
    detail: str
    then: dict[str, Any] = field(default_factory=dict)
    extra: list[dict[str, Any]] = field(default_factory=list)  # actions the scenario adds after the prefix
    reproduced_by_check: bool = True  # whether `referee check` on the scenario fails (see scenario_for)


@dataclass
class GameReport:
    index: int
    seed: str
    policy: str
    game: dict[str, Any]
    actions: list[dict[str, Any]]
    result: dict[str, Any] | None
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


# -- what a seat may know: this module's own reading of the rules --------------------------------------


def knowable(state: dict[str, Any], seat: int) -> set[str]:
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


def secrets_named(
    catalog: Catalog, state: dict[str, Any], seat: int, view: dict[str, Any], events: list[dict[str, Any]]
) -> str | None:
    """What ``view`` or ``events`` tell ``seat`` that it may not know, or ``None``."""
    allowed = knowable(state, seat)
    for key in ("seed", "rng"):
        if key in view:
            return f"the view of player {seat} holds the {key}"
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


# -- candidates ------------------------------------------------------------------------------------------


def _key(action: dict[str, Any]) -> str:
    """An action without ``pay``, canonical: how listed and candidate actions are compared."""
    return json.dumps({k: v for k, v in action.items() if k != "pay"}, sort_keys=True)


def _instances(state: dict[str, Any]) -> list[str]:
    return sorted(state["cards"])


def candidates(state: dict[str, Any], stream: SeededStream) -> list[dict[str, Any]]:
    """One candidate of every action type, its fields drawn from the state (mostly the actor's cards),
    some from elsewhere, a few unknown ids: most are illegal, all are well formed."""
    everything = _instances(state)
    actor = state["pending"]["responder"] if state.get("pending") else state["active"]
    out = []
    for kind, fields in ACTION_FIELDS.items():
        player = actor if stream.below(4) else 1 - actor
        pl = state["players"][player]
        own = pl["hand"] + [e["card"] for zone in ("cases", "fairies", "evidence") for e in pl[zone]]
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


def choose(policy: str, listed: list[dict[str, Any]], session: Session, stream: SeededStream) -> dict[str, Any]:
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


def _actor(state: dict[str, Any]) -> int:
    actor: int = state["pending"]["responder"] if state.get("pending") else state["active"]
    return actor


# -- one game --------------------------------------------------------------------------------------------


def new_game_for(catalog: Catalog, seed: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    from referee.engine.playout import random_new_game

    return random_new_game(catalog, seed, **({"options": options} if options else {}))


def _rule_ids() -> frozenset[str]:
    from referee.engine.rules_index import rule_ids

    return frozenset(rule_ids())


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _play(
    catalog: Catalog,
    seed: str,
    policy: str,
    max_actions: int,
    checked: bool,
    options: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], list[str], Session]:
    """Play one game; with ``checked``, every invariant at every step (raising :class:`Broken`).

    Returns the NewGame, the actions, one digest per step (action, events, state) and the session.
    """
    game = new_game_for(catalog, seed, options)
    session, _ = Session.new(catalog, game)
    stream = SeededStream("choices:" + seed)
    probe = SeededStream("candidates:" + seed)
    rules = _rule_ids() if checked else frozenset()
    actions: list[dict[str, Any]] = []
    digests: list[str] = []
    while not session.over:
        if len(actions) >= max_actions:
            if checked:
                raise Broken(
                    Failure("ends", len(actions), f"the game is not over after {max_actions} actions", {"legal": True})
                )
            break
        listed = session.legal_actions()
        if checked:
            _check_step(catalog, session, listed, probe, rules, len(actions))
        action = choose(policy, listed, session, stream)
        events = list(session.apply(action).events)
        actions.append(action)
        state = session.state
        digests.append(hashlib.sha256((_dumps(action) + _dumps(events) + _dumps(state)).encode()).hexdigest())
        if checked:
            for seat in (0, 1):
                leak = secrets_named(catalog, state, seat, session.view(seat), events_for(events, state, seat))
                if leak:
                    raise Broken(Failure("seat_secrets", len(actions), leak, {"legal": True}))
    if checked:
        _check_state(catalog, session, len(actions))
    return game, actions, digests, session


def _check_state(catalog: Catalog, session: Session, step: int) -> str:
    """RULES 13.1 and the JSON round trip; returns the state's JSON."""
    state = session.state
    text = _dumps(state)
    try:
        again = check_state(catalog, json.loads(text))
    except InvalidInput as exc:
        raise Broken(
            Failure(
                "consistent",
                step,
                f"the state after {step} action(s) fails the consistency check: {exc}",
                {"legal": True},
                [] if session.over else [{"type": "concede", "player": 0}],
            )
        ) from None
    if _dumps(again) != text:
        raise Broken(
            Failure(
                "consistent",
                step,
                f"the state after {step} action(s) changes through JSON and the consistency check",
                {"legal": True},
                reproduced_by_check=False,
            )
        )
    return text


def _check_step(
    catalog: Catalog,
    session: Session,
    listed: list[dict[str, Any]],
    probe: SeededStream,
    rules: frozenset[str],
    step: int,
) -> None:
    before = _check_state(catalog, session, step)
    keys = {_key(a) for a in listed}
    for a in listed:
        violation = _guarded(partial(session.validate, a), "listed_legal", step, a)
        if violation is not None:
            raise Broken(
                Failure(
                    "listed_legal",
                    step,
                    f"listed action {_dumps(a)} is refused by validate: rule {violation.rule} ({violation.code})",
                    {"legal": True},
                    [a],
                    reproduced_by_check=False,
                )
            )
        try:
            _guarded(partial(_apply_on_copy, catalog, session, a), "listed_legal", step, a)
        except (RuleViolation, InvalidInput) as exc:
            raise Broken(
                Failure(
                    "listed_legal",
                    step,
                    f"listed action {_dumps(a)} is refused by apply: {_refusal(exc)}",
                    {"legal": True},
                    [a],
                )
            ) from None
    discard_listed = any(a["type"] == "discard" for a in listed)
    for c in candidates(session.state, probe):
        if _key(c) in keys:
            continue
        _check_candidate(catalog, session, c, before, rules, step, discard_listed)


def _apply_on_copy(catalog: Catalog, session: Session, action: dict[str, Any]) -> Any:
    return Session(catalog, session.snapshot()).apply(action)


def _guarded(call: Callable[[], Any], invariant: str, step: int, action: dict[str, Any]) -> Any:
    """``call()``; an exception the engine does not raise on purpose is a crash: the invariant fails."""
    try:
        return call()
    except (RuleViolation, InvalidInput):
        raise
    except Exception as exc:
        raise Broken(
            Failure(
                invariant,
                step,
                f"the referee crashed on {_dumps(action)}: {type(exc).__name__}: {exc}",
                {"legal": True},
                [action],
            )
        ) from None


def _refusal(exc: Exception) -> str:
    if isinstance(exc, RuleViolation):
        return f"rule {exc.rule} ({exc.code}): {exc}"
    return f"invalid input: {exc}"


def _check_candidate(
    catalog: Catalog,
    session: Session,
    c: dict[str, Any],
    before: str,
    rules: frozenset[str],
    step: int,
    discard_listed: bool,
) -> None:
    said = _guarded(lambda: session.validate(c), "refusal", step, c)
    trial = Session(catalog, session.snapshot())
    try:
        _guarded(lambda: trial.apply(c), "refusal", step, c)
    except RuleViolation as exc:
        if exc.rule not in rules:
            raise Broken(
                Failure(
                    "refusal",
                    step,
                    f"candidate {_dumps(c)} is refused citing rule {exc.rule!r}, not a rule of the reference",
                    {"violation": {"rule": exc.rule, "code": exc.code}},
                    [c],
                    reproduced_by_check=False,
                )
            ) from None
        if said is None or said.code != exc.code:
            what = "legal" if said is None else f"rule {said.rule} ({said.code})"
            raise Broken(
                Failure(
                    "refusal",
                    step,
                    f"candidate {_dumps(c)}: apply refuses it ({_refusal(exc)}) but validate says {what}",
                    {"violation": {"rule": exc.rule, "code": exc.code}},
                    [c],
                    reproduced_by_check=False,
                )
            ) from None
        if _dumps(trial.state) != before:
            from referee.scenarios.record import pins

            then = {**pins(json.loads(before)), "violation": {"rule": exc.rule, "code": exc.code}}
            then.pop("legal", None)
            raise Broken(
                Failure("refusal", step, f"refused candidate {_dumps(c)} changed the state", then, [c])
            ) from None
        return
    except InvalidInput as exc:
        raise Broken(
            Failure(
                "refusal",
                step,
                f"well-formed candidate {_dumps(c)} is refused as invalid input, naming no rule: {exc}",
                {"legal": True},
                [c],
                reproduced_by_check=False,
            )
        ) from None
    if said is not None:
        raise Broken(
            Failure(
                "refusal",
                step,
                f"candidate {_dumps(c)}: apply accepts it but validate says rule {said.rule} ({said.code})",
                {"violation": {"rule": said.rule, "code": said.code}},
                [c],
            )
        )
    if not (c["type"] == "discard" and discard_listed):
        want = {k: v for k, v in c.items() if k != "pay"}
        raise Broken(
            Failure(
                "refusal",
                step,
                f"candidate {_dumps(c)} is accepted, yet legal_actions does not list it",
                {"legal": True, "legal_actions": {"player": c["player"], "includes": [want]}},
            )
        )


def fuzz_game(catalog: Catalog, index: int, seed: str, max_actions: int = DEFAULT_MAX_ACTIONS) -> GameReport:
    """Fuzz game ``index`` of ``seed``: play it with every check, then again to compare (determinism)."""
    game_seed = f"{seed}:{index}"
    policy = POLICIES[index % len(POLICIES)]
    options = {"response_windows": "strict"} if index % 2 else None
    try:
        game, actions, digests, session = _play(catalog, game_seed, policy, max_actions, True, options)
    except Broken as broken:
        game = new_game_for(catalog, game_seed, options)
        prefix = _replayed_prefix(catalog, game_seed, policy, broken.failure.step, options)
        return GameReport(index, game_seed, policy, game, prefix, None, broken.failure)
    _, again, digests2, _ = _play(catalog, game_seed, policy, max_actions, False, options)
    report = GameReport(index, game_seed, policy, game, actions, session.state["result"])
    if digests2 != digests:
        at = next((i for i, (x, y) in enumerate(zip(digests, digests2)) if x != y), min(len(digests), len(digests2)))
        report.actions = actions[: at + 1]
        report.failure = Failure(
            "deterministic",
            at + 1,
            f"the same seed played again differs at action {at} (first run {len(actions)} actions, second {len(again)})",
            {"legal": True},
            reproduced_by_check=False,
        )
    return report


def _replayed_prefix(
    catalog: Catalog, seed: str, policy: str, steps: int, options: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """The first ``steps`` actions of the game, played again without the checks (the shortest failing prefix)."""
    _, actions, _, _ = _play(catalog, seed, policy, steps, False, options)
    return actions[:steps]


# -- the failing game as a scenario ------------------------------------------------------------------------


def scenario_for(catalog: Catalog, report: GameReport) -> dict[str, Any]:
    """The failing game as a scenario: its NewGame, the shortest failing prefix, and a ``then`` that fails
    while the invariant is broken (the expected outcome a correct referee gives)."""
    f = report.failure
    assert f is not None
    game = {**report.game, "first_player": report.game.get("first_player")}
    return {
        "name": f"fuzz {report.seed}: {f.invariant} at action {f.step}",
        "description": (
            f"Found by `referee fuzz` (catalog {catalog.id} {catalog.digest[:19]}..., policy {report.policy}): "
            f"{f.detail}"
        ),
        "given": {"game": game},
        "when": [*report.actions, *f.extra],
        "then": f.then,
    }


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
        "# `referee check` on this file replays the failing game"
        + ("; it fails while the bug is there." if f.reproduced_by_check else " to the step where the invariant broke.")
        + (
            " The invariant is not one a scenario can assert: see the description." if not f.reproduced_by_check else ""
        ),
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

    from referee.scenarios.backends import InProcess
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
