"""RULES 13.1: a well-formed state must also be a possible position.

Each check raises :class:`InconsistentState` with a specific ``code`` and the
path where it found the problem; docs/state.md lists every code. Beyond
cards, zones and references, "consistent" covers what the rules make
impossible (13.1's list, and more of its kind): a pending action that could
never have been declared, paid or countered as the state claims (7, 9.3–9.5,
10.2), a result the state does not bear out (5.5, 11.1), anything on the
field before turn 1 (5.6). The common case is kept cheap (set comparisons,
and the pending checks of ``pending_consistency.py`` only while a window is
open), since every request runs it.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, cast

from referee.engine.catalog import Catalog
from referee.engine.errors import InconsistentState as _fail  # (code, detail, path): what each check raises
from referee.engine.facts import (
    CLOCK_TIME_MAX,
    DECK_SIZE,
    HAND_LIMIT,
    OPENING_HAND,
    PLAYERS,
    Phase,
    Reason,
    Step,
    majority,
    other,
)
from referee.engine.flow import deciding, turn_player
from referee.engine.pending_consistency import check_pending
from referee.engine.registry import rule
from referee.engine.state_types import FieldZone, StateDict

# The enum members this module compares with, bound once: reading one through its class is an
# attribute lookup of the enum's metaclass on every read.
_MULLIGAN_PHASE = Phase.MULLIGAN
_OVER = Phase.OVER
_TURN = Phase.TURN
_DECK_OUT = Reason.DECK_OUT
_TIME = Reason.TIME
_CASE = Step.CASE
_END = Step.END
_MULLIGAN_STEP = Step.MULLIGAN


@rule("13.1")
def check_consistency(catalog: Catalog, state: dict[str, Any] | StateDict) -> None:
    s = cast(StateDict, state)  # read by the model: its shape is the working state's
    if s["catalog"] != catalog.ref_to_compare:
        raise _fail(
            "catalog_mismatch",
            f"the state was made with catalog {s['catalog']}, the referee has {catalog.ref}",
            "catalog",
        )
    played = s.get("format")
    if played is not None:
        _check_format(catalog, played["id"], played["revision"])
    if not _cards_and_field_are_sound(catalog, s):  # the common case: one pass; else find the culprit carefully
        _check_cards(catalog, s)
        _check_conservation(s)
        _check_zone_kinds(catalog, s)
        _check_references(catalog, s)
    _check_flow(s)
    if s["turn"] == 0:
        _check_before_turn_one(s)
    if s["result"] is not None:
        _check_result(s)
    if s["pending"] is not None:
        check_pending(catalog, s)
    if s["modifiers"]:
        _check_modifiers(s)
    if s["used"]:
        _check_used(catalog, s)
    if s["clock"] is not None:
        _check_clock(s)
    if s["match"] is not None:
        _check_match(s)


_card, _case = itemgetter("card"), itemgetter("case")


def _check_format(catalog: Catalog, fid: str, revision: str) -> None:
    """The state's format (RULES 3.9) is one of the catalog's, at one of its revisions (docs/api.md §13)."""
    fmt = catalog.formats.get(fid)
    if fmt is None or fmt.revision(revision) is None:
        raise _fail(
            "format_not_in_catalog",
            f"the state's format {fid} (revision {revision}) is not one of catalog {catalog.id}'s",
            "format",
        )


def _cards_and_field_are_sound(catalog: Catalog, s: StateDict) -> bool:
    """The four checks below hold (every card a game card of the catalog, conservation, zone kinds,
    references): ``True`` only when each of them would pass, so ``False`` just means "run them to
    find the problem".

    Set operations in C over per-catalog tables (``Catalog.game_card_ids``, ``ids_of_kind``)
    instead of per-card loops: a shortcut of ``shortcuts.py``, held to the four by ``tests/test_shortcuts.py``.
    """
    cards, (p0, p1) = s["cards"], s["players"]
    cases0, fairies0, evidence0 = p0["cases"], p0["fairies"], p0["evidence"]
    cases1, fairies1, evidence1 = p1["cases"], p1["fairies"], p1["evidence"]
    held0, held1 = [*p0["file"], *p0["hand"], *p0["trash"]], [*p1["file"], *p1["hand"], *p1["trash"]]
    if (
        len(held0) + len(cases0) + len(fairies0) + len(evidence0) != DECK_SIZE
        or len(held1) + len(cases1) + len(fairies1) + len(evidence1) != DECK_SIZE
        or len(cards) != PLAYERS * DECK_SIZE
    ):
        return False
    in_play = [*map(_card, cases0), *map(_card, cases1)]
    # Each instance placed takes its entry from a copy of cards: once (KeyError: placed twice, or
    # not in cards), and with 80 placed, every one. What it takes is its catalog id, checked at
    # once against the zone it came from: a game card in file, hand and trash, its kind on the field.
    of_kind, take = catalog.ids_of_kind, cards.copy().pop
    try:
        if not (
            catalog.game_card_ids.issuperset(map(take, [*held0, *held1]))
            and of_kind["case"].issuperset(map(take, in_play))
            and of_kind["fairy"].issuperset(map(take, [*map(_card, fairies0), *map(_card, fairies1)]))
            and of_kind["evidence"].issuperset(map(take, [*map(_card, evidence0), *map(_card, evidence1)]))
        ):
            return False
    except KeyError:
        return False
    dispatched0, dispatched1 = [*filter(None, map(_case, fairies0))], [*filter(None, map(_case, fairies1))]
    cases = {*in_play}  # ids are non-empty, so filter(None) drops exactly the standby fairies' None
    if not cases.issuperset([*map(_case, evidence0), *map(_case, evidence1), *dispatched0, *dispatched1]):
        return False
    if len({*dispatched0}) == len(dispatched0) and len({*dispatched1}) == len(dispatched1):
        return True  # one fairy per case and player, and every case takes one (the catalog refuses a limit below 1)
    return _within_limits(catalog, cards, dispatched0) and _within_limits(catalog, cards, dispatched1)


def _within_limits(catalog: Catalog, cards: dict[str, Any], dispatched: list[str]) -> bool:
    """One player's fairies dispatched to each case are within its limit (RULES 8.9)."""
    return all(dispatched.count(case) <= catalog.cards[cards[case]].dispatch_limit for case in {*dispatched})


