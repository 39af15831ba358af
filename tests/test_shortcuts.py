"""Every shortcut of the engine's registry (referee/engine/shortcuts.py) answers as its careful twin.

One property for all of them: on real positions of random games, bent at random
in the ways a client's state can be wrong, the engine's public functions give
the same answers with the shortcut on and turned off: the same checked state or
the same error (kind, code, paths), and the same legal actions for whoever acts
and for each player.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import Catalog, InvalidInput, check_state, legal_actions
from referee.engine.playout import play
from referee.engine.shortcuts import SHORTCUTS, Shortcut

CATALOG = Catalog.builtin()
POSITIONS = [
    copy.deepcopy(s)
    for seed, windows in [("a", "auto"), ("b", "auto"), ("c", "strict"), ("d", "strict")]
    for n, (s, _) in enumerate(play(CATALOG, f"shortcuts-{seed}", options={"response_windows": windows}))
    if n % 3 == 0
]
ZONES = ("file", "hand", "trash", "cases", "fairies", "evidence")
GAME_CARDS = sorted(CATALOG.game_card_ids)
OTHER_CARDS = sorted({*CATALOG.cards} - CATALOG.game_card_ids) + ["XX-000"]  # bonus cards (RULES 3.3), unknown


class _Text(str):
    """A str subclass (numpy's ``str_`` is one)."""


@st.composite
def positions(draw: Any) -> dict[str, Any]:
    """A real position with up to three cards moved, copied, dropped, twinned, replaced by a stranger (an id
    not in cards), re-kinded, re-attached or stacked on one case; an odd entry of cards or instance id;
    or a flag of the flow changed."""
    state = copy.deepcopy(draw(st.sampled_from(POSITIONS)))
    players, ids = state["players"], sorted(state["cards"])
    for _ in range(draw(st.integers(0, 3))):
        pl = players[draw(st.integers(0, 1))]
        zone = draw(st.sampled_from(ZONES))
        how = draw(st.sampled_from(["move", "copy", "drop", "twin", "stranger", "catalog id", "case", "stack", "flow"]))
        if how in ("stack", "flow", "catalog id", "case"):
            _bend_field(draw, state, pl, how)
        else:
            _bend_card(draw, state, pl, zone, how)
    how = draw(st.sampled_from(["none", "cards", "id"]))  # last: what the state's reading reads apart
    pl, zone = players[draw(st.integers(0, 1))], draw(st.sampled_from(ZONES))
    if how == "cards":  # an odd entry of cards, or no dict at all
        _bend_cards_entry(draw, state)
    if how == "id" and pl[zone]:  # an instance id in a zone made empty or not a string
        j = draw(st.integers(0, len(pl[zone]) - 1))
        odd_id = draw(st.sampled_from(["", 0, None, _Text(ids[0])]))
        if zone in ("file", "hand", "trash"):
            pl[zone][j] = odd_id
        else:
            pl[zone][j]["card"] = odd_id
    return state


def _bend_field(draw: Any, state: dict[str, Any], pl: dict[str, Any], how: str) -> None:
    """Stack two fairies on one case, change a flag of the flow, re-kind a card, or re-attach a card to a case."""
    players, ids = state["players"], sorted(state["cards"])
    if how == "stack":  # two of one player's fairies on one case (RULES 8.9)
        cases = [e["card"] for p in players for e in p["cases"]]
        if len(pl["fairies"]) >= 2 and cases:
            case = draw(st.sampled_from(cases))
            for f in pl["fairies"][:2]:
                f["case"] = case
    elif how == "flow":
        key = draw(st.sampled_from(["step", "phase", "active", "case_played"]))
        state[key] = draw(st.sampled_from(["main", "end", "case", "turn", "over", 0, 1, True, False]))
    elif how == "catalog id":
        if isinstance(state["cards"], dict):
            state["cards"][draw(st.sampled_from(ids))] = draw(
                st.sampled_from(GAME_CARDS) | st.sampled_from(OTHER_CARDS)
            )
    else:  # "case"
        entries = [e for p in players for z in ("fairies", "evidence") for e in p[z]]
        if entries:
            cases = [e["card"] for p in players for e in p["cases"]]
            draw(st.sampled_from(entries))["case"] = draw(st.sampled_from([None, *ids[:3], *cases]))


def _bend_card(draw: Any, state: dict[str, Any], pl: dict[str, Any], zone: str, how: str) -> None:
    """One card of ``pl``'s ``zone`` moved, copied, dropped, twinned or replaced by a stranger."""
    players, ids = state["players"], sorted(state["cards"])
    if not pl[zone]:
        return
    item = pl[zone][draw(st.integers(0, len(pl[zone]) - 1))]
    iid = item if isinstance(item, str) else item["card"]
    if how == "twin" and zone in ("file", "hand", "trash"):  # another card's id in its place
        pl[zone][pl[zone].index(item)] = draw(st.sampled_from(ids))
        return
    if how == "stranger":  # an id the state's cards do not list, in the card's place
        stranger = draw(st.sampled_from(["zz-stranger", "a" * 3, "0"]))
        if zone in ("file", "hand", "trash"):
            pl[zone][pl[zone].index(item)] = stranger
        else:
            item["card"] = stranger
        return
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


def _bend_cards_entry(draw: Any, state: dict[str, Any]) -> None:
    """An odd key or value in ``cards``, a ``str`` subclass there, or ``cards`` not a dict at all."""
    ids = sorted(state["cards"])
    odd = st.sampled_from(["", "x", 0, None, True, ["a"], {"a": "b"}])
    cards = state["cards"]  # a dict still: the field's bends leave it one
    where = draw(st.sampled_from(["key", "value", "subclass", "not a dict"]))
    if where == "key":
        cards[draw(st.sampled_from(["", 0, "new"]))] = "x"
    elif where == "value":
        cards[draw(st.sampled_from(ids))] = draw(odd)
    elif where == "subclass":  # a str subclass reads as the string it spells
        iid = draw(st.sampled_from(ids))
        cards[iid] = _Text(cards[iid])
    else:
        state["cards"] = draw(odd)


def answers(raw: dict[str, Any]) -> tuple[Any, ...]:
    """What the engine's public functions say of ``raw``: the checked state or the error, then the legal actions."""
    try:
        checked = check_state(CATALOG, copy.deepcopy(raw))
    except InvalidInput as exc:
        return (type(exc).__name__, exc.code, exc.errors)
    return (checked, *(legal_actions(CATALOG, copy.deepcopy(raw), player) for player in (None, 0, 1)))


@pytest.mark.parametrize("shortcut", SHORTCUTS, ids=lambda s: s.name.split(":")[0])
def test_given_a_shortcut_turned_off_then_its_careful_twin_stands_in_its_place_until_the_block_ends(shortcut):
    before = [getattr(owner, attr) for owner, attr, _ in shortcut.off]
    with shortcut.turned_off():
        assert [getattr(owner, attr) for owner, attr, _ in shortcut.off] == [c for _, _, c in shortcut.off]
    assert [getattr(owner, attr) for owner, attr, _ in shortcut.off] == before


@pytest.mark.parametrize("shortcut", SHORTCUTS, ids=lambda s: s.name.split(":")[0])
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=positions())
def test_given_any_position_when_a_shortcut_is_turned_off_then_the_engine_answers_alike(shortcut: Shortcut, raw):
    fast = answers(raw)
    with shortcut.turned_off():
        careful = answers(raw)
    assert fast == careful


def test_given_the_positions_then_they_reach_what_the_shortcuts_shortcut():
    """The property above is asked where it matters: refused and accepted positions, redispatches listed."""
    listed = {a["type"] for raw in POSITIONS for a in legal_actions(CATALOG, raw)}
    assert {"redispatch", "dispatch", "counter", "pass", "discard", "keep"} <= listed
