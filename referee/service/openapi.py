"""The OpenAPI document, generated from the marshmallow schemas (flask-smorest /
apispec), and the offline ``/docs`` page (Swagger UI from the
``swagger-ui-bundle`` package: no CDN).

``openapi.yaml`` at the top of the repository is :func:`render_yaml` of the
app; ``make openapi`` rewrites it and ``tests/test_openapi.py`` fails when it
drifts.
"""

from __future__ import annotations

from typing import Any

import yaml
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import resolve_schema_instance
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from flask_smorest import Api
from marshmallow import EXCLUDE, INCLUDE

from referee import __version__
from referee.engine.decklists import LIST_MAX_CHARS
from referee.engine.facts import DECK_MAX_ENTRIES
from referee_schemas import ProblemSchema
from referee_schemas.fields import Deck, FormatChoice, Grammars, OneOfSchemas

OPENAPI_VERSION = "3.0.3"

DESCRIPTION = """\
A stateless rules referee for the card game Ace File '99.

The contract is `docs/api.md`; the rule ids are those of `docs/rules.md` (served at
`GET /v1/rules`). Every error is `application/problem+json` (RFC 9457) with a
stable `code`; a broken rule is a 422 naming its `rule`. Send
`Accept-Language: ja` for Japanese violation details.

**States.** The state is the whole game: the service keeps nothing between
requests, so any replica answers any request. Send a state back exactly as you
received it. When the service runs with `REFEREE_SECRET`, every state it
returns carries a `seal` and every endpoint that takes a state refuses (403)
one whose seal is missing or wrong.

**Private play** (docs/api.md §10). A service started with `REFEREE_STATE_KEY`
keeps the game's secrets: every state is an opaque token (`afs1.…`), each
player acts and sees through a seat of their own (`afk1.…`, from
`POST /v1/games`), answers hold only what that seat's player may know, and the
referee draws the seed and commits to it (`commitment`), revealing the whole
game once it is over (`POST /v1/reveal`, with both seats). Each request body
and answer below is then its private form (the second of each `oneOf`); each
event type says what each side sees.

**Limits.** Request bodies are limited to `REFEREE_MAX_BODY` (default 1 MiB;
413 over it) and must be sent as `Content-Type: application/json` without
`Content-Encoding` (415 otherwise: `unsupported_media_type`, `encoded_body`),
nested at most 254 levels deep (400 `too_deeply_nested`), with at most one array or object
per 16 bytes of the limit (400 `too_many_containers`). A chunked body
(`Transfer-Encoding: chunked`) must be whole within
`REFEREE_CHUNKED_BODY_TIMEOUT` (default 1 s; 408 `body_timeout` otherwise).

**Request ids.** Send `X-Request-ID` (1-128 of `A-Z a-z 0-9 . _ : -`) or one
is made; it is echoed in the response header, in the log line and as the
problem's `instance`.
"""

# An event after its first round (docs/api.md §17): "Try it out" on /v1/events/pair pairs round 2.
EVENT_EXAMPLE: dict[str, Any] = {
    "event": {
        "name": "Friday night",
        "seed": "friday-1",
        "best_of": 3,
        "cut": 0,
        "players": [{"id": "aoi"}, {"id": "ren"}, {"id": "mio"}, {"id": "kai"}],
        "rounds": [
            {
                "pairings": [
                    {"table": 1, "players": ["aoi", "ren"], "result": {"games": [0, 2]}},
                    {"table": 2, "players": ["mio", "kai"], "result": {"games": [1, 2]}},
                ]
            }
        ],
    }
}

# A legal, seeded NewGame (also examples/http/new-game.json, the README's walkthrough):
# "Try it out" on POST /v1/games in /docs deals a real game.
NEW_GAME_EXAMPLE: dict[str, Any] = {
    "seed": "readme-1",
    "first_player": 0,
    "players": ["Aoi", "Ren"],
    "decks": [
        {
            "AF-042": 3,
            "AF-043": 3,
            "AF-045": 3,
            "AF-040": 3,
            "AF-002": 3,
            "AF-004": 3,
            "AF-006": 3,
            "AF-001": 1,
            "AF-020": 3,
            "AF-023": 3,
            "AF-060": 3,
            "AF-063": 3,
            "AF-070": 3,
            "AF-073": 3,
        },
        {
            "AF-044": 3,
            "AF-046": 3,
            "AF-052": 3,
            "AF-047": 3,
            "AF-009": 3,
            "AF-012": 3,
            "AF-007": 3,
            "AF-003": 1,
            "AF-022": 3,
            "AF-025": 3,
            "AF-061": 3,
            "AF-068": 3,
            "AF-071": 3,
            "AF-075": 3,
        },
    ],
}

_APPLY_EXAMPLE: dict[str, Any] = {}


