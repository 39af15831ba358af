"""Determinization (referee/bots/determinize.py): three properties over random positions of random games.

Each position: a seeded random game played some actions in, one seat, and a sample seed.
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.bots.determinize import Memory, determinize
from referee.engine import Catalog, Session, check_state
from referee.engine.playout import random_action, random_new_game
from referee.engine.setup import SeededStream

CATALOG = Catalog.builtin()
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def position(game_seed: int, steps: int, strict: bool) -> tuple[dict, Session, list[Memory]]:
    """A random game ``steps`` actions in (or over sooner), and what each seat has seen on the way."""
    options = {"options": {"response_windows": "strict"}} if strict else {}
    game = random_new_game(CATALOG, f"det-{game_seed}", **options)
    session, _ = Session.new(CATALOG, game)
    stream = SeededStream(f"det-{game_seed}")
    memory = [Memory(), Memory()]
    for _ in range(steps):
        for seat in (0, 1):
            memory[seat].observe(session.view(seat))
        if session.over:
            break
        session.apply(random_action(session.board, stream))
    return game, session, memory


def without_commitment(view: dict) -> dict:
    return {k: v for k, v in view.items() if k != "commitment"}


positions = st.tuples(st.integers(0, 10_000), st.integers(0, 160), st.booleans(), st.sampled_from([0, 1]))


@SETTINGS
@given(positions, st.text(min_size=1, max_size=8))
def test_the_samples_view_for_the_seat_is_the_given_view(where, sample_seed):
    game_seed, steps, strict, seat = where
    game, session, memory = position(game_seed, steps, strict)
    view = session.view(seat)
    sample = determinize(CATALOG, view, game["decks"], sample_seed, memory[seat])
    assert without_commitment(Session.from_state(CATALOG, sample).view(seat)) == without_commitment(view)


@SETTINGS
@given(positions, st.text(min_size=1, max_size=8))
def test_the_sample_is_a_consistent_state(where, sample_seed):
    game_seed, steps, strict, seat = where
    game, session, memory = position(game_seed, steps, strict)
    sample = determinize(CATALOG, session.view(seat), game["decks"], sample_seed, memory[seat])
    check_state(CATALOG, sample)  # RULES 13.1: raises InvalidInput when it is not
    assert Session.from_state(CATALOG, sample).over == session.over


def permute_hidden(state: dict, seat: int, stream: SeededStream) -> dict:
    """The true state with what ``seat`` cannot see shuffled: both files' order, and the cards of the
    opponent's hand and file among themselves (a hand card a pending action names stays)."""
    out = copy.deepcopy(state)
    opponent = out["players"][1 - seat]
    pending = out["pending"] or {"action": {}}
    named = {v for v in pending["action"].values() if isinstance(v, str)}
    for pl in out["players"]:
        stream.shuffle(pl["file"])
    pool = [iid for iid in opponent["hand"] + opponent["file"] if iid not in named]
    cids = [out["cards"][iid] for iid in pool]
    stream.shuffle(cids)
    out["cards"].update(zip(pool, cids))
    return out


@SETTINGS
@given(positions, st.text(min_size=1, max_size=8), st.integers(0, 1000))
def test_the_sample_never_depends_on_hidden_information(where, sample_seed, shuffle_seed):
    game_seed, steps, strict, seat = where
    game, session, _ = position(game_seed, steps, strict)
    truth = session.snapshot()
    other = permute_hidden(truth, seat, SeededStream(f"permute-{shuffle_seed}"))
    view, other_view = session.view(seat), Session.from_state(CATALOG, other).view(seat)
    assert other_view == view  # the seat cannot tell the two apart ...
    assert determinize(CATALOG, other_view, game["decks"], sample_seed) == determinize(
        CATALOG, view, game["decks"], sample_seed
    )  # ... and neither can the sample


def test_the_sample_draws_the_hidden_cards_from_the_decks_minus_what_the_seat_knows():
    game, session, memory = position(3, 40, True)
    view = session.view(0)
    sample = determinize(CATALOG, view, game["decks"], "s", memory[0])
    for p in (0, 1):
        ids = [iid for iid, _ in sample["cards"].items() if iid in _all(sample["players"][p])]
        assert sorted(sample["cards"][i] for i in ids) == sorted(game["decks"][p])
    assert determinize(CATALOG, view, game["decks"], "s", memory[0]) == sample
    assert determinize(CATALOG, view, game["decks"], "t", memory[0]) != sample