def _check_cards(catalog: Catalog, s: StateDict) -> None:
    """RULES 3.3, 3.4: every instance is a game card of the catalog."""
    for iid, cid in s["cards"].items():
        card = catalog.get(cid)
        if card is None:
            raise _fail("unknown_card", f"instance {iid} is {cid}, which is not in the catalog", f"cards.{iid}")
        if card.kind == "bonus":
            raise _fail("bonus_card_in_game", f"instance {iid} is the bonus card {cid} (RULES 3.3)", f"cards.{iid}")


def _check_conservation(s: StateDict) -> None:
    cards = s["cards"]
    if len(cards) != PLAYERS * DECK_SIZE:
        raise _fail(
            "card_not_conserved", f"cards lists {len(cards)} instances; a game has {PLAYERS * DECK_SIZE}", "cards"
        )
    seen: set[str] = set()
    for i, pl in enumerate(s["players"]):
        ids = [
            *pl["file"],
            *pl["hand"],
            *pl["trash"],
            *(e["card"] for e in pl["cases"]),
            *(e["card"] for e in pl["fairies"]),
            *(e["card"] for e in pl["evidence"]),
        ]
        if len(ids) != DECK_SIZE:
            raise _fail(
                "card_not_conserved",
                f"player {i}'s zones hold {len(ids)} cards; each player has exactly {DECK_SIZE}",
                f"players.{i}",
            )
        for iid in ids:
            if iid in seen:
                raise _fail("duplicate_card", f"instance {iid} is in more than one place", f"players.{i}")
            if iid not in cards:
                raise _fail("card_not_conserved", f"instance {iid} is not in cards", f"players.{i}")
            seen.add(iid)


_ZONE_KIND: dict[FieldZone, str] = {"cases": "case", "fairies": "fairy", "evidence": "evidence"}


def _check_zone_kinds(catalog: Catalog, s: StateDict) -> None:
    cards = s["cards"]
    for i, pl in enumerate(s["players"]):
        for zone, kind in _ZONE_KIND.items():
            for j, e in enumerate(pl[zone]):
                if catalog[cards[e["card"]]].kind != kind:
                    raise _fail(
                        "wrong_zone_kind", f"{e['card']} in {zone} is not a {kind} card", f"players.{i}.{zone}.{j}"
                    )