def apply_example() -> dict[str, Any]:
    """``/v1/apply``'s example in /docs: the README's game just dealt, and player 0 keeps.

    Dealt with the built-in catalog, whatever the service runs with, so the
    committed openapi.yaml never depends on configuration; "Try it out" applies
    on a service with the built-in catalog (the default).
    """
    if not _APPLY_EXAMPLE:
        from referee.engine import Catalog, new_game

        state, _ = new_game(Catalog.builtin(), NEW_GAME_EXAMPLE)
        _APPLY_EXAMPLE.update(state=state, action={"type": "keep", "player": 0})
    return _APPLY_EXAMPLE


# name: (description, problem codes) of the shared error responses.
ERROR_RESPONSES = {
    "BadRequest": (
        "The body is not JSON (`invalid_json`), not of the schema (`invalid_schema`, with "
        "`errors`: field path to messages), or the state is not consistent (RULES 13.1; "
        "`code` names what, e.g. `card_not_conserved`, `catalog_mismatch`).",
        400,
    ),
    "SealRefused": (
        "Sealing is on and the state's seal is missing (`seal_missing`) or wrong "
        "(`seal_mismatch`) (docs/api.md §4); or, in private mode (docs/api.md §10), the state token does "
        "not open (`bad_token`), a plain State was sent (`private_mode`), the seat is not of "
        "this game (`bad_seat`) or not of the player the request names (`not_your_seat`).",
        403,
    ),
    "PrivateRefused": (
        "Private mode: the token does not open (`bad_token`), a plain State was sent "
        "(`private_mode`), a seat is not of this game (`bad_seat`) or both are one player's "
        "(`not_your_seat`), or the game is not over (`game_not_over`).",
        403,
    ),
    "NotFound": ("No such path, or no such card (`not_found`, `card_not_found`).", 404),
    "PayloadTooLarge": ("The body is over `REFEREE_MAX_BODY` (`payload_too_large`).", 413),
    "UnsupportedMediaType": ("The body's `Content-Type` is not `application/json` (`unsupported_media_type`).", 415),
    "RuleViolation": (
        "Well formed, but the action breaks a rule: `rule` is the RULES.md id of the first "
        "rule broken (RULES 13.3), `code` its stable name, `detail` human text.",
        422,
    ),
    "StaleState": (
        "With a ledger (docs/api.md §11): the token is not the game's latest (`stale_state`, with "
        "`latest_seq`); nothing was applied.",
        409,
    ),
    "NextGameDealt": (
        "With a ledger: this match's next game was dealt already (`next_game_dealt`, with its `game_id`); "
        "nothing was dealt again. `POST /v1/latest` on the game before answers it as `next`.",
        409,
    ),
    "NotRecoverable": (
        "With a ledger, a record from a game id: the ledger holds the game from a later seq than its deal "
        "(it adopted it), or a move could not be found among the candidates (`not_recoverable`).",
        409,
    ),
    "LedgerUnavailable": (
        "With a ledger: it cannot be reached now (`ledger_unavailable`, with `Retry-After`); nothing was applied. "
        "On `/v1/apply`, a move sent to the ledger that did not answer in time is `ledger_outcome_unknown` "
        "(with `Retry-After`): it may be recorded or not; send the same move again, or ask `/v1/latest`.",
        503,
    ),
    "ServiceUnavailable": (
        "The replica is shutting down (`shutting_down`), or its ledger cannot be reached (`ledger_unavailable`).",
        503,
    ),
    "Busy": (
        "Heavy work (docs/api.md §16): the replica's share for it is taken, so this request could not start "
        "now (`busy`, with `Retry-After`); nothing was done. A record's recovery longer than its share is "
        "`busy` too, with its progress kept: asking again goes on. Rule checks are never refused this way. "
        "A heavy job that ran past its time is ended: 503 `heavy_timeout`.",
        429,
    ),
    "HeavyTimeout": (
        "A heavy job ran past its time (`heavy_timeout`, with `Retry-After`: "
        "`REFEREE_HEAVY_MAX_SECONDS`) and was ended; nothing was changed.",
        503,
    ),
    "Error": ("Any other error (e.g. 405 with `Allow`, 500), as problem details.", None),
}


class _Converter(OpenAPIConverter):
    """Documents ``additionalProperties`` even for schemas with a description."""

    def schema2jsonschema(self, schema: Any) -> dict[str, Any]:
        out: dict[str, Any] = super().schema2jsonschema(schema)  # type: ignore[no-untyped-call]
        instance = resolve_schema_instance(schema)
        if "additionalProperties" not in out and instance.unknown != EXCLUDE:
            out["additionalProperties"] = instance.unknown == INCLUDE
        return out

    def field2nullable(self, field: Any, ret: dict[str, Any]) -> dict[str, Any]:
        """``null`` or the referenced schema, without apispec's catch-all ``{type: object}``."""
        if field.allow_none and "$ref" in ret:
            return {"nullable": True, "allOf": [{"$ref": ret.pop("$ref")}]}
        return super().field2nullable(field, ret)


