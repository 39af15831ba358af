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

from referee import engine
from referee.bots import suggest as bots
from referee.engine.errors import RuleViolation
from referee.engine.labels import label, labelled, names_for
from referee.service import metrics
from referee.service.codecs import ACT, ASK, LOOK, SUGGEST
from referee.service.context import Referee
from referee.service.problems import Problem, schema_problem, violation_json
from referee.service.reading import T0_KEY, BodyLimits, envelope, language, read_body

# status, JSON body, and "ja" when its human text is Japanese (Content-Language), else None
Answer = tuple[int, bytes, "str | None"]
Environ = dict[str, Any]
Handler = Callable[[Environ], Answer]


def _lang(lang: str) -> str | None:
    return "ja" if lang == "ja" else None


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


def game_answers(ref: Referee) -> dict[str, Handler]:
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
        try:
            state, events = engine.apply(catalog, opened.state, action)
        except RuleViolation as exc:
            codec.refused(opened, action)
            raise named(exc, opened.state, opened.player) from None
        return 200, dumps(codec.close(opened, action, state, events)), None

    def validate(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        opened = codec.open(body, ACT)
        violation = engine.validate(catalog, opened.state, body["action"])
        if violation is None:
            return 200, b'{"legal":true,"violation":null}', None
        named(violation, opened.state, opened.player)
        lang = language(environ)
        return 200, dumps({"legal": False, "violation": violation_json(violation, lang)}), _lang(lang)

    def legal_actions(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        opened = codec.open(body, ASK)
        actions = engine.legal_actions(catalog, opened.state, opened.player)
        if not body.get("labels", False):
            return 200, dumps({"actions": actions, **opened.renewed}), None
        lang = language(environ)
        return 200, dumps({"actions": labelled(catalog, opened.state, actions, lang), **opened.renewed}), _lang(lang)

    def replay(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        key, start = codec.open_replay(body)
        try:
            state, applied = engine.replay(catalog, body["actions"], **{key: start})
        except RuleViolation as exc:
            index = getattr(exc, "index", None)
            if type(index) is int:  # name the players and cards as they were when the action was refused
                at, _ = engine.replay(catalog, body["actions"][:index], **{key: start})
                action = body["actions"][index]
                named(exc, at, action.get("player") if isinstance(action, dict) else None)
            raise
        return 200, dumps({"state": codec.close_state(state), "applied": applied}), None

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
        deadline = None
        if budget_ms is not None:
            deadline = environ.get(T0_KEY, time.perf_counter()) + budget_ms * BUDGET_SHARE / 1000
        cpu = time.process_time()
        try:
            action = bots.suggest(catalog, session, player, bot, seed=seed, iterations=iterations, deadline=deadline)
        except RuleViolation as exc:
            raise named(exc, session.state, player) from None
        metrics.record_suggest(bot, time.process_time() - cpu)
        lang = language(environ)
        text = label(session.board, action, lang)  # type: ignore[arg-type]
        return 200, dumps({"action": action, "label": text, **opened.renewed}), _lang(lang)

    def reveal(environ: Environ) -> Answer:
        return 200, dumps(codec.reveal(read_body(environ, limits))), None

    def latest(environ: Environ) -> Answer:
        return 200, dumps(codec.latest(read_body(environ, limits))), None

    def validate_deck(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        envelope(body, ("deck",))
        violations = engine.validate_deck(catalog, body["deck"])
        lang = language(environ)
        out = dumps({"legal": not violations, "violations": [violation_json(v, lang) for v in violations]})
        return 200, out, _lang(lang) if violations else None

    return {
        "new_game": new_game,
        "apply": apply,
        "validate": validate,
        "legal_actions": legal_actions,
        "replay": replay,
        "view": view,
        "suggest": suggest,
        "reveal": reveal,
        "latest": latest,
        "validate_deck": validate_deck,
    }
