"""The engine's shortcuts equal the careful code they stand in for (hypothesis).

Each shortcut answers the common case at C speed and hands anything unusual to
the careful code, so a client sees the same copy, the same violation and the
same error code either way. These properties check the shortcut never says yes
where the careful code says no (and, for the field check, says exactly what it
says), on real positions bent in the ways each shortcut reads.
"""

from __future__ import annotations

import copy

import msgspec
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import Catalog, InconsistentState, InvalidInput, check_state, consistency
from referee.engine.model import State
from referee.engine.parse import _plain_state, parse_state, plain_copy
from referee.engine.playout import play

CATALOG = Catalog.builtin()
POSITIONS = [
    copy.deepcopy(s)
    for n, (s, _) in enumerate(play(CATALOG, "fast-paths", options={"response_windows": "strict"}))
    if n % 9 == 0
]
ZONES = ("file", "hand", "trash", "cases", "fairies", "evidence")
IDS = sorted(POSITIONS[0]["cards"])
GAME_CARDS = sorted(CATALOG.game_card_ids)
OTHER_CARDS = sorted({*CATALOG.cards} - CATALOG.game_card_ids) + ["XX-000"]  # bonus cards (RULES 3.3), unknown


# -- the state's reading: ``cards`` checked and copied apart ------------------------------

odd_cards_values = st.sampled_from(["", "x", 0, None, True, ["a"], {"a": "b"}])


@st.composite
def states_with_odd_cards(draw):
    """A real state whose ``cards`` may gain an odd key or value, lose entries, or not be a dict."""
    state = copy.deepcopy(draw(st.sampled_from(POSITIONS)))
    how = draw(st.sampled_from(["as is", "key", "value", "drop", "not a dict", "no cards"]))
    cards = state["cards"]
    if how == "key":
        cards[draw(st.sampled_from(["", 0, "new"]))] = "x"
    elif how == "value":
        iid = draw(st.sampled_from(IDS))
        cards[iid] = draw(odd_cards_values | st.just(_Text(cards[iid])))  # a str subclass reads as the string
    elif how == "drop":
        del cards[draw(st.sampled_from(IDS))]
    elif how == "not a dict":
        state["cards"] = draw(odd_cards_values)
    elif how == "no cards":
        del state["cards"]
    if draw(st.booleans()):  # and sometimes a fault elsewhere, for the shortcut to hand back
        state["players"][draw(st.integers(0, 1))]["kept"] = draw(st.sampled_from([True, 1, None]))
    return state


@settings(max_examples=300, deadline=None)
@given(states_with_odd_cards())
def test_the_cards_shortcut_reads_a_state_exactly_as_the_model_does(raw):
    """parse._plain_state returns the model's reading, key order included, or leaves the state to it."""
    try:
        careful = plain_copy(msgspec.convert(raw, State))  # the model's reading, a str subclass as the string
    except msgspec.ValidationError:
        careful = None
    fast = _plain_state(raw)
    if fast is not None:
        assert careful is not None, "the shortcut accepted what the model refuses"
        assert orjson.dumps(fast) == orjson.dumps(careful)
        assert fast["cards"] is not raw["cards"]
    elif careful is not None:  # left to the general path: it must be something the shortcut does not read
        assert any(type(k) is not str or not k or type(v) is not str for k, v in raw["cards"].items())


def _outcome(check):
    """What a reading of a state comes to: the copy, or the error's kind, code and paths."""
    try:
        return "accepted", orjson.dumps(check())
    except InvalidInput as exc:
        return type(exc).__name__, getattr(exc, "code", None), exc.errors


@settings(max_examples=300, deadline=None)
@given(states_with_odd_cards())
def test_check_state_reading_cards_last_says_what_reading_them_first_says(raw):
    """RULES 13.1: check_state leaves the types in ``cards`` to the consistency check (every key against
    the zones, every value against the catalog) and reads them as the model does only when something
    is wrong; the answer is the one of the model's reading followed by the consistency check."""
    assert _outcome(lambda: check_state(CATALOG, raw)) == _outcome(lambda: _model_then_consistency(raw))