def _check_references(catalog: Catalog, s: StateDict) -> None:
    in_play = {e["card"] for pl in s["players"] for e in pl["cases"]}
    per_case: dict[tuple[int, str], int] = {}
    for i, pl in enumerate(s["players"]):
        for j, f in enumerate(pl["fairies"]):
            if f["case"] is None:
                continue
            if f["case"] not in in_play:
                raise _fail(
                    "dangling_reference",
                    f"fairy {f['card']} is dispatched to {f['case']}, which is not a case in play",
                    f"players.{i}.fairies.{j}.case",
                )
            key = (i, f["case"])
            per_case[key] = per_case.get(key, 0) + 1
        for j, e in enumerate(pl["evidence"]):
            if e["case"] not in in_play:
                raise _fail(
                    "dangling_reference",
                    f"evidence {e['card']} is attached to {e['case']}, which is not a case in play",
                    f"players.{i}.evidence.{j}.case",
                )
    for (i, case), count in per_case.items():
        limit = catalog[s["cards"][case]].dispatch_limit
        if count > limit:
            raise _fail(
                "dispatch_limit_exceeded",
                f"player {i} has {count} fairies on case {case}; its limit is {limit} (RULES 8.9)",
                f"players.{i}.fairies",
            )


def _check_flow(s: StateDict) -> None:
    phase, step, active, players = s["phase"], s["step"], s["active"], s["players"]
    if (phase == _OVER) != (s["result"] is not None):
        raise _fail("inconsistent_result", "result is set exactly when phase is over", "result")
    if phase == _MULLIGAN_PHASE:
        if step != _MULLIGAN_STEP or s["turn"] != 0:
            raise _fail("inconsistent_phase", "the mulligan phase has step mulligan and turn 0", "step")
        first = s["first_player"]
        decides = deciding(first, players[first]["kept"])
        if players[decides]["kept"] or active != decides:
            raise _fail(
                "inconsistent_turn",
                f"in the mulligan phase player {decides} decides (first player first, RULES 5.4)",
                "active",
            )
        if s["case_played"] or s["pending"] is not None:
            raise _fail("inconsistent_phase", "no case or pending action in the mulligan phase", "phase")
        return
    if step == _MULLIGAN_STEP and phase == _TURN:
        raise _fail("inconsistent_phase", "step mulligan belongs to the mulligan phase", "step")
    if phase == _OVER and s["turn"] == 0:
        return  # lost in the mulligan (RULES 5.5)
    if s["turn"] < 1 or not (players[0]["kept"] and players[1]["kept"]):
        raise _fail("inconsistent_turn", "turns start at 1, after both players kept", "turn")
    expected = turn_player(s["turn"], s["first_player"])
    if active != expected:
        raise _fail("inconsistent_turn", f"turn {s['turn']} is player {expected}'s", "active")
    if phase == _OVER:
        if s["pending"] is not None:
            raise _fail("inconsistent_pending", "a finished game has no pending action", "pending")
        return
    if step == _END and (len(players[active]["hand"]) <= HAND_LIMIT or s["pending"] is not None):
        raise _fail(
            "inconsistent_step", f"step end means the active player owes discards (hand over {HAND_LIMIT})", "step"
        )
    if step == _CASE and s["case_played"] and not (s["pending"] and s["pending"]["action"]["type"] == "play_case"):
        raise _fail("inconsistent_step", "a case was played this turn, so the case step is over", "case_played")


def _check_before_turn_one(s: StateDict) -> None:
    """RULES 5.3–5.6: nothing is on the field before turn 1; while deciding, each hand holds 7 (turn 0 only)."""
    for i, pl in enumerate(s["players"]):
        if pl["cases"] or pl["fairies"] or pl["evidence"]:  # RULES 5.6: cards are played from turn 1
            raise _fail(
                "field_in_mulligan", f"player {i} has cards on the field before turn 1 (RULES 5.6)", f"players.{i}"
            )
        # RULES 5.3, 5.4: a mulligan draws 7 again (once lost, 5.5, the hand is what the file gave).
        # The trash is left free, so a position may pose any file size to a mulligan.
        if s["phase"] == _MULLIGAN_PHASE and len(pl["hand"]) != OPENING_HAND:
            raise _fail(
                "mulligan_hand_size",
                f"player {i} holds {len(pl['hand'])} cards in the mulligan phase; "
                f"every hand there is {OPENING_HAND} (RULES 5.3, 5.4)",
                f"players.{i}.hand",
            )


