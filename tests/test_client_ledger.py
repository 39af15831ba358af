"""``referee.client`` with a ledger (docs/api.md §11, §12): a stale move raises ``StaleState`` carrying the
latest view (which the game takes), a second device catches up, a ``Spectator`` polls with the watch key."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest
from conftest import STATE_KEY, keep_or_random

from referee.client import (
    AsyncPrivateGame,
    AsyncRefereeClient,
    AsyncSpectator,
    NoLedger,
    PrivateGame,
    RefereeClient,
    SeatRejected,
    Spectator,
    StaleState,
    UnknownGame,
)


@pytest.fixture
def ledger_app(make_ledger_app):
    return make_ledger_app()


@pytest.fixture
def ref(ledger_app):
    with RefereeClient("http://referee.test", transport=httpx.WSGITransport(app=ledger_app)) as client:
        yield client


def first_mover(ref, deal) -> int:
    return ref.private_view(deal.state, deal.seats[0])["active"]


def test_a_move_from_a_second_copy_raises_stale_state_with_the_latest_view(ref, private_game_body):
    deal = ref.new_private_game(private_game_body)
    player = first_mover(ref, deal)
    phone, laptop = PrivateGame(ref, deal.state, deal.seats[player]), PrivateGame(ref, deal.state, deal.seats[player])
    phone.apply({"type": "keep", "player": player})
    with pytest.raises(StaleState) as caught:
        laptop.apply({"type": "mulligan", "player": player})  # the other device did not see the keep
    err = caught.value
    assert err.status == 409 and err.code == "stale_state" and err.latest_seq == 1
    assert err.view == phone.view and laptop.token == phone.token and laptop.seq == 1  # taken: act on it


def test_the_same_move_sent_again_is_the_recorded_answer(ref, private_game_body):
    deal = ref.new_private_game(private_game_body)
    player = first_mover(ref, deal)
    game = PrivateGame(ref, deal.state, deal.seats[player])
    first = ref.private_apply(deal.state, deal.seats[player], {"type": "keep", "player": player})
    again = game.apply({"type": "keep", "player": player})  # e.g. a retry after a lost answer
    assert again.state == first.state and game.seq == 1


def test_a_second_device_catches_up_with_latest(ref, private_game_body):
    deal = ref.new_private_game(private_game_body)
    player = first_mover(ref, deal)
    phone = PrivateGame(ref, deal.state, deal.seats[player])
    phone.apply({"type": "keep", "player": player})
    laptop = PrivateGame(ref, deal.state, deal.seats[player])
    latest = laptop.latest()
    assert latest.seq == 1 and laptop.token == phone.token and laptop.view == phone.view


def test_a_spectator_polls_the_latest_view_and_cannot_act(ref, private_game_body):
    deal = ref.new_private_game(private_game_body)
    game_id = ref.private_view(deal.state, deal.seats[0])["game_id"]
    watcher = Spectator(ref, game_id, deal.watch)
    assert watcher.latest().seq == 0 and watcher.view["viewer"] is None
    rng = random.Random("watch")
    players = [PrivateGame(ref, deal.state, s) for s in deal.seats]
    for _ in range(5):
        mover = next(p for p in players if any(a["type"] != "concede" for a in p.legal_actions()))
        step = mover.apply(keep_or_random(mover.legal_actions(), rng))
        players[1 - mover.player].receive(step.state)
    assert watcher.latest().seq == 5 and watcher.view["seq"] == 5
    with pytest.raises(SeatRejected):
        ref.private_apply(players[0].token, deal.watch, {"type": "concede", "player": 0})


def test_ledger_refusals_are_typed(ref, app):
    from referee.private.tokens import Vault

    with pytest.raises(UnknownGame):
        ref.latest("g-nothing", Vault(bytes.fromhex(STATE_KEY)).seat("g-nothing", 0))
    with pytest.raises(SeatRejected):
        ref.latest("g-nothing", "afk1." + "A" * 44)
    with RefereeClient("http://referee.test", transport=httpx.WSGITransport(app=app)) as plain, pytest.raises(NoLedger):
        plain.latest("g-1", "afk1.x")


def test_the_async_game_raises_stale_state_too(ledger_app, private_game_body):
    async def main() -> None:
        async with AsyncRefereeClient("http://referee.test", transport=_AsyncWSGI(ledger_app)) as aref:
            deal = await aref.new_private_game(private_game_body)
            player = (await aref.private_view(deal.state, deal.seats[0]))["active"]
            one = await AsyncPrivateGame.join(aref, deal.state, deal.seats[player])
            two = await AsyncPrivateGame.join(aref, deal.state, deal.seats[player])
            await one.apply({"type": "keep", "player": player})
            with pytest.raises(StaleState) as caught:
                await two.apply({"type": "mulligan", "player": player})
            assert caught.value.view == one.view and two.token == one.token
            game_id = one.view["game_id"]
            assert (await AsyncSpectator(aref, game_id, deal.watch).latest()).seq == 1

    asyncio.run(main())


class _AsyncWSGI(httpx.AsyncBaseTransport):
    """The Flask app behind an async client (httpx has no async WSGI transport): each request answered inline."""

    def __init__(self, app):
        self._sync = httpx.WSGITransport(app=app)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        sync_request = httpx.Request(request.method, request.url, headers=request.headers, content=body)
        resp = self._sync.handle_request(sync_request)
        return httpx.Response(resp.status_code, headers=resp.headers, content=resp.read())


def test_every_answer_renews_the_key_it_was_asked_with_during_a_rotation(make_app, tmp_path, private_game_body):
    """Given a game dealt under the old state key and one move made during the rotation, when the other
    player only looks (legal actions, the latest state) and a spectator polls, then each holds its key
    made under the new state key, and all of them still work once the old key is dropped."""
    from conftest import OTHER_STATE_KEY

    ledger = f"sqlite:///{tmp_path / 'ledger.db'}"
    apps = [
        make_app(state_key=STATE_KEY, ledger=ledger),
        make_app(state_key=OTHER_STATE_KEY, previous_state_key=STATE_KEY, ledger=ledger),
        make_app(state_key=OTHER_STATE_KEY, ledger=ledger),
    ]
    old, rotating, after = (RefereeClient("http://referee.test", transport=httpx.WSGITransport(app=a)) for a in apps)
    deal = old.new_private_game(private_game_body)
    first = first_mover(old, deal)
    game_id = old.private_view(deal.state, deal.seats[0])["game_id"]
    mover, asker, catcher = (PrivateGame(old, deal.state, deal.seats[p]) for p in (first, 1 - first, 1 - first))
    watcher = Spectator(rotating, game_id, deal.watch)
    for side in (mover, asker, catcher):
        side.client = rotating  # the next request reaches a replica in the rotation's second phase
    mover.apply({"type": "keep", "player": first})
    asker.token = mover.token  # handed over by the app, not yet looked at
    asker.legal_actions()
    catcher.latest()
    watcher.latest()
    assert mover.seat != deal.seats[first] and asker.seat != deal.seats[1 - first] != catcher.seat
    assert asker.seat == catcher.seat and watcher.watch != deal.watch
    for side in (mover, asker, catcher, watcher):
        side.client = after
    assert asker.legal_actions() and catcher.latest().seq == 1 and watcher.latest().seq == 1
    assert [a["type"] for a in mover.legal_actions()] == ["concede"]  # the opponent decides now
    with pytest.raises(SeatRejected):  # the seats as dealt went with the old key
        after.latest(game_id, deal.seats[0])


def test_a_private_game_shows_its_clock_claims_on_time_and_deals_the_matchs_next_game(
    ledger_app, ref, private_game_body
):
    """docs/api.md §15 through the client: the clock, ``claim_time()``, the match and its next game."""
    from datetime import datetime, timedelta

    deal = ref.new_private_game(
        {**private_game_body, "first_player": 0, "clock": {"initial": 60, "increment": 0}, "match": {"best_of": 3}}
    )
    mover, waiter = PrivateGame(ref, deal.state, deal.seats[0]), PrivateGame(ref, deal.state, deal.seats[1])
    assert waiter.clock is not None and waiter.clock["running"] == 0 and waiter.match["game"] == 1
    since = datetime.fromisoformat(waiter.clock["since"])
    assert waiter.time_left(since + timedelta(seconds=20)) == [40_000, 60_000]
    assert waiter.time_left(since + timedelta(minutes=5)) == [0, 60_000]
    ledger_app.extensions["referee"].codec.ledger.ahead_ms += 61_000  # player 0's minute runs out
    step = waiter.claim_time()
    assert step.view["result"] == {"winner": 1, "reason": "time"} and waiter.match["wins"] == [0, 1]
    mover.receive(waiter.token)
    nxt = mover.next_game(first_player=0)  # the loser chooses (RULES 14.2)
    second = PrivateGame(ref, nxt.state, nxt.seats[0])
    assert second.match == {"best_of": 3, "game": 2, "wins": [0, 1], "winner": None}
    assert second.clock["remaining"] == [60_000, 60_000] and second.game_id != mover.game_id
    with pytest.raises(SeatRejected):
        waiter.next_game(first_player=1)  # the winner may not choose