class _Plugin(MarshmallowPlugin):
    Converter = _Converter


def _custom_fields(self: OpenAPIConverter, field: Any, ret: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """OpenAPI for the schemas' own fields: tagged unions, registry grammars (one named component each) and decks."""
    if isinstance(field, Grammars):
        if field.component not in self.spec.components.schemas:
            self.spec.components.schema(
                field.component, {"type": "object", "description": field.description, "oneOf": field.grammars()}
            )
        return self.spec.components.get_ref("schema", field.component)
    if isinstance(field, OneOfSchemas):
        refs = {kind: self.resolve_nested_schema(schema) for kind, schema in field.choices.items()}  # type: ignore[no-untyped-call]
        return {
            "oneOf": list(refs.values()),
            "discriminator": {
                "propertyName": field.discriminator,
                "mapping": {kind: ref["$ref"] for kind, ref in refs.items()},
            },
        }
    if isinstance(field, Deck):
        return {
            "oneOf": [
                {
                    "type": "array",
                    "items": {"type": "string"},
                    "maxItems": DECK_MAX_ENTRIES,
                    "description": "Catalog card ids, top of the file first (40 for a legal deck).",
                },
                {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 0},
                    "maxProperties": DECK_MAX_ENTRIES,
                    "description": "Counts by catalog card id.",
                },
                {
                    "type": "string",
                    "maxLength": LIST_MAX_CHARS,
                    "description": "A deck list (`3 消えた上履き` a line) or a deck code (`afd1.…`), docs/api.md §13.",
                },
            ]
        }
    if isinstance(field, FormatChoice):
        return {
            "oneOf": [
                {"type": "string", "minLength": 1, "description": "A format id: its latest revision."},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["id"],
                    "properties": {
                        "id": {"type": "string", "minLength": 1},
                        "date": {"type": "string", "format": "date", "description": "The revision in force that day."},
                    },
                },
            ],
            "nullable": True,
        }
    return {}


class _Api(Api):
    """flask-smorest's Api, with problem details as its default error response."""

    DEFAULT_ERROR_RESPONSE_NAME = "Error"
    ERROR_SCHEMA = ProblemSchema


def make_api(app: Any) -> Api:
    """The flask-smorest Api of ``app``, with the shared error responses registered."""
    app.config.update(
        API_TITLE="Ace File '99 referee",
        API_VERSION=__version__,  # the package's version (one source: pyproject.toml)
        OPENAPI_VERSION=OPENAPI_VERSION,
    )
    api = _Api(
        app,
        spec_kwargs={
            "marshmallow_plugin": _Plugin(),
            "info": {
                "description": DESCRIPTION,
                "license": {"name": "MIT"},
            },
        },
    )
    api.ma_plugin.converter.add_attribute_function(_custom_fields)
    for name, (text, _status) in ERROR_RESPONSES.items():
        api.spec.components.response(
            name,
            {
                "description": text,
                "content": {"application/problem+json": {"schema": ProblemSchema}},
            },
        )
    return api


_TOP_ORDER = ("openapi", "info", "tags", "paths", "components")
_UNUSED_SCHEMAS = ("Error", "PaginationMetadata")  # flask-smorest's own, unused here


def spec_dict(api: Api) -> dict[str, Any]:
    """The OpenAPI document as a dict, top-level keys in reading order."""
    raw = api.spec.to_dict()
    schemas = raw.get("components", {}).get("schemas", {})
    for name in _UNUSED_SCHEMAS:
        schemas.pop(name, None)
    return {**{k: raw[k] for k in _TOP_ORDER if k in raw}, **{k: v for k, v in raw.items() if k not in _TOP_ORDER}}


class _Dumper(yaml.SafeDumper):
    """Block style; multi-line strings as literal blocks, so the file reads well."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def render_yaml(api: Api) -> str:
    """The OpenAPI document as YAML: stable key order, UTF-8, one document."""
    return yaml.dump(spec_dict(api), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


# -- /docs -----------------------------------------------------------------------

DOCS_ASSETS = (
    "swagger-ui.css",
    "index.css",
    "swagger-ui-bundle.js",
    "swagger-ui-standalone-preset.js",
    "favicon-32x32.png",
    "favicon-16x16.png",
)

DOCS_HTML = """\
<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Ace File '99 referee — API</title>
    <link rel="stylesheet" type="text/css" href="/docs/static/swagger-ui.css">
    <link rel="stylesheet" type="text/css" href="/docs/static/index.css">
    <link rel="icon" type="image/png" href="/docs/static/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/static/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="/docs/static/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="/docs/init.js" charset="UTF-8"></script>
  </body>
</html>
"""

DOCS_INIT_JS = """\
window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.yaml",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout"
  });
};
"""


def docs_assets_dir() -> str | None:
    """The Swagger UI files shipped by ``swagger-ui-bundle``, or None if it is missing."""
    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:  # pragma: no cover - it is a dependency
        return None
    return str(swagger_ui_path)
