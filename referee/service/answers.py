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

from collections.abc import Callable
from typing import Any

import orjson

from referee import engine
from referee.engine.errors import ReplayError, RuleViolation
from referee.engine.labels import labelled, names_for
from referee.service.codecs import ACT, ASK, LOOK
from referee.service.context import Referee
from referee.service.problems import violation_json
from referee.service.reading import BodyLimits, envelope, language, read_body

# status, JSON body, and "ja" when its human text is Japanese (Content-Language), else None
Answer = tuple[int, bytes, "str | None"]
Environ = dict[str, Any]
Handler = Callable[[Environ], Answer]


def _lang(lang: str) -> str | None:
    return "ja" if lang == "ja" else None


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
        except ReplayError as exc:  # name the players and cards as they were when the action was refused
            action = body["actions"][exc.index]
            named(exc, exc.state, action.get("player") if isinstance(action, dict) else None)
            raise
        return 200, dumps({"state": codec.close_state(state), "applied": applied}), None

    def view(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        opened = codec.open(body, LOOK)
        return 200, dumps({"view": engine.view(catalog, opened.state, opened.player), **opened.renewed}), None

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
        "reveal": reveal,
        "latest": latest,
        "validate_deck": validate_deck,
    }