def _all(pl: dict) -> set[str]:
    return set(pl["hand"] + pl["file"] + pl["trash"]) | {
        e["card"] for zone in ("cases", "fairies", "evidence") for e in pl[zone]
    }


def test_the_sample_shares_nothing_with_the_view():
    game, session, memory = position(5, 30, False)
    view = session.view(0)
    before = copy.deepcopy(view)
    sample = determinize(CATALOG, view, game["decks"], "s", memory[0])
    for pl in sample["players"]:
        for zone in ("hand", "trash", "cases", "fairies", "evidence"):
            pl[zone].clear()
    assert view == before


# -- without the opponent's deck list, and what auto response windows tell ---------------------------


def told_position(game_seed: int, steps: int) -> tuple[dict, Session, list[Memory]]:
    """A random game with auto response windows (RULES 9.4), each seat's memory fed its views and its share
    of the events, as a bot's is."""
    from referee.bots.seat import seat_events

    game = random_new_game(CATALOG, f"told-{game_seed}")
    session, events = Session.new(CATALOG, game)
    stream = SeededStream(f"told-{game_seed}")
    memory = [Memory(), Memory()]
    for seat in (0, 1):
        memory[seat].observe(session.view(seat), seat_events(events, session.state, seat))
    for _ in range(steps):
        if session.over:
            break
        applied = session.apply(random_action(session.board, stream)).events
        for seat in (0, 1):
            memory[seat].observe(session.view(seat), seat_events(applied, session.state, seat))
    return game, session, memory


def own_deck_only(game: dict, seat: int) -> list:
    decks: list = [None, None]
    decks[seat] = game["decks"][seat]
    return decks


@SETTINGS
@given(positions, st.text(min_size=1, max_size=8), st.integers(0, 1000))
def test_without_the_opponents_list_the_sample_never_depends_on_hidden_information(where, sample_seed, shuffle_seed):
    game_seed, steps, _, seat = where
    game, session, memory = told_position(game_seed, steps)
    truth = session.snapshot()
    other = permute_hidden(truth, seat, SeededStream(f"permute-{shuffle_seed}"))
    view, other_view = session.view(seat), Session.from_state(CATALOG, other).view(seat)
    assert other_view == view
    decks = own_deck_only(game, seat)
    sample = determinize(CATALOG, view, decks, sample_seed, memory[seat])
    assert determinize(CATALOG, other_view, decks, sample_seed, memory[seat]) == sample
    check_state(CATALOG, sample)  # consistent (RULES 13.1)
    assert without_commitment(Session.from_state(CATALOG, sample).view(seat)) == without_commitment(view)
    opponent = sample["players"][1 - seat]
    ids = [sample["cards"][i] for i in _all(opponent)]
    for cid in set(ids):  # a legal deck's counts (RULES 3.2)
        assert ids.count(cid) <= CATALOG.name_limit(CATALOG[cid].name)
    assert len(ids) == 40


def test_a_pass_in_an_auto_window_puts_a_counter_of_its_trigger_in_every_samples_hand():
    """RULES 9.4 auto: the window opened because the responder held a counter that fitted; having passed, they
    hold it still. Every sample deals one, and the claim is true of the real game too."""
    from referee.bots.determinize import _claimed

    checked = 0
    for game_seed in range(60):
        game, session, memory = told_position(game_seed, 120)
        for seat in (0, 1):
            view = session.view(seat)
            hand = view["players"][1 - seat]["hand"]
            claims = _claimed(CATALOG, memory[seat], hand, set(hand))
            if not claims or session.over:
                continue
            real = [CATALOG[session.state["cards"][i]] for i in session.state["players"][1 - seat]["hand"]]
            for iid, kind in claims.items():
                trigger = kind.partition(":")[2]
                assert any(c.kind == "counter" and c.trigger == trigger for c in real)
                for sample_seed in ("a", "b", "c"):
                    sample = determinize(CATALOG, view, own_deck_only(game, seat), sample_seed, memory[seat])
                    card = CATALOG[sample["cards"][iid]]
                    assert (card.kind, card.trigger) == ("counter", trigger)
                checked += 1
    assert checked >= 3
