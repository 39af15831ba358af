"""``referee record`` and ``referee replay``: golden playthroughs and recorded games.

:func:`record` plays a seeded game (random legal actions, or the actions of a
file) in process and writes it as a scenario whose ``then`` pins the final
state, zone by zone, by catalog id: a file a user commits, and ``referee
check`` fails the day a rule or a card plays differently.

:func:`load_replay` reads what ``referee replay`` checks: the body of
``POST /v1/replay`` (``{"game" or "state", "actions"}``, JSON or YAML) or a
scenario file (its ``given`` and ``when``; its ``then`` is ignored).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from referee.engine import (
    ActionDict,
    Catalog,
    IdZone,
    InvalidInput,
    RuleViolation,
    Session,
    StateDict,
    parse_action,
    records,
)
from referee.engine.playout import random_action
from referee.engine.setup import SeededStream
from referee.scenarios.archive import line_for
from referee.scenarios.assertions import Matcher, flow
from referee.scenarios.build import expand_game
from referee.scenarios.model import Scenario, parse
from referee.scenarios.records_io import is_record, read_record_file, record_scenario
from referee.scenarios.refs import RefError, ref_for, refs_in_action, resolve_action
from referee.scenarios.source import Document, ScenarioError, load_documents


class RecordError(Exception):
    """An action of the actions file that cannot be recorded (malformed, or illegal at ``index``)."""

    def __init__(self, message: str, index: int | None = None, rule: str | None = None, illegal: bool = False):
        self.index = index
        self.rule = rule
        self.illegal = illegal
        super().__init__(message)


ID_ZONES: tuple[IdZone, ...] = ("file", "hand", "trash")
SUPPORTING: tuple[Literal["fairies", "evidence"], ...] = ("fairies", "evidence")  # on a case, or standby


@dataclass
class Recording:
    game: dict[str, Any]
    actions: list[dict[str, Any]]  # as written: references
    state: StateDict
    played: list[ActionDict] = field(default_factory=list)  # with instance ids, as a game record names them

    def over(self) -> bool:
        return bool(self.state["phase"] == "over")


def record(
    catalog: Catalog,
    seed: str,
    game: dict[str, Any] | None = None,
    actions: list[Any] | None = None,
    max_actions: int | None = None,
) -> Recording:
    """Play and record one game: from ``game`` (default: random legal decks from ``seed``),
    applying ``actions`` (references allowed) or, without them, random legal actions drawn from ``seed``."""
    from referee.engine.playout import random_new_game

    if game is None:
        game = random_new_game(catalog, seed)
    else:
        # As POST /v1/games deals it: a NewGame without first_player has the seed choose (RULES 5.2), never
        # the scenario default 0 (whose missing draw would also shuffle differently).
        drawn = game.get("first_player") is None
        game = expand_game(catalog, {"seed": seed, **game})
        if drawn:
            game["first_player"] = None
    game = dict(game)
    game.setdefault("first_player", None)  # recorded explicitly: the scenario default is 0
    try:
        session, _ = Session.new(catalog, game)
    except (RuleViolation, InvalidInput) as exc:
        raise RecordError(f"the game is refused: {exc}") from None
    state = session.state
    written: list[dict[str, Any]] = []
    played: list[ActionDict] = []
    limit = max_actions if max_actions is not None else 100_000
    if actions is not None:
        for i, raw in enumerate(actions[:limit]):
            try:
                action: ActionDict = parse_action(resolve_action(state, raw), f"actions.{i}")
            except RefError as exc:
                raise RecordError(f"action {i}: {exc}", i) from None
            except InvalidInput as exc:
                raise RecordError(f"action {i}: {exc}", i) from None
            written.append(refs_in_action(state, action))
            played.append(action)
            try:
                session.apply_parsed(action)
            except RuleViolation as exc:
                raise RecordError(
                    f"action {i} is illegal: rule {exc.rule} ({exc.code}): {exc.detail('en')}",
                    i,
                    exc.rule,
                    illegal=True,
                ) from None
    else:
        stream = SeededStream("choices:" + seed)
        while not session.over and len(written) < limit:
            action = random_action(session.board, stream)
            written.append(refs_in_action(state, action))
            played.append(action)
            session.apply_parsed(action)
    return Recording(game, written, state, played)


def pins(state: StateDict) -> dict[str, Any]:
    """``then`` assertions that pin ``state``: every field a rule decides, by catalog id."""
    m = Matcher(state)
    out: dict[str, Any] = {"legal": True}
    fields: Mapping[str, Any] = state  # the fields a rule decides, pinned by name
    for key in ("phase", "step", "turn", "active", "case_played", "result"):
        out[key] = fields[key]
    out["pending"] = m.human(state["pending"])
    out["rng"] = state["rng"]

    def case_name(iid: str | None) -> str | None:
        if iid is None:
            return None
        cid = state["cards"][iid]
        same = [e["card"] for pl in state["players"] for e in pl["cases"] if state["cards"][e["card"]] == cid]
        return cid if len(same) == 1 else ref_for(state, iid)

    for p, pl in enumerate(state["players"]):
        for zone in ID_ZONES:
            out[f"p{p}.{zone}"] = m.human(pl[zone])
        out[f"p{p}.cases"] = [
            {"card": state["cards"][e["card"]], "face_up": e["face_up"], "actioned": e["actioned"]} for e in pl["cases"]
        ]
        for supporting in SUPPORTING:
            out[f"p{p}.{supporting}"] = [
                {"card": state["cards"][e["card"]], "case": case_name(e["case"])} for e in pl[supporting]
            ]
    if state.get("modifiers"):
        out["modifiers"] = m.human(state["modifiers"])
    if state.get("used"):
        out["used"] = m.human(state["used"])
    return out


def to_yaml(rec: Recording, name: str, comment: str) -> str:
    """The recording as a scenario file: one action per line, zones as flow lists."""
    lines = [f"# {line}" if line else "#" for line in comment.splitlines()]
    lines.append(f"name: {flow(name)}")
    lines.append("given:")
    lines.append("  game:")
    for key, value in rec.game.items():
        if key == "decks":
            continue
        lines.append(f"    {key}: {flow(value)}")
    lines.append("    decks:")
    for deck in rec.game["decks"]:
        lines.append(f"      - {flow(deck)}")
    lines.append("when:" if rec.actions else "when: []")
    lines.extend(f"  - {flow(a)}" for a in rec.actions)
    lines.append("then:")
    for key, value in pins(rec.state).items():
        lines.append(f"  {key}: {flow(value)}")
    return "\n".join(lines) + "\n"


# -- replay -------------------------------------------------------------------------


def load_replay(path: str, catalog: Catalog | None = None) -> Scenario:
    """What ``referee replay`` checks, as a scenario that expects every action to be legal (and, from a game
    record read against ``catalog``, the result its ``Result`` tag says)."""
    if is_record(path):
        return record_scenario(read_record_file(path), path, catalog or Catalog.builtin())
    docs = load_documents(path)
    if len(docs) != 1:
        raise ScenarioError(path, None, None, f"a recorded game is one document, not {len(docs)}")
    doc = docs[0]
    data = doc.data
    if not isinstance(data, dict):
        raise doc.error((), "a recorded game is a mapping: {game or state, actions}, or a scenario")
    if "given" in data:
        data = {k: v for k, v in data.items() if k != "then"}
        data["then"] = {"legal": True}
        return parse(Document(data, doc.file, 0, doc.lines, doc.line))
    unknown = sorted(set(data) - {"game", "state", "actions"})
    if unknown:
        raise doc.error((unknown[0],), "unknown field: a recorded game has game or state, and actions")
    if ("game" in data) == ("state" in data):
        raise doc.error((), "give exactly one of game and state")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise doc.error(("actions",), "must be a list of actions")
    kind = "game" if "game" in data else "state"
    lines: dict[tuple[str | int, ...], int] = {}
    for field_path, line in doc.lines.items():  # actions.3.card → when.3.card, game.x → given.game.x
        if field_path[:1] == ("actions",):
            lines[("when",) + field_path[1:]] = line
        elif field_path[:1] == (kind,):
            lines[("given",) + field_path] = line
    sc_doc = Document(
        {"given": {kind: data[kind]}, "when": actions, "then": {"legal": True}}, doc.file, 0, lines, doc.line
    )
    sc = parse(sc_doc)
    sc.raw_game = True  # an API body: no scenario defaults (seed, first_player)
    return sc


# -- game records (docs/records.md) ---------------------------------------------------


def record_of(catalog: Catalog, rec: Recording) -> str:
    """The game record (docs/records.md) of a recording."""
    return records.record_text(catalog, rec.game, rec.played)


def recorded_text(
    catalog: Catalog, rec: Recording, form: str, seed: str, name: str | None = None, source: str = ""
) -> str:
    """The recording written as ``form``: ``afr`` a game record, ``jsonl`` an archive line, ``yaml`` a scenario."""
    if form == "afr":
        return record_of(catalog, rec)
    if form == "jsonl":
        return line_for(name or f"seed {seed}", catalog, rec.game, rec.actions, rec.state).decode()
    comment = (
        f"Recorded by `referee record --seed {seed}` ({source or 'random legal actions'}), "
        f"catalog {catalog.id} {catalog.digest[:19]}...\n"
        f"{len(rec.actions)} action(s); the game is {'over' if rec.over() else 'not over'}.\n"
        "`referee check` replays it and fails if an action is refused or the final state differs."
    )
    return to_yaml(rec, name or f"recorded game, seed {seed}", comment)


def record_batch(spec: Any, form: str, game: Any, max_actions: int | None, seeds: list[str]) -> list[str]:
    """A worker's task (``referee record --games N``): the texts of the random games of ``seeds``, in order;
    a ``ValueError`` when the game is refused."""
    catalog = spec.backend().catalog
    out = []
    for seed in seeds:
        try:
            rec = record(catalog, seed, game, None, max_actions)
        except RecordError as exc:
            raise ValueError(str(exc)) from None
        out.append(recorded_text(catalog, rec, form, seed))
    return out