def _model_then_consistency(raw):
    """check_state without its shortcuts: the model's reading, then the consistency check."""
    try:
        state = parse_state(raw)
        consistency.check_consistency(CATALOG, state)
    except InvalidInput as exc:
        raise exc.under("state") from None
    return state


odd_ids = st.sampled_from(["", "x", 0, None, True, ["a"], {"card": "a"}])


@st.composite
def states_with_odd_ids(draw):
    """A real state with up to two instance ids in its zones made odd: empty, unknown, not a string, or the
    same id as a subclass of ``str``."""
    state = copy.deepcopy(draw(st.sampled_from(POSITIONS)))
    for _ in range(draw(st.integers(1, 2))):
        pl = state["players"][draw(st.integers(0, 1))]
        zone = draw(st.sampled_from(ZONES))
        if not pl[zone]:
            continue
        j = draw(st.integers(0, len(pl[zone]) - 1))
        if zone in ("file", "hand", "trash"):
            pl[zone][j] = draw(odd_ids | st.just(_Text(pl[zone][j])))
        else:
            entry = pl[zone][j]
            field = draw(st.sampled_from(["card", "case"] if zone != "cases" else ["card"]))
            entry[field] = draw(odd_ids | st.just(_Text(entry[field] or "")))
    return state


@settings(max_examples=300, deadline=None)
@given(states_with_odd_ids())
def test_check_state_reading_zone_ids_as_any_strings_says_what_the_model_says(raw):
    """RULES 13.1: check_state reads the zones' ids without the model's "non-empty" (the consistency
    check takes each from ``cards``); the answer is the one of the model's reading followed by the
    consistency check, an empty fairy's case (standby to the one-pass check) included."""
    assert _outcome(lambda: check_state(CATALOG, raw)) == _outcome(lambda: _model_then_consistency(raw))


class _Text(str):
    """A str subclass: the model's copy refuses it, so the shortcut must leave it to the general path."""


@given(st.sampled_from(["key", "value"]), st.sampled_from(POSITIONS))
def test_the_cards_shortcut_leaves_a_str_subclass_to_the_model(where, position):
    raw = copy.deepcopy(position)
    iid = IDS[0]
    if where == "key":
        raw["cards"][_Text(iid)] = raw["cards"].pop(iid)
    else:
        raw["cards"][iid] = _Text(raw["cards"][iid])
    assert _plain_state(raw) is None


def test_parse_state_copies_cards_apart_from_the_callers_dict():
    raw = copy.deepcopy(POSITIONS[1])
    parsed = parse_state(raw)
    parsed["cards"][IDS[0]] = "changed"
    assert raw == POSITIONS[1]


# -- the cards and the field: catalog ids, conservation, zone kinds and references in one pass --------


