"""The service's shortcuts, in the engine's one kind of registry: each beside the careful path it shadows.

The rule is the engine's (``referee/engine/shortcuts.py``, docs/architecture.md):
a shortcut stays only while it wins at least 10% of a public endpoint's measured
time. ``benchmarks/service_shortcuts.py`` measures each one turned off (the app
built and called with its careful twin in its place; docs/performance.md has
the figures). One property test (``tests/test_service_shortcuts.py``) sends the
same requests, and real positions, tokens and seats bent at random, to apps
built with each shortcut and without it, in every mode, and requires the same
answers: status, headers, body bytes, log line and metric samples.
"""

from __future__ import annotations

from typing import Any

from referee.engine.shortcuts import Shortcut
from referee.private import tokens
from referee.service import hot_path


def _through_flask(app: Any, ref: Any) -> Any:
    """``hot_path.lean`` turned off: the app's WSGI app stays Flask's, every request goes its way."""
    return app.wsgi_app


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut(
        name="hot_path.lean: the hot endpoints' POSTs answered from WSGI, in front of Flask",
        shadows="Flask's path: routing, the request context, before/after hooks and the Response object",
        gain="/v1/validate +107%, /v1/view +99%, /v1/apply +94%, /v1/legal-actions +77% without it "
        "(private mode: +91%, +85%, +75%, +71%)",
        off=((hot_path, "lean", _through_flask),),
    ),
    Shortcut(
        name="tokens.unb64url: a token's base64url read by pybase64, with the checks it leaves out",
        shadows="tokens.unb64url_careful: binascii's strict reading of the translated text",
        gain="private /v1/validate +15%, /v1/apply +14%, /v1/view +13%, /v1/legal-actions +12% without it",
        off=((tokens, "unb64url", tokens.unb64url_careful),),
    ),
)
