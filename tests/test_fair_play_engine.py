"""The engine's part of private play (docs/api.md §3 `seq`, §10): seq, the game id, per-seat
events, typed events, and the provably fair deal."""

from __future__ import annotations

import ast
import copy
import random
from pathlib import Path

import pytest
from conftest import keep_or_random
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import InvalidInput, apply, check_state, legal_actions, new_game, replay, validate, view
from referee.engine.events import events_for
from referee.engine.fair_deal import DealMismatch, commitment, private_deal, redeal, verify_deal
from referee.engine.playout import play_out
from referee.engine.views import visible_cards
from referee_schemas import EVENT_SCHEMAS

ROOT = Path(__file__).resolve().parent.parent
GAMES = settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def played(catalog, seed: str, **options):
    """The states and events of one whole random game, from the deal."""
    game, _, actions = play_out(catalog, seed, **options)
    state, events = new_game(catalog, game)
    out = [(state, events)]
    for action in actions:
        state, events = apply(catalog, state, action)
        out.append((state, events))
    return game, actions, out


# -- seq ------------------------------------------------------------------------------


def test_seq_is_zero_at_the_deal_and_counts_each_applied_action(catalog):
    _, actions, steps = played(catalog, "seq-1")
    assert [s["seq"] for s, _ in steps] == list(range(len(actions) + 1))


def test_replay_counts_seq_as_apply_does(catalog):
    game, actions, steps = played(catalog, "seq-2")
    state, applied = replay(catalog, actions, game=game)
    assert state["seq"] == applied == steps[-1][0]["seq"]


def test_an_illegal_action_or_a_query_leaves_seq_alone(catalog, midgame):
    state, action = midgame
    before = state.get("seq", 0)
    validate(catalog, state, action)
    legal_actions(catalog, state)
    assert check_state(catalog, state)["seq"] == before


def test_seq_is_optional_on_input_and_shown_in_views(catalog, midgame):
    state = {k: v for k, v in midgame[0].items() if k != "seq"}
    assert check_state(catalog, state)["seq"] == 0
    assert view(catalog, {**state, "seq": 12}, 0)["seq"] == 12


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None])
def test_a_seq_that_is_not_a_natural_number_is_a_schema_error(catalog, midgame, bad):
    with pytest.raises(InvalidInput) as exc:
        check_state(catalog, {**midgame[0], "seq": bad})
    assert "state.seq" in exc.value.errors


# -- the game id ---------------------------------------------------------------------


def test_the_game_id_is_kept_and_never_changes_the_deal(catalog, new_game_body):
    plain, _ = new_game(catalog, new_game_body)
    with_id, _ = new_game(catalog, new_game_body, game_id="g-1")
    assert "game_id" not in plain and with_id.pop("game_id") == "g-1" and with_id == plain
    after, _ = apply(catalog, {**plain, "game_id": "g-1"}, {"type": "concede", "player": 0})
    assert after["game_id"] == "g-1"


@pytest.mark.parametrize("bad", ["", 3, None, ["g"]])
def test_a_game_id_must_be_a_non_empty_string(catalog, midgame, bad):
    with pytest.raises(InvalidInput) as exc:
        check_state(catalog, {**midgame[0], "game_id": bad})
    assert "state.game_id" in exc.value.errors


# -- events per seat -----------------------------------------------------------------------


def test_each_seat_gets_the_commitment_instead_of_the_seed(catalog, new_game_body):
    state, events = new_game(catalog, new_game_body)
    for viewer in (0, 1, None):
        started = events_for(events, state, viewer)[0]
        assert "seed" not in started and started["commitment"] == commitment(new_game_body["seed"])
    assert events[0]["seed"] == new_game_body["seed"]  # the input is not changed


def test_a_reveal_names_the_card_only_to_a_seat_that_may_know_it(catalog, midgame):
    state = check_state(catalog, midgame[0])
    hidden = next(iid for iid in state["players"][1]["hand"] if iid not in visible_cards(state, 0))
    event = {"type": "reveal", "case": hidden, "card": state["cards"][hidden]}
    assert events_for([event], state, 0) == [{"type": "reveal", "case": hidden}]
    assert events_for([event], state, 1) == [event]


