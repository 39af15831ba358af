"""What the game endpoints do, with no web framework: each handler is a plain function of the app's
:class:`~referee.service.context.Referee` and the WSGI environ that returns an :data:`Answer`.

The declaration of each endpoint (:mod:`referee.service.endpoints`) names its
handler here; both ways into them are derived from it: the Flask views of
:mod:`referee.service.routes` (which carry the OpenAPI documentation) and the
lean path of the hot endpoints (:mod:`referee.service.hot_path`). A test calls
a handler alone with a ``Referee`` and an environ. An error is raised
(:class:`~referee.service.problems.Problem` or the engine's) and answered by
the one error mapping, :func:`referee.service.hooks.error_answer`.

Each endpoint is written once for every mode: the app's codec
(:mod:`referee.service.codecs`: plain, sealed or private, chosen at start-up)
opens the body's state and seat and closes the next state into the answer; a
move's protocol (the ledger's retries and refusals) is :mod:`referee.service.moves`'.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson

from referee import engine, events
from referee.bots import suggest as bots
from referee.engine import ReplayError, RuleViolation, records
from referee.engine.decklists import canonical_forms, read_deck
from referee.engine.labels import label, labelled
from referee.engine.setup import deck_violations
from referee.service import jobs, metrics
from referee.service.codecs import ACT, ASK, LOOK, SUGGEST
from referee.service.context import Referee
from referee.service.heavy import HeavyTimeout, heavy_timeout
from referee.service.moves import named, play
from referee.service.problems import Problem, problem_for, schema_problem, violation_json
from referee.service.reading import T0_KEY, VIOLATION_KEY, envelope, language, player_field, read_body
from referee_schemas.bodies import MAX_SEED, ONE_BUDGET, one_budget

# status, JSON body, and "ja" when its human text is Japanese (Content-Language), else None
Answer = tuple[int, bytes, "str | None"]
Environ = dict[str, Any]
Body = dict[str, Any]
# (ref, environ, **the path's parameters) -> Answer
Handler = Callable[..., Answer]


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
    if not one_budget(body):
        raise schema_problem({"_schema": [ONE_BUDGET]})
    budget_ms = _bounded_int(body, "budget_ms", max_ms)
    iterations = _bounded_int(body, "iterations", max(1, bots.MAX_ITERATIONS * max_ms // bots.MAX_BUDGET_MS))
    if bot not in bots.BOTS:
        known = sorted(bots.BOTS)
        raise Problem("unknown-bot", "unknown_bot", f"No bot {bot[:40]!r}: one of {', '.join(known)}.", bots=known)
    return bot, seed, iterations, budget_ms


def new_game(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/games``: a new game dealt."""
    state, events = ref.codec.deal(read_body(environ, ref.limits))
    return 201, orjson.dumps(ref.codec.close_new(state, events)), None


