"""Determinization (referee/bots/determinize.py): its properties over random positions of random games, and every
inference of auto response windows (RULES 9.4) over thousands of samples.

Each position: a seeded random game played some actions in, one seat, and a sample seed.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

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
    """A random game with auto response windows (RULES 9.4), each seat's memory fed its own declarations, its
    views and its share of the events, as a bot's is."""
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
        action = random_action(session.board, stream)
        memory[action["player"]].declare(CATALOG, session.view(action["player"]), action)
        applied = session.apply(action).events
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


@dataclass
class Silent:
    """A declaration under auto windows that opened none although the catalog has counters of its trigger: the
    true state before it, and the responder's hand instances held without a break since."""

    before: dict
    action: dict
    held: set[str]
    opens: dict[str, bool] = field(default_factory=dict)

    def would_open(self, cid: str) -> bool:
        """Whether the declaration opens a window when one held card is ``cid`` (the engine's own judgement: the
        true hand opened none, so only ``cid`` can)."""
        if cid not in self.opens:
            state = copy.deepcopy(self.before)
            state["cards"][sorted(self.held)[0]] = cid
            events = Session(CATALOG, state).apply(self.action).events
            self.opens[cid] = any(e["type"] == "window_opened" for e in events)
        return self.opens[cid]


INFERENCE_GAMES = 40
CHECK_EVERY = 6  # plies between two checked positions
SAMPLES = 4  # per seat and position


def inference_positions(game_seed: int) -> Iterator[tuple[int, Session, list[Memory], list[tuple[int, Silent]]]]:
    """A random auto-window game, every ``CHECK_EVERY`` plies: the session, each seat's memory (fed as a bot's
    is) and the silent declarations so far (by whom), each with the hand cards held since."""
    from referee.bots.seat import seat_events

    session, events = Session.new(CATALOG, random_new_game(CATALOG, f"infer-{game_seed}"))
    stream = SeededStream(f"infer-{game_seed}")
    memory = [Memory(), Memory()]
    for seat in (0, 1):
        memory[seat].observe(session.view(seat), seat_events(events, session.state, seat))
    silent: list[tuple[int, Silent]] = []
    for ply in range(400):
        if session.over:
            return
        action = random_action(session.board, stream)
        actor = action["player"]
        memory[actor].declare(CATALOG, session.view(actor), action)
        before = session.snapshot()
        applied = session.apply(action).events
        for seat in (0, 1):
            memory[seat].observe(session.view(seat), seat_events(applied, session.state, seat))
        if CATALOG.counter_ids_by_trigger.get(action["type"]) and not any(
            e["type"] == "window_opened" for e in applied
        ):
            silent.append((actor, Silent(before, action, set(before["players"][1 - actor]["hand"]))))
        for who, s in silent:
            s.held &= set(session.state["players"][1 - who]["hand"])
        if ply % CHECK_EVERY == 0 and not session.over:
            yield ply, session, memory, silent


def broken_inferences(
    sample: dict, view: dict, seat: int, silent: list[tuple[int, Silent]], checked: Counter
) -> Counter:
    """What ``sample`` (drawn from ``seat``'s ``view``) breaks of (i), (ii) and (iii); ``checked`` counts what
    was checked."""
    broken: Counter = Counter()
    check_state(CATALOG, sample)  # (iii), RULES 13.1
    assert without_commitment(Session(CATALOG, sample).view(seat)) == without_commitment(view)
    ids = Counter(sample["cards"][i] for i in _all(sample["players"][1 - seat]))
    assert sum(ids.values()) == 40
    assert all(n <= CATALOG.name_limit(CATALOG[cid].name) for cid, n in ids.items())  # RULES 3.2
    pending = view["pending"]
    if pending and pending["responder"] == 1 - seat and not pending["counters"]:  # (i)
        checked["open"] += 1
        legal = Session(CATALOG, copy.deepcopy(sample)).legal_actions(1 - seat)
        if not any(a["type"] == "counter" for a in legal):
            broken["open"] += 1
    for who, s in silent:  # (ii)
        if who != seat:
            continue
        checked["silent"] += len(s.held)  # held cards checked
        answering = CATALOG.counter_ids_by_trigger[s.action["type"]]
        if any(sample["cards"][h] in answering and s.would_open(sample["cards"][h]) for h in s.held):
            broken["silent"] += 1
    return broken


def test_samples_break_no_inference_of_auto_windows():
    """RULES 9.4 auto, over random games, both seats, with and without the opponent's deck list:
    (i) an open window no counter has answered yet: the responder holds a counter that fits it now;
    (ii) after a declaration that opened no window, none of the responder's cards held since is a counter that
    fitted then (cost and targets of that moment); (iii) the sample is consistent (RULES 13.1), shows the
    seat its view, and deals a legal deck. Every inference is judged by the engine on the true history."""
    samples = 0
    checked: Counter = Counter()
    broken: Counter = Counter()
    for game_seed in range(INFERENCE_GAMES):
        game = random_new_game(CATALOG, f"infer-{game_seed}")
        for ply, session, memory, silent in inference_positions(game_seed):
            for seat in (0, 1):
                view = session.view(seat)
                decks = own_deck_only(game, seat) if (ply // CHECK_EVERY + seat) % 2 else game["decks"]
                for k in range(SAMPLES):
                    sample = determinize(CATALOG, view, decks, f"{game_seed}:{ply}:{k}", memory[seat])
                    samples += 1
                    broken += broken_inferences(sample, view, seat, silent, checked)
    assert samples >= 2000 and checked["open"] >= 20 and checked["silent"] >= 2000, (samples, checked)
    assert broken == {}, (broken, checked, samples)