def _check_result(s: StateDict) -> None:
    """RULES 11.1 / 5.5: a game lost by deck-out was lost drawing from an empty file."""
    res = s["result"]
    assert res is not None  # called only for a finished game
    if res["reason"] == _TIME:  # RULES 11.5: claimed when the loser's time had run out
        clock = s["clock"]
        if clock is None or clock["remaining"][other(res["winner"])] != 0:
            raise _fail(
                "result_does_not_match",
                f"a game won on time needs a clock on which player {other(res['winner'])}'s time is 0 (RULES 11.5)",
                "result",
            )
        return
    if res["reason"] != _DECK_OUT:
        return  # a concession (11.2) fits any state
    loser = other(res["winner"])
    pl = s["players"][loser]
    if pl["file"]:
        raise _fail(
            "deck_out_with_cards_in_file",
            f"player {loser} lost by deck-out but has {len(pl['file'])} cards in the file (RULES 11.1)",
            "result",
        )
    if s["turn"] == 0 and (pl["kept"] or len(pl["hand"]) >= OPENING_HAND):
        held = "kept" if pl["kept"] else f"holds {len(pl['hand'])} cards"
        raise _fail(
            "result_does_not_match",
            f"a deck-out before turn 1 is a mulligan that could not draw {OPENING_HAND} (RULES 5.5), "
            f"but player {loser} {held}",
            "result",
        )


def _check_clock(s: StateDict) -> None:
    """docs/api.md §15: the last move's time, from the deal's, is a time RFC 3339 can write (year 9999 at most)."""
    clock = s["clock"]
    assert clock is not None
    if clock["started"] + clock["last"] > CLOCK_TIME_MAX:
        raise _fail(
            "inconsistent_clock", f"clock.started + clock.last is past {CLOCK_TIME_MAX} (year 9999)", "clock.last"
        )


def _check_match(s: StateDict) -> None:
    """RULES 14.1, 14.3: the wins count the games played before this one (and this one once it is over),
    nobody past a majority, and the match's winner is whoever reached it."""
    match = s["match"]
    assert match is not None
    need, wins = majority(match["best_of"]), match["wins"]
    played = match["game"] - (0 if s["phase"] == _OVER else 1)
    reached = [i for i in (0, 1) if wins[i] == need]
    if sum(wins) != played or max(wins) > need or match["game"] > match["best_of"]:
        raise _fail(
            "inconsistent_match",
            f"game {match['game']} of a best of {match['best_of']} cannot follow {sum(wins)} games won "
            f"{wins[0]}–{wins[1]} (RULES 14.1)",
            "match.wins",
        )
    if (reached[0] if reached else None) != match["winner"] or (reached and played != match["game"]):
        raise _fail(
            "inconsistent_match",
            "the match's winner is the player who won a majority, in its last game (RULES 14.3)",
            "match.winner",
        )
    if s["result"] is not None and s["phase"] == _OVER and wins[s["result"]["winner"]] == 0:
        raise _fail("inconsistent_match", "the game's winner has won no game of the match", "match.wins")


def _check_modifiers(s: StateDict) -> None:
    on_field = {e["card"] for pl in s["players"] for z in ("fairies", "evidence") for e in pl[z]}
    for j, m in enumerate(s["modifiers"]):
        if m["card"] not in on_field:
            raise _fail(
                "dangling_reference",
                f"modifier on {m['card']}, which is not a fairy or evidence on the field",
                f"modifiers.{j}",
            )


def _check_used(catalog: Catalog, s: StateDict) -> None:
    """RULES 9.1: ``used`` lists once-per-turn abilities the active player used this turn."""
    if s["turn"] == 0:
        raise _fail("inconsistent_used", "no ability is used before turn 1", "used")
    active = s["players"][s["active"]]
    theirs = {*active["hand"], *active["trash"], *(e["card"] for z in ("fairies", "evidence") for e in active[z])}
    seen = set()
    for j, u in enumerate(s["used"]):
        key = (u["card"], u["ability"])
        if u["card"] not in s["cards"] or key in seen:
            raise _fail("inconsistent_used", f"used entry {u} names an unknown card or repeats", f"used.{j}")
        abilities = catalog[s["cards"][u["card"]]].abilities
        if u["ability"] >= len(abilities):
            raise _fail("inconsistent_used", f"card {u['card']} has no ability {u['ability']}", f"used.{j}")
        if not abilities[u["ability"]].once_per_turn or u["card"] not in theirs:
            raise _fail(
                "inconsistent_used",
                f"used lists only once-per-turn abilities of player {s['active']}'s cards, this turn; "
                f"not ability {u['ability']} of {u['card']}",
                f"used.{j}",
            )
        seen.add(key)