@st.composite
def bent_fields(draw):
    """A real position with up to three cards moved, copied, dropped, twinned, replaced by a stranger (an id
    not in cards), re-kinded or re-attached."""
    state = copy.deepcopy(draw(st.sampled_from(POSITIONS)))
    players = state["players"]
    for _ in range(draw(st.integers(0, 3))):
        pl = players[draw(st.integers(0, 1))]
        zone = draw(st.sampled_from(ZONES))
        how = draw(st.sampled_from(["move", "copy", "drop", "twin", "stranger", "catalog id", "case", "case"]))
        if how == "catalog id":
            state["cards"][draw(st.sampled_from(IDS))] = draw(
                st.sampled_from(GAME_CARDS) | st.sampled_from(OTHER_CARDS)
            )
            continue
        if how == "case":
            entries = [e for p in players for z in ("fairies", "evidence") for e in p[z]]
            if entries:
                cases = [e["card"] for p in players for e in p["cases"]]
                draw(st.sampled_from(entries))["case"] = draw(st.sampled_from([None, *IDS[:3], *cases]))
            continue
        if not pl[zone]:
            continue
        item = pl[zone][draw(st.integers(0, len(pl[zone]) - 1))]
        iid = item if isinstance(item, str) else item["card"]
        if how == "twin" and zone in ("file", "hand", "trash"):  # another card's id in its place
            pl[zone][pl[zone].index(item)] = draw(st.sampled_from(IDS))
            continue
        if how == "stranger":  # an id the state's cards do not list, in the card's place
            stranger = draw(st.sampled_from(["zz-stranger", "a" * 3, "0"]))
            if zone in ("file", "hand", "trash"):
                pl[zone][pl[zone].index(item)] = stranger
            else:
                item["card"] = stranger
            continue
        if how in ("move", "drop"):
            pl[zone].remove(item)
        if how in ("move", "copy"):
            to = players[draw(st.integers(0, 1))]
            target = draw(st.sampled_from(ZONES))
            to[target].append(
                iid
                if target in ("file", "hand", "trash")
                else {"card": iid, "face_up": True, "actioned": False}
                if target == "cases"
                else {"card": iid, "case": None}
            )
    return state


def _careful(state: dict) -> str | None:
    try:
        consistency._check_cards(CATALOG, state)
        consistency._check_conservation(state)
        consistency._check_zone_kinds(CATALOG, state)
        consistency._check_references(CATALOG, state)
    except InconsistentState as exc:
        return exc.code
    return None


@settings(max_examples=400, deadline=None)
@given(bent_fields())
def test_the_one_pass_field_check_says_what_the_four_careful_checks_say(state):
    """RULES 13.1: consistency._cards_and_field_are_sound is true exactly when the cards' catalog ids,
    conservation, zone kinds and references hold."""
    assert consistency._cards_and_field_are_sound(CATALOG, state) == (_careful(state) is None)


# -- the board: a hand's cards of one kind, from the catalog's table ---------------------------


def test_the_hand_of_a_kind_is_the_hand_filtered_card_by_card():
    from referee.engine.board import Board
    from referee.engine.cards import KINDS

    for state in POSITIONS:
        g = Board(CATALOG, state)
        for player in (0, 1):
            for kind in KINDS:
                assert g.hand_of_kind(player, kind) == [
                    i for i in state["players"][player]["hand"] if g.kind(i) == kind
                ]


# -- legal_actions: each rule's own listing equals its candidates through check and cost -------------


def _every_position(seeds: range, **options) -> list[dict]:
    return [copy.deepcopy(s) for seed in seeds for s, _ in play(CATALOG, f"legal-{seed}", options=options)]


LISTING_POSITIONS = _every_position(range(3)) + _every_position(range(3, 6), response_windows="strict")


def test_each_rules_legal_actions_are_its_candidates_that_pass_check_and_cost():
    """RULES 13.3 for legal_actions: a rule's ``legal`` override lists exactly what the careful
    ``ActionRule.legal`` lists (every candidate through ``check`` and ``cost``), in the same order,
    for whoever may act on every position of six random games, with 0 to 4 cases free to pay."""
    from referee.engine.actions import ActionRule
    from referee.engine.board import Board
    from referee.engine.pipeline import open_rules

    seen = set()
    for state in LISTING_POSITIONS:
        g = Board(CATALOG, state)
        if g.over:
            continue
        actor = g.who_acts()
        for rule in open_rules(g, actor):
            for free in range(5):
                fast = rule.legal(g, actor, free)
                assert fast == ActionRule.legal(rule, g, actor, free), (rule.type, free, state["seq"])
                if fast:
                    seen.add(rule.type)
    assert {
        "draw",
        "play_fairy",
        "play_evidence",
        "dispatch",
        "redispatch",
        "recall",
        "investigate",
        "use_ability",
        "cast_spell",
        "counter",
    } <= seen  # every override was compared on a real listing