def next_game(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/matches/next``: a match's next game dealt from the last one's final state."""
    asked = ref.codec.open_next(read_body(environ, ref.limits))
    last = engine.check_state(ref.catalog, asked.state)
    game, match = engine.next_game(last, asked.first, asked.chooser)  # RULES 14.1-14.3
    state, events = ref.codec.deal_next(last, asked, game, match)
    return 201, orjson.dumps(ref.codec.close_new(state, events, next_game=True)), None


def apply(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/apply``: one move made (and, in private mode, kept: :func:`referee.service.moves.play`)."""
    body = read_body(environ, ref.limits)
    opened = ref.codec.open(body, ACT)
    return 200, orjson.dumps(play(ref, opened, body["action"])), None


def validate(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/validate``: whether a move is legal now, never a 422."""
    body = read_body(environ, ref.limits)
    codec = ref.codec
    opened = codec.open(body, ACT)
    violation = engine.validate(ref.catalog, opened.state, body["action"], codec.now(opened.state, acting=False))
    if violation is None:
        return 200, b'{"legal":true,"violation":null}', None
    named(ref.catalog, violation, opened.state, opened.player)
    lang = language(environ)
    return 200, orjson.dumps({"legal": False, "violation": violation_json(violation, lang)}), _lang(lang)


def legal_actions(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/legal-actions``: every legal action now, labelled if asked."""
    body = read_body(environ, ref.limits)
    codec, catalog = ref.codec, ref.catalog
    opened = codec.open(body, ASK)
    actions = engine.legal_actions(catalog, opened.state, opened.player, codec.now(opened.state, acting=False))
    if not body.get("labels", False):
        return 200, orjson.dumps({"actions": actions, **opened.renewed}), None
    lang = language(environ)
    listed = labelled(catalog, opened.state, actions, lang)
    return 200, orjson.dumps({"actions": listed, **opened.renewed}), _lang(lang)


def view(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/view``: what one player (or a spectator) may see."""
    body = read_body(environ, ref.limits)
    opened = ref.codec.open(body, LOOK)
    return 200, orjson.dumps({"view": engine.view(ref.catalog, opened.state, opened.player), **opened.renewed}), None


def name_refusal(catalog: engine.Catalog, exc: RuleViolation, actions: Any) -> None:
    """A replay's refusal: its players and cards named as they were when the action was refused (the
    position the replay stopped in, not a second replay)."""
    if isinstance(exc, ReplayError) and exc.state is not None:
        action = actions[exc.index]
        named(catalog, exc, exc.state, action.get("player") if isinstance(action, dict) else None)


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


def replay(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/replay``: actions applied in order, from a NewGame, a state or a record."""
    body = read_body(environ, ref.limits)
    if "record" in body:
        return replay_record(ref, environ, body)
    key, start = ref.codec.open_replay(body)
    times = body.get("times")
    try:
        state, applied = engine.replay(ref.catalog, body["actions"], **{key: start}, times=times)
    except RuleViolation as exc:
        name_refusal(ref.catalog, exc, body["actions"])
        raise
    return 200, orjson.dumps({"state": ref.codec.close_state(state), "applied": applied}), None


def replay_record(ref: Referee, environ: Environ, body: Body) -> Answer:
    """``POST /v1/replay`` of a record: its moves replayed (with a clocked record's times) and its result checked."""
    envelope(body, ("record",))
    record = read_record(body["record"])
    game = record_game(ref.catalog, record)
    key, start = ref.codec.open_record(game, record.result is not None)  # private mode: a finished game's only
    try:  # a clocked record's times (docs/records.md) replay its charges
        state, applied = engine.replay(ref.catalog, record.actions, **{key: start}, times=record.times)
    except RuleViolation as exc:
        name_refusal(ref.catalog, exc, record.actions)
        raise at_line(exc, record, environ) from None
    try:
        record.check_result(state["result"])
    except records.RecordError as exc:
        raise bad_record(exc) from None
    return 200, orjson.dumps(ref.codec.close_record(start, state, applied)), None


def read_record_parts(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/records/read``: a record's NewGame, actions, times and lines, read (not played)."""
    body = read_body(environ, ref.limits)
    envelope(body, ("record",))
    record = read_record(body["record"])
    out = {
        "game": record_game(ref.catalog, record),
        "actions": record.actions,
        "times": record.times,
        "lines": [move.line for move in record.moves],
        "result": record.result,
    }
    return 200, orjson.dumps(out), None


def record_game(catalog: engine.Catalog, record: records.Record) -> Body:
    try:
        return record.new_game(catalog)
    except records.RecordError as exc:
        raise bad_record(exc) from None


def write_record(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/records``: the record of a game, whole or as one seat (or a spectator) may know it."""
    catalog, codec = ref.catalog, ref.codec
    body = read_body(environ, ref.limits)
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
        key, start, actions, times = "game", record_game(catalog, record), record.actions, record.times
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
        name_refusal(catalog, exc, actions)
        if "record" in body:
            raise at_line(exc, record, environ) from None
        raise
    return 200, text.encode("utf-8"), None


def suggest(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/suggest``: a bot's move for one player, from that player's view."""
    body = read_body(environ, ref.limits)
    opened = ref.codec.open(body, SUGGEST)
    bot, seed, iterations, budget_ms = suggestion_asked(body, ref.settings.suggest_max_ms)
    session = engine.Session.from_state(ref.catalog, opened.state)
    player = opened.player
    assert player is not None  # a seat's player or the body's: a spectator's key cannot ask (codec)
    try:
        bots.may_suggest(session, player)  # its refusals before the work is sent away
    except RuleViolation as exc:
        raise named(ref.catalog, exc, session.state, player) from None
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
    return 200, orjson.dumps({"action": action, "label": text, **opened.renewed}), _lang(lang)


def reveal(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/reveal``: the whole state of a finished private game."""
    state = engine.check_state(ref.catalog, ref.codec.open_reveal(read_body(environ, ref.limits)))
    return 200, orjson.dumps(ref.codec.reveal(state)), None


def latest(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/latest``: a private game's latest token, from the ledger."""
    return 200, orjson.dumps(ref.codec.latest(read_body(environ, ref.limits))), None


def validate_deck(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/decks/validate``: every problem of one deck, and its canonical forms."""
    catalog = ref.catalog
    body = read_body(environ, ref.limits)
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
    return 200, orjson.dumps(out), _lang(lang) if violations else None


# -- events (docs/api.md §17): each one pure call of referee.events, run apart as heavy work (§16) -----------


def event_document(ref: Referee, environ: Environ) -> Any:
    """The body's event (docs/api.md §17): read by :mod:`referee.events`, which refuses what is not one."""
    body = read_body(environ, ref.limits)
    envelope(body, ("event",))
    return body["event"]


def asked_of_event(question: Callable[[Any], Any], ref: Referee, environ: Environ) -> Answer:
    """An event endpoint: one pure call (a document in, a JSON-able answer out), heavy work run apart
    (docs/api.md §16: an event of 4,096 players is a second of CPU)."""
    document = event_document(ref, environ)
    try:
        answer, _ = ref.heavy.run("an event's question", jobs.event, question, document)
    except HeavyTimeout:
        raise heavy_timeout("The event's question") from None
    return 200, orjson.dumps(answer), None


def pair_event(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/events/pair``: the event with its next round."""
    return asked_of_event(events.pair, ref, environ)


def event_standings(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/events/standings``: the standings, the ratings, the winner."""
    return asked_of_event(events.standings, ref, environ)


def check_event(ref: Referee, environ: Environ) -> Answer:
    """``POST /v1/events/check``: every round against RULES 15."""
    return asked_of_event(events.check, ref, environ)


# -- the catalog's endpoints: bodies made once at start-up (referee.service.app) ---------------------


def formats(ref: Referee, environ: Environ) -> Answer:
    """``GET /v1/formats``."""
    return 200, ref.formats_body, None


def cards(ref: Referee, environ: Environ) -> Answer:
    """``GET /v1/cards``."""
    return 200, ref.cards_body, None


def card(ref: Referee, environ: Environ, id: str) -> Answer:
    """``GET /v1/cards/<id>``: one card, or 404 ``card_not_found``."""
    data = ref.card_bodies.get(id)
    if data is None:
        raise Problem("not-found", "card_not_found", f"There is no card {id!r} in catalog {ref.catalog.id}.")
    return 200, data, None


def rules(ref: Referee, environ: Environ) -> Answer:
    """``GET /v1/rules``."""
    return 200, ref.rules_body, None