@GAMES
@given(seed=st.integers(0, 10**6))
def test_seat_events_name_only_cards_the_seat_may_know(catalog, seed):
    _, _, steps = played(catalog, f"events-{seed}")
    for state, events in steps:
        for viewer in (0, 1):
            known = visible_cards(state, viewer)
            for event in events_for(events, state, viewer):
                assert "seed" not in event
                if event["type"] == "reveal" and "card" in event:
                    assert event["case"] in known and state["cards"][event["case"]] == event["card"]


# -- typed events -------------------------------------------------------------------------


def emitted_types() -> set[str]:
    """Every event type the engine's source emits (``emit("...")`` and ``emit(self.type)``)."""
    found: set[str] = set()
    for path in (ROOT / "referee" / "engine").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "emit" and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant):
                    found.add(arg.value)
    return found | {"dispatch", "redispatch", "recall"}  # main_actions emits self.type for these three


def test_every_emitted_event_type_has_its_schema():
    assert emitted_types() == set(EVENT_SCHEMAS)


@GAMES
@given(seed=st.integers(0, 10**6), windows=st.sampled_from(["auto", "strict"]))
def test_every_event_of_a_game_matches_its_schema_in_both_modes(catalog, seed, windows):
    _, _, steps = played(catalog, f"typed-{seed}", options={"response_windows": windows})
    for state, events in steps:
        for shown in (events, events_for(events, state, 0), events_for(events, state, None)):
            for event in shown:
                assert EVENT_SCHEMAS[event["type"]]().validate(event) == {}, event


def test_every_event_schema_says_what_each_side_sees():
    for kind, schema in EVENT_SCHEMAS.items():
        assert "What each side sees:" in schema.Meta.description, kind


# -- the fair deal ---------------------------------------------------------------------------


def finished_private_game(catalog, new_game_body, seed: str = "p-test-seed", rounds: int = 400):
    """A private deal (decks in the order sent, random legal play to the end): first and last state."""
    body = {k: v for k, v in new_game_body.items() if k != "seed"}
    first, _ = private_deal(catalog, body, seed, "g-test")
    state, rng = first, random.Random(seed)
    for _ in range(rounds):
        if state["phase"] == "over":
            break
        state, _ = apply(catalog, state, keep_or_random(legal_actions(catalog, state), rng))
    if state["phase"] != "over":
        state, _ = apply(catalog, state, {"type": "concede", "player": 0})
    return first, state


def test_the_private_deal_does_not_depend_on_how_the_decks_were_written(catalog, new_game_body):
    body = {k: v for k, v in new_game_body.items() if k != "seed"}
    as_lists = {
        **body,
        "decks": [
            sorted((cid for cid, n in d.items() for _ in range(n)), reverse=True) if isinstance(d, dict) else d[::-1]
            for d in body["decks"]
        ],
    }
    a, _ = private_deal(catalog, body, "p-1", "g-1")
    b, _ = private_deal(catalog, as_lists, "p-1", "g-1")
    assert a == b and a["seed"] == "p-1" and a["game_id"] == "g-1"


def test_re_dealing_a_finished_game_gives_its_first_state_exactly(catalog, new_game_body):
    first, last = finished_private_game(catalog, new_game_body)
    assert verify_deal(catalog, last, commitment(first["seed"])) == first


def test_a_first_player_chosen_in_the_new_game_is_re_dealt_too(catalog, new_game_body):
    body = {k: v for k, v in new_game_body.items() if k != "seed"}
    for first_player in (0, 1):
        first, _ = private_deal(catalog, {**body, "first_player": first_player}, "p-2", "g-2")
        last, _ = apply(catalog, first, {"type": "concede", "player": 1})
        assert redeal(catalog, last) == first


def tampered(state: dict, how: str) -> dict:
    s = copy.deepcopy(state)
    if how == "seed":
        s["seed"] += "x"
    elif how == "cards":  # two of player 0's cards swap identities
        a, b = _two_different(s)
        s["cards"][a], s["cards"][b] = s["cards"][b], s["cards"][a]
    elif how == "file":
        pl = next(p for p in s["players"] if len(p["file"]) >= 2)
        pl["file"][0], pl["file"][-1] = pl["file"][-1], pl["file"][0]
    elif how == "first_player":
        s["first_player"] = 1 - s["first_player"]
    return s


def _two_different(s: dict) -> tuple[str, str]:
    ids = sorted(s["players"][0]["file"] + s["players"][0]["trash"] + s["players"][0]["hand"])
    a = ids[0]
    b = next(i for i in ids if s["cards"][i] != s["cards"][a])
    return a, b


