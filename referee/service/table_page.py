"""The table page: ``GET /table`` (and ``/`` redirecting to it), a browser client of the API.

Plain HTML, CSS and ES modules shipped in the package (``referee/service/table/``),
served as they are: no CDN, no bundler, no request leaving the referee's origin.
The page plays only through the public API (``/v1/...``); the one thing served
here besides files is ``/table/decks.json``, a few named legal decks of the
catalog in use to deal with. One page serves everyone (hot-seat, a private seat, a
spectator, the replay viewer): the links of earlier releases, ``/table/remote.html#...``
and ``/table/watch.html#...``, are answered with it too (the fragment says which game).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from flask import Flask, Response, redirect, send_from_directory
from werkzeug.wrappers import Response as WerkzeugResponse

from referee import engine
from referee.service.context import Referee
from referee.service.openapi import NEW_GAME_EXAMPLE
from referee.service.problems import Problem

TABLE_DIR = Path(__file__).with_name("table")
SERVED_SUFFIXES = (".html", ".js", ".css", ".svg")
EARLIER_PAGES = ("remote.html", "watch.html")  # their links now open the one table page
NAMED_DECKS = (("Aoi: the four winds", "葵：四方の風"), ("Ren: inspectors", "蓮：警部たち"))


def sample_decks(catalog: engine.Catalog) -> list[dict[str, Any]]:
    """Named legal decks of ``catalog``: the README's two, two drawn from fixed seeds, then two drawn for each
    format (in its latest revision); each names the formats it is legal in (``formats``), so that the deal
    form offers in a format only the decks that fit it."""
    from referee.engine.playout import random_deck, random_new_game
    from referee.engine.setup import SeededStream

    decks = [
        {"name": en, "name_ja": ja, "deck": deck} for (en, ja), deck in zip(NAMED_DECKS, NEW_GAME_EXAMPLE["decks"])
    ]
    for i, seed in enumerate(("table-1", "table-2"), start=1):
        for deck in random_new_game(catalog, seed)["decks"][:1]:
            decks.append({"name": f"Random deck {i}", "name_ja": f"ランダムデッキ{i}", "deck": deck})
    legal = [legal_in(catalog, d) for d in decks if not engine.validate_deck(catalog, d["deck"])]
    for fid, fmt in catalog.formats.items():  # two decks at least to deal with in each format
        stream = SeededStream(f"table-decks:{fid}")
        for i in range(1, 3 - sum(fid in d["formats"] for d in legal)):
            deck = {"name": f"{fmt.name}: random deck {i}", "name_ja": f"{fmt.name}：ランダムデッキ{i}"}
            deck["deck"] = random_deck(catalog, stream, catalog.format_revision(fid))
            if not engine.validate_deck(catalog, deck["deck"]):
                legal.append(legal_in(catalog, deck))
    return legal


def legal_in(catalog: engine.Catalog, sample: dict[str, Any]) -> dict[str, Any]:
    """``sample`` with the ids of the formats (each in its latest revision) its deck is legal in."""
    formats = [
        f
        for f in catalog.formats
        if not engine.validate_deck(catalog, sample["deck"], played=catalog.format_revision(f))
    ]
    return {**sample, "formats": formats}


def register_table(app: Flask, ref: Referee) -> None:
    decks_body = orjson.dumps({"decks": sample_decks(ref.catalog)})

    @app.get("/")
    def root() -> WerkzeugResponse:
        return redirect("/table", 302)

    @app.get("/table")
    def table() -> Response:
        return send_from_directory(TABLE_DIR, "index.html", max_age=0)

    @app.get("/table/decks.json")
    def table_decks() -> Response:
        return Response(decks_body, mimetype="application/json")

    @app.get("/table/<name>")
    def table_file(name: str) -> Response:
        if name in EARLIER_PAGES:
            return send_from_directory(TABLE_DIR, "index.html", max_age=0)
        if not name.endswith(SERVED_SUFFIXES) or not (TABLE_DIR / name).is_file():
            raise Problem("not-found", "not_found", f"No such file {name!r}.")
        mimetype = "text/javascript" if name.endswith(".js") else None
        return send_from_directory(TABLE_DIR, name, max_age=0, mimetype=mimetype)
