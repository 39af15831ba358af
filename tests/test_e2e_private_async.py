"""``AsyncPrivateGame`` over a real ``referee serve`` with a state key: the async twin of
``PrivateGame`` (docs/api.md §10) plays a private game to its end, detects a rollback, keeps its token
when handed another game's, and sees what the blocking one sees."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import pytest
from conftest import STATE_KEY, Server, keep_or_random, start_server, stop_servers
from test_e2e_private import who_acts

from referee.client import (
    AsyncPrivateGame,
    AsyncRefereeClient,
    PrivateGame,
    RefereeClient,
    RollbackDetected,
    SeatRejected,
)
from referee.engine.fair_deal import commitment

pytestmark = pytest.mark.e2e
MOVES = 60  # test_e2e_private.py plays whole games; here, enough of one to cross every endpoint


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    started: list[Server] = []
    yield start_server(tmp_path_factory.mktemp("private-async"), started, env={"REFEREE_STATE_KEY": STATE_KEY})
    stop_servers(started)


async def join_both(url: str, body: dict) -> tuple[AsyncRefereeClient, object, list[AsyncPrivateGame]]:
    ref = AsyncRefereeClient(url)
    deal = await ref.new_private_game(body)
    return ref, deal, [await AsyncPrivateGame.join(ref, deal.state, deal.seats[p]) for p in (0, 1)]


def test_two_async_players_play_a_private_game_to_its_end_and_reveal_it(server, private_game_body):
    async def play() -> tuple:
        ref, deal, players = await join_both(server.url, private_game_body)
        async with ref:
            rng = random.Random("async-private")
            for moves in range(MOVES + 1):  # a bounded game: then the player to act concedes
                if players[0].view["phase"] == "over":
                    break
                mover = players[who_acts(players[0].view)]
                action = (
                    keep_or_random(await mover.legal_actions(), rng)
                    if moves < MOVES
                    else {"type": "concede", "player": mover.player}
                )
                step = await mover.apply(action)
                await players[1 - mover.player].receive(step.state)
            return deal, players, await players[1].reveal(players[0].seat)

    deal, players, revealed = asyncio.run(play())
    assert [p.player for p in players] == [0, 1]
    assert players[0].commitment == players[1].commitment == deal.commitment == commitment(revealed["seed"])
    assert players[0].seq == players[1].seq == revealed["seq"] and revealed["phase"] == "over"


def test_an_async_player_handed_an_older_token_detects_the_rollback(server, private_game_body):
    async def play() -> tuple[str, str]:
        ref, deal, players = await join_both(server.url, private_game_body)
        async with ref:
            first = players[players[0].view["active"]]
            await first.apply({"type": "keep", "player": first.player})
            kept = first.token
            with pytest.raises(RollbackDetected, match="seq 1 to 0"):
                await first.receive(deal.state)
            return kept, first.token

    kept, after = asyncio.run(play())
    assert after == kept  # the older token was not taken


def test_an_async_player_handed_another_games_token_is_refused_and_keeps_its_own(server, private_game_body):
    async def play() -> tuple[str, bool]:
        ref, deal, players = await join_both(server.url, private_game_body)
        async with ref:
            other = await ref.new_private_game(private_game_body)
            with pytest.raises(SeatRejected) as refused:  # a seat is made for one game
                await players[0].receive(other.state)
            return refused.value.code, players[0].token == deal.state

    code, kept_its_own = asyncio.run(play())
    assert code == "bad_seat" and kept_its_own


def test_the_blocking_and_the_async_player_see_the_same_game(server, private_game_body):
    with RefereeClient(server.url) as ref:
        deal = ref.new_private_game(private_game_body)
        blocking = PrivateGame(ref, deal.state, deal.seats[0])

    async def join() -> AsyncPrivateGame:
        async with AsyncRefereeClient(server.url) as ref:
            return await AsyncPrivateGame.join(ref, deal.state, deal.seats[0])

    joined = asyncio.run(join())
    assert (joined.view, joined.seq, joined.commitment, joined.token) == (
        blocking.view,
        blocking.seq,
        blocking.commitment,
        blocking.token,
    )


def test_a_blocking_private_game_refuses_an_async_client(private_game_body):
    async def make() -> None:
        async with AsyncRefereeClient("http://127.0.0.1:9") as ref:
            with pytest.raises(TypeError, match="AsyncPrivateGame"):
                PrivateGame(ref, "afs1.x", "afk1.y")  # type: ignore[arg-type]

    asyncio.run(make())


def test_an_async_private_game_refuses_a_blocking_client():
    async def join() -> None:
        with RefereeClient("http://127.0.0.1:9") as ref, pytest.raises(TypeError, match="PrivateGame"):
            await AsyncPrivateGame.join(ref, "afs1.x", "afk1.y")  # type: ignore[arg-type]

    asyncio.run(join())