@pytest.mark.parametrize("how", ["seed", "cards", "file", "first_player"])
def test_a_tampered_reveal_fails_verification(catalog, new_game_body, how):
    _first, last = finished_private_game(catalog, new_game_body, rounds=60)
    with pytest.raises(DealMismatch):
        verify_deal(catalog, tampered(last, how))


def test_a_seed_that_is_not_the_committed_one_fails(catalog, new_game_body):
    _, last = finished_private_game(catalog, new_game_body, rounds=10)
    with pytest.raises(DealMismatch, match="commitment"):
        verify_deal(catalog, last, commitment("another seed"))


@pytest.mark.parametrize("doc", [None, [], {"seed": 3}, {"seed": "s", "phase": "turn"}, {"seed": "s", "phase": "over"}])
def test_what_is_not_a_revealed_state_fails_clearly(catalog, doc):
    with pytest.raises(DealMismatch):
        verify_deal(catalog, doc)


# -- nothing a seat is told depends on a card it may not know ---------------------------------


def hidden_pair(state: dict, seat: int, rng: random.Random) -> tuple[str, str] | None:
    """Two cards of the opponent's hand or file, of different catalog ids, that ``seat`` may not know."""
    opp = state["players"][1 - seat]
    known = visible_cards(state, seat)
    hidden = [i for i in opp["hand"] + opp["file"] if i not in known]
    rng.shuffle(hidden)
    for a in hidden:
        for b in hidden:
            if state["cards"][a] != state["cards"][b]:
                return a, b
    return None


def swapped(state: dict, a: str, b: str) -> dict:
    out = copy.deepcopy(state)
    out["cards"][a], out["cards"][b] = out["cards"][b], out["cards"][a]
    return out


def probes(seat: int, hidden: str, state: dict) -> list[dict]:
    """Actions of ``seat`` naming an opponent's hidden card wherever an action names a card."""
    field_case = next((e["card"] for pl in state["players"] for e in pl["cases"]), hidden)
    return [
        {"type": "play_case", "player": seat, "card": hidden},
        {"type": "play_fairy", "player": seat, "card": hidden},
        {"type": "play_evidence", "player": seat, "card": hidden, "case": field_case},
        {"type": "cast_spell", "player": seat, "card": hidden, "targets": []},
        {"type": "use_ability", "player": seat, "card": hidden, "ability": 0, "targets": []},
        {"type": "counter", "player": seat, "card": hidden, "targets": []},
        {"type": "dispatch", "player": seat, "fairy": hidden, "case": field_case},
        {"type": "investigate", "player": seat, "case": hidden},
        {"type": "discard", "player": seat, "cards": [hidden]},
    ]


def told(catalog, state: dict, seat: int, action: dict) -> object:
    """What the seat learns from trying ``action``: its violation, or its view and events after it."""
    violation = validate(catalog, state, action)
    if violation is not None:
        return ("refused", violation.code, violation.detail("en"))
    after, events = apply(catalog, state, action)
    return ("applied", view(catalog, after, seat), events_for(events, after, seat))


@GAMES
@given(seed=st.integers(0, 10**6))
def test_swapping_two_hidden_cards_changes_nothing_a_seat_is_told(catalog, seed):
    """Strict windows (auto windows open only when the responder could counter: a rule that tells).
    For positions of a random game, two of the opponent's hidden cards swap identities: the seat's
    legal actions, and the violation or view and events of each of its actions, stay the same,
    unless the action itself shows one of the two cards (a mill, a draw into a public zone)."""
    rng = random.Random(seed)
    _, _, steps = played(catalog, f"swap-{seed}", options={"response_windows": "strict"})
    for state, _ in rng.sample(steps, min(12, len(steps))):
        if state["phase"] == "over":
            continue
        seat = state["pending"]["responder"] if state["pending"] else state["active"]
        pair = hidden_pair(state, seat, rng)
        if pair is None:
            continue
        other_state = swapped(state, *pair)
        mine = legal_actions(catalog, state, seat)
        assert mine == legal_actions(catalog, other_state, seat)
        for action in rng.sample(mine, min(4, len(mine))) + probes(seat, pair[0], state):
            a, b = told(catalog, state, seat, action), told(catalog, other_state, seat, action)
            if a[0] == b[0] == "applied" and set(pair) & set(a[1]["cards"]) | set(pair) & set(b[1]["cards"]):
                continue  # the action showed the card to the seat: the answers may differ
            assert a == b, (action, a, b)
