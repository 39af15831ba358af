"""Heavy work apart (docs/api.md §16, referee/service/heavy.py).

A suggestion or a record's recovery runs in a helper process of the worker, behind the replica's slots: the
serving worker spends its CPU on rule checks only; a heavy request that finds no slot free is refused at
once (429 ``busy``, ``Retry-After``); a game's recovered moves are kept, so a repeat recovers nothing again
and a later call only the moves made since. The tests count work (CPU seconds of the worker, moves
recovered, requests answered), never wall time.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import httpx
import pytest
from conftest import STATE_KEY
from prometheus_client import REGISTRY
from test_records_ledger import going_on, ordered, post

from referee.engine import legal_actions


def recovered_so_far() -> float:
    return REGISTRY.get_sample_value("referee_recovered_moves_total") or 0.0


def test_a_repeated_record_recovers_nothing_again_and_a_later_one_only_the_new_moves(
    make_app, tmp_path, private_game_body, catalog
):
    app = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{tmp_path / 'l.db'}")
    game = going_on(app.test_client(), ordered(private_game_body), catalog, 40)
    before = recovered_so_far()
    first = game.record(seat=game.seats[0])
    assert recovered_so_far() - before == len(game.actions)
    assert game.record(seat=game.seats[0]) == first  # the repeat: read from what the worker kept
    assert game.record(seat=game.watch) == game.written(player=None)
    assert recovered_so_far() - before == len(game.actions)
    rng = random.Random("three more")
    for _ in range(3):
        state = game.state()
        if state["phase"] == "over":
            break
        game.move(rng.choice(legal_actions(catalog, state)))
    assert game.record(seat=game.seats[0]) == game.written(player=0)
    assert recovered_so_far() - before == len(game.actions)  # only the moves made since


def test_a_recovery_longer_than_its_share_answers_busy_with_its_progress_and_goes_on(
    make_app, tmp_path, private_game_body, catalog
):
    app = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{tmp_path / 'l.db'}", heavy_max_seconds=0.01)
    game = going_on(app.test_client(), ordered(private_game_body), catalog, 60)
    body = {"game_id": game.game_id, "seat": game.seats[1]}
    refusals = []
    for _ in range(len(game.actions) + 1):  # each call recovers one move at the least
        resp = post(game.client, "/v1/records", body)
        if resp.status_code == 200:
            break
        assert (resp.status_code, resp.get_json()["code"], resp.headers["Retry-After"]) == (429, "busy", "1")
        refusals.append(resp.get_json()["detail"])
    assert resp.status_code == 200 and resp.get_data() == game.written(player=1)
    assert refusals and "moves so far, kept" in refusals[0]


# -- a real server -------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) a process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


@pytest.mark.e2e
def test_a_suggestion_runs_apart_from_the_worker_and_a_second_finds_the_share_busy(serve, midgame):
    server = serve(workers=1, env={"REFEREE_HEAVY_SLOTS": "1"})
    (worker,) = children(server.proc.pid)
    state, action = midgame
    asked = {"state": state, "player": action["player"], "bot": "ismcts", "budget_ms": 2000}
    answers: list[httpx.Response] = []
    worker_cpu = cpu_seconds(worker)
    first = threading.Thread(
        target=lambda: answers.append(httpx.post(server.url + "/v1/suggest", json=asked, timeout=10))
    )
    first.start()
    time.sleep(0.5)  # the first has taken the one slot
    second = httpx.post(server.url + "/v1/suggest", json=asked, timeout=10)
    checks = 0
    while first.is_alive():  # rule checks go on meanwhile, on the same worker
        resp = httpx.post(server.url + "/v1/apply", json={"state": state, "action": action}, timeout=10)
        assert resp.status_code == 200
        checks += 1
    first.join()
    worker_cpu = cpu_seconds(worker) - worker_cpu
    assert answers[0].status_code == 200, answers[0].text
    assert (second.status_code, second.json()["code"], second.headers["Retry-After"]) == (429, "busy", "1")
    assert checks >= 5
    metrics = httpx.get(server.url + "/metrics", timeout=5).text
    bot_cpu = float(
        next(line.split()[-1] for line in metrics.splitlines() if line.startswith("referee_suggest_cpu_seconds_sum"))
    )
    assert 'referee_heavy_jobs_total{job="suggestion",outcome="busy"} 1.0' in metrics
    assert 'referee_heavy_jobs_total{job="suggestion",outcome="done"} 1.0' in metrics
    assert bot_cpu > 0  # the bot searched, in its helper: the worker answered rule checks all along, and its
    assert worker_cpu < 0.3 + 0.02 * checks  # CPU is theirs (a few ms each), not two seconds of search


def test_sync_workers_leave_a_worker_for_rule_checks_by_default():
    from referee.service.config import Settings

    assert Settings.from_env({"REFEREE_WORKER_CLASS": "sync", "REFEREE_WORKERS": "2"}).heavy_slots == 1
    assert Settings.from_env({"REFEREE_WORKER_CLASS": "sync", "REFEREE_WORKERS": "1"}).heavy_slots == 1
    assert Settings.from_env({"REFEREE_HEAVY_SLOTS": "3", "REFEREE_WORKER_CLASS": "sync"}).heavy_slots == 3
    import os

    assert Settings.from_env({}).heavy_slots == os.cpu_count()


def test_a_spectator_held_behind_and_a_seat_share_one_recovery(make_app, tmp_path, private_game_body, catalog):
    app = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{tmp_path / 'l.db'}")
    game = going_on(app.test_client(), {**ordered(private_game_body), "watch_delay": 5}, catalog, 30)
    before = recovered_so_far()
    behind = game.record(seat=game.watch)
    shown = len(game.actions) - 5
    assert recovered_so_far() - before == shown
    body = {"state": game.deal, "seats": game.seats, "actions": game.actions[:shown], "player": None}
    assert behind == post(game.client, "/v1/records", body).get_data()  # the game as it stood 5 moves ago
    assert game.record(seat=game.seats[0]) == game.written(player=0)
    assert game.record(seat=game.watch) == behind
    assert recovered_so_far() - before == len(game.actions)  # each move recovered once


def test_an_event_is_heavy_work_too(make_app):
    app = make_app(heavy_slots=1)
    event = {"seed": "s", "best_of": 3, "players": [{"id": f"p{n}"} for n in range(8)], "rounds": []}
    client = app.test_client()
    slot = app.extensions["referee"].heavy.slots.take()  # another heavy request holds the replica's one slot
    for path in ("/v1/events/pair", "/v1/events/standings", "/v1/events/check"):
        resp = post(client, path, {"event": event})
        assert (resp.status_code, resp.get_json()["code"], resp.headers["Retry-After"]) == (429, "busy", "1")
    app.extensions["referee"].heavy.slots.give_back(slot)
    paired = post(client, "/v1/events/pair", {"event": event}).get_json()
    assert paired["round"] == 1 and len(paired["pairings"]) == 4
    refused = post(client, "/v1/events/pair", {"event": {**event, "players": [{"id": "p"}, {"id": "p"}]}})
    assert refused.status_code == 400  # the package's refusal, raised in the helper, answered by the worker
