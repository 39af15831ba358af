"""What the game endpoints do, with no web framework: each reads the WSGI environ and returns an :data:`Answer`.

Both ways into them use these same functions: the Flask views of
:mod:`referee.service.routes` (which carry the OpenAPI documentation) and the
lean path of the hot endpoints (:mod:`referee.service.hot_path`). An error is
raised (:class:`~referee.service.problems.Problem` or the engine's) and
answered by the one error mapping, :func:`referee.service.hooks.error_answer`.

Each endpoint is written once for every mode: the app's codec
(:mod:`referee.service.codecs`: plain, sealed or private, chosen at start-up)
opens the body's state and seat and closes the next state into the answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson

from referee import engine, events
from referee.bots import suggest as bots
from referee.engine import records
from referee.engine.decklists import canonical_forms, read_deck
from referee.engine.errors import ReplayError, RuleViolation
from referee.engine.labels import label, labelled, names_for
from referee.engine.setup import deck_violations
from referee.service import jobs, metrics
from referee.service.codecs import ACT, ASK, LOOK, SUGGEST
from referee.service.context import Referee
from referee.service.heavy import HeavyTimeout, heavy_timeout
from referee.service.problems import Problem, problem_for, schema_problem, violation_json
from referee.service.reading import T0_KEY, VIOLATION_KEY, BodyLimits, envelope, language, player_field, read_body

# status, JSON body, and "ja" when its human text is Japanese (Content-Language), else None
Answer = tuple[int, bytes, "str | None"]
Environ = dict[str, Any]
Body = dict[str, Any]
Handler = Callable[[Environ], Answer]


def _lang(lang: str) -> str | None:
    return "ja" if lang == "ja" else None


def read_record(text: Any) -> records.Record:
    """The body's ``record``: a string that reads as a record (400 ``bad_record`` with its line)."""
    if not isinstance(text, str):
        raise schema_problem({"record": ["Not a valid string."]})
    try:
        return records.read(text)
    except records.RecordError as exc:
        raise bad_record(exc) from None


def bad_record(exc: records.RecordError) -> Problem:
    return Problem("bad-record", "bad_record", f"The record does not read: {exc}.", line=exc.line)


# The bot answers by this share of budget_ms after the request came in: the rest is the answer's own work.
BUDGET_SHARE = 0.95
MAX_SEED = 200  # characters of a suggestion's seed


def _bounded_int(body: dict[str, Any], key: str, high: int) -> int | None:
    value = body.get(key)
    if key not in body:
        return None
    if type(value) is not int or not 1 <= value <= high:
        raise schema_problem({key: [f"Must be an integer from 1 to {high} (docs/api.md §16)."]})
    return value


