"""``/metrics`` tells what the ledger of private games does (issue 40, item 4): the store's latency and the
batch sizes of its group commit, and the 503s and 409s it causes, on a real SQLite ledger."""

from __future__ import annotations

import sqlite3

from conftest import STATE_KEY
from prometheus_client.parser import text_string_to_metric_families
from test_ledger import Game, two_actions

SERIES = (
    ("referee_ledger_store_seconds_count", ()),
    ("referee_ledger_store_seconds_sum", ()),
    ("referee_ledger_batch_size_count", ()),
    ("referee_ledger_batch_size_sum", ()),
    ("referee_ledger_refusals_total", (("code", "stale_state"), ("status", "409"))),
    ("referee_ledger_refusals_total", (("code", "ledger_unavailable"), ("status", "503"))),
)


def scrape(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``GET /metrics``, by name and sorted labels."""
    resp = client.get("/metrics")
    assert resp.status_code == 200
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(resp.get_data(as_text=True))
        for sample in family.samples
    }


def moved(before: dict, after: dict) -> dict[str, float]:
    return {
        f"{name}{dict(labels) or ''}": after.get((name, labels), 0.0) - before.get((name, labels), 0.0)
        for name, labels in SERIES
    }


def test_the_ledger_series_appear_and_move_with_writes_409s_and_503s(make_app, private_game_body, tmp_path):
    db = tmp_path / "ledger.db"
    client = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{db}", ledger_timeout=0.2).test_client()
    first = scrape(client)
    assert ("referee_ledger_store_seconds_count", ()) in first  # a histogram shows from the start
    assert ("referee_ledger_batch_size_count", ()) in first

    # given a game dealt and four moves, each one write of one call (one request at a time)
    game = Game(client, private_game_body)
    game.play(4)
    after_moves = scrape(client)
    delta = moved(first, after_moves)
    assert delta["referee_ledger_store_seconds_count"] >= 5  # the deal and the moves (a 422 asks the ledger too)
    assert delta["referee_ledger_store_seconds_sum"] > 0
    assert delta["referee_ledger_batch_size_sum"] == delta["referee_ledger_batch_size_count"]  # batches of one
    assert delta["referee_ledger_store_seconds_count"] == delta["referee_ledger_batch_size_count"]

    # when a move is made on a token that is no longer the latest: a 409
    tried, published = two_actions(game)
    assert game.apply(tried).status_code == 200
    assert game.apply(published).status_code == 409
    after_fork = scrape(client)
    assert moved(after_moves, after_fork)["referee_ledger_refusals_total{'code': 'stale_state', 'status': '409'}"] == 1

    # when another process holds the file longer than the timeout: a 503, counted, the write observed too
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        assert game.apply(tried).status_code == 503
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    delta = moved(after_fork, scrape(client))
    assert delta["referee_ledger_refusals_total{'code': 'ledger_unavailable', 'status': '503'}"] == 1
    assert (
        delta["referee_ledger_store_seconds_count"] == 1 and delta["referee_ledger_store_seconds_sum"] > 0.1
    )  # it waited for the lock