def suggestion_asked(body: dict[str, Any], max_ms: int) -> tuple[str, str, int | None, int | None]:
    """``/v1/suggest``'s own fields: the bot, the seed, and exactly one of iterations and budget_ms, within
    ``max_ms`` (``REFEREE_SUGGEST_MAX_MS``; the iterations in proportion)."""
    bot, seed = body["bot"], body.get("seed", "")
    if not isinstance(bot, str):
        raise schema_problem({"bot": ["Not a valid string."]})
    if not isinstance(seed, str) or len(seed) > MAX_SEED:
        raise schema_problem({"seed": [f"Must be a string of at most {MAX_SEED} characters."]})
    if ("budget_ms" in body) == ("iterations" in body):
        raise schema_problem({"_schema": ["Give exactly one of budget_ms and iterations."]})
    budget_ms = _bounded_int(body, "budget_ms", max_ms)
    iterations = _bounded_int(body, "iterations", max(1, bots.MAX_ITERATIONS * max_ms // bots.MAX_BUDGET_MS))
    if bot not in bots.BOTS:
        known = sorted(bots.BOTS)
        raise Problem("unknown-bot", "unknown_bot", f"No bot {bot[:40]!r}: one of {', '.join(known)}.", bots=known)
    return bot, seed, iterations, budget_ms


def game_answers(ref: Referee) -> dict[str, Handler]:  # noqa: C901 -- one nested handler per endpoint: a table, not a branching
    """The game endpoints' handlers by endpoint name (``apply``, ``legal_actions``...)."""
    catalog = ref.catalog
    codec = ref.codec
    limits = BodyLimits(ref.settings.max_body, ref.settings.chunked_body_timeout)
    dumps = orjson.dumps

    def named(violation: RuleViolation, state: Any, player: Any) -> RuleViolation:
        """The refusal, its detail to name players and cards from ``state`` as ``player`` sees them."""
        namers = names_for(catalog, state, player)
        if namers is not None:
            violation.params["_names"] = namers
        return violation

    def new_game(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        state, events = codec.deal(body)
        return 201, dumps(codec.close_new(state, events)), None

    def apply(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        opened = codec.open(body, ACT)
        action = body["action"]
        now = opened.now = codec.now(opened.state, acting=True)  # a clock's time (docs/api.md §15), or None
        try:
            state, events = engine.apply(catalog, opened.state, action, now)
        except RuleViolation as exc:
            recorded = codec.refused(opened, action, exc)
            if recorded is not None:
                return 200, dumps(recorded), None
            raise named(exc, opened.state, opened.player) from None
        return 200, dumps(codec.close(opened, action, state, events)), None

    def validate(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        opened = codec.open(body, ACT)
        violation = engine.validate(catalog, opened.state, body["action"], codec.now(opened.state, acting=False))
        if violation is None:
            return 200, b'{"legal":true,"violation":null}', None
        named(violation, opened.state, opened.player)
        lang = language(environ)
        return 200, dumps({"legal": False, "violation": violation_json(violation, lang)}), _lang(lang)

    def legal_actions(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        opened = codec.open(body, ASK)
        actions = engine.legal_actions(catalog, opened.state, opened.player, codec.now(opened.state, acting=False))
        if not body.get("labels", False):
            return 200, dumps({"actions": actions, **opened.renewed}), None
        lang = language(environ)
        return 200, dumps({"actions": labelled(catalog, opened.state, actions, lang), **opened.renewed}), _lang(lang)

    def name_refusal(exc: RuleViolation, actions: Any) -> None:
        """A replay's refusal: its players and cards named as they were when the action was refused (the
        position the replay stopped in, not a second replay)."""
        if isinstance(exc, ReplayError) and exc.state is not None:
            action = actions[exc.index]
            named(exc, exc.state, action.get("player") if isinstance(action, dict) else None)

    def at_line(exc: RuleViolation, record: records.Record, environ: Environ) -> Problem:
        """A record's refused move as the replay's 422, with the record's ``line`` besides its ``index``."""
        environ[VIOLATION_KEY] = (exc.rule, exc.code)
        lang = language(environ)
        problem = problem_for(exc, lang)
        if lang == "ja":
            problem.headers.append(("Content-Language", "ja"))
        index = getattr(exc, "index", None)
        if type(index) is int:
            problem.extra["line"] = record.line_of(index)
        return problem

    def replay(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        if "record" in body:
            return replay_record(environ, body)
        key, start = codec.open_replay(body)
        times = body.get("times")
        try:
            state, applied = engine.replay(catalog, body["actions"], **{key: start}, times=times)
        except RuleViolation as exc:
            name_refusal(exc, body["actions"])
            raise
        return 200, dumps({"state": codec.close_state(state), "applied": applied}), None

    def replay_record(environ: Environ, body: Body) -> Answer:
        envelope(body, ("record",))
        record = read_record(body["record"])
        game = record_game(record)
        key, start = codec.open_record(game, record.result is not None)  # private mode: a finished game's only
        try:  # a clocked record's times (docs/records.md) replay its charges
            state, applied = engine.replay(catalog, record.actions, **{key: start}, times=record.times)
        except RuleViolation as exc:
            name_refusal(exc, record.actions)
            raise at_line(exc, record, environ) from None
        try:
            record.check_result(state["result"])
        except records.RecordError as exc:
            raise bad_record(exc) from None
        return 200, dumps(codec.close_record(start, state, applied)), None

    def read_record_parts(environ: Environ) -> Answer:
        """``POST /v1/records/read``: a record's NewGame, actions, times and lines, read (not played)."""
        body = read_body(environ, limits)
        envelope(body, ("record",))
        record = read_record(body["record"])
        out = {
            "game": record_game(record),
            "actions": record.actions,
            "times": record.times,
            "lines": [move.line for move in record.moves],
            "result": record.result,
        }
        return 200, dumps(out), None

    def record_game(record: records.Record) -> Body:
        try:
            return record.new_game(catalog)
        except records.RecordError as exc:
            raise bad_record(exc) from None

    def write_record(environ: Environ) -> Answer:
        """``POST /v1/records``: the record of a game, whole or as one seat (or a spectator) may know it."""
        body = read_body(environ, limits)
        seat: Any = records.WHOLE
        if "player" in body:
            seat = None if body["player"] is None else player_field(body)
        written: dict[tuple[Any, int], str] = {}
        if "game_id" in body:  # private mode with a ledger: the game's moves recovered from its tokens
            found = codec.ledger_game(body)
            seat, key, start, actions, times = found.seat, "state", found.dealt, found.actions, found.times
            written = found.texts
            if (seat, len(actions)) in written:  # the worker wrote this one already
                return 200, written[seat, len(actions)].encode("utf-8"), None
        elif "record" in body:
            envelope(body, ("record",), ("player",))
            record = read_record(body["record"])
            key, start, actions, times = "game", record_game(record), record.actions, record.times
        else:
            envelope(body, ("actions",), ("game", "state", "times", "player", "seats"))
            key, start = codec.open_replay({k: v for k, v in body.items() if k not in ("times", "player")})
            actions, times = body["actions"], body.get("times")
        dealt = None
        if key == "state":  # a record starts at the deal: the NewGame that dealt it, else a seat's record of it
            dealt = engine.check_state(catalog, start)
            game = records.deal_game(catalog, dealt)
            if game is None and (seat == records.WHOLE or not records.at_deal(dealt)):
                raise Problem(
                    "record-needs-game",
                    "record_needs_game",
                    "A record starts at the deal: send the game (its NewGame), or the state of its deal, and every "
                    "action since (a state dealt from decks not in card-id order has only a seat's record).",
                )
            key, start = ("game", game) if game is not None else (key, start)
        try:
            if key == "game":
                text = records.record_text(catalog, start, actions, times=times, seat=seat)
            else:
                text = records.record_text(catalog, None, actions, times=times, seat=seat, dealt=dealt)
            if seat == records.WHOLE:
                codec.may_write_whole(records.read(text))
            written[seat, len(actions)] = text
        except RuleViolation as exc:
            name_refusal(exc, actions)
            if "record" in body:
                raise at_line(exc, record, environ) from None
            raise
        return 200, text.encode("utf-8"), None

    def view(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        opened = codec.open(body, LOOK)
        return 200, dumps({"view": engine.view(catalog, opened.state, opened.player), **opened.renewed}), None

    def suggest(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        opened = codec.open(body, SUGGEST)
        bot, seed, iterations, budget_ms = suggestion_asked(body, ref.settings.suggest_max_ms)
        session = engine.Session.from_state(catalog, opened.state)
        player = opened.player
        assert player is not None  # a seat's player or the body's: a spectator's key cannot ask (codec)
        try:
            bots.may_suggest(session, player)  # its refusals before the work is sent away
        except RuleViolation as exc:
            raise named(exc, session.state, player) from None
        deadline = None
        if budget_ms is not None:  # counted from the request's arrival (docs/api.md §16); the bot keeps to it
            deadline = environ.get(T0_KEY, time.perf_counter()) + budget_ms * BUDGET_SHARE / 1000
        try:
            action, cpu = ref.heavy.run(
                "a suggestion",
                jobs.suggestion,
                session.state,
                player,
                bot,
                seed,
                iterations,
                deadline,
            )
        except HeavyTimeout:
            raise heavy_timeout("The suggestion") from None
        metrics.record_suggest(bot, cpu)
        lang = language(environ)
        text = label(session.board, action, lang)
        return 200, dumps({"action": action, "label": text, **opened.renewed}), _lang(lang)

    def next_game(environ: Environ) -> Answer:
        state, events = codec.deal_next(read_body(environ, limits))
        return 201, dumps(codec.close_new(state, events, next_game=True)), None

    def reveal(environ: Environ) -> Answer:
        return 200, dumps(codec.reveal(read_body(environ, limits))), None

    def latest(environ: Environ) -> Answer:
        return 200, dumps(codec.latest(read_body(environ, limits))), None

    def validate_deck(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        envelope(body, ("deck",), ("format",))
        deck = read_deck(catalog, body["deck"])
        played = None if body.get("format") is None else catalog.format_revision(body["format"])
        violations = deck_violations(catalog, deck, played)
        lang = language(environ)
        out = {
            "legal": not violations,
            "violations": [violation_json(v, lang) for v in violations],
            "deck": canonical_forms(catalog, deck.counts),
        }
        return 200, dumps(out), _lang(lang) if violations else None

    def event_document(environ: Environ) -> Any:
        """The body's event (docs/api.md §17): read by :mod:`referee.events`, which refuses what is not one."""
        body = read_body(environ, limits)
        envelope(body, ("event",))
        return body["event"]

    # Each event endpoint is one pure call (a document in, a JSON-able answer out): heavy work that can run
    # in another process as it is (docs/api.md §16, "Heavy work is kept apart").
    def pair_event(environ: Environ) -> Answer:
        return 200, dumps(events.pair(event_document(environ))), None

    def event_standings(environ: Environ) -> Answer:
        return 200, dumps(events.standings(event_document(environ))), None

    def check_event(environ: Environ) -> Answer:
        return 200, dumps(events.check(event_document(environ))), None

    return {
        "new_game": new_game,
        "next_game": next_game,
        "apply": apply,
        "validate": validate,
        "legal_actions": legal_actions,
        "replay": replay,
        "records": write_record,
        "read_record": read_record_parts,
        "view": view,
        "suggest": suggest,
        "reveal": reveal,
        "latest": latest,
        "validate_deck": validate_deck,
        "pair_event": pair_event,
        "event_standings": event_standings,
        "check_event": check_event,
    }
