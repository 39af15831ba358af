"""RULES 13.1: a well-formed state must also be a possible position.

Each check raises :class:`InconsistentState` with a specific ``code`` and the
path where it found the problem. The common case is kept cheap (set
comparisons), since every request runs it.
"""

from __future__ import annotations

from typing import Any

from referee.engine.catalog import Catalog
from referee.engine.errors import InconsistentState
from referee.engine.schema import DECK_SIZE, RESPONDABLE, other


def _fail(code: str, detail: str, path: str = "") -> InconsistentState:
    return InconsistentState(code, detail, path)


def check_consistency(catalog: Catalog, s: dict[str, Any]) -> None:
    if s["catalog"] != catalog.ref:
        raise _fail("catalog_mismatch",
                    f"the state was made with catalog {s['catalog']}, the referee has {catalog.ref}", "catalog")
    cards = s["cards"]
    used = set(cards.values())
    if not used <= catalog.game_card_ids:  # the common case costs one set comparison
        for iid, cid in cards.items():
            card = catalog.get(cid)
            if card is None:
                raise _fail("unknown_card", f"instance {iid} is {cid}, which is not in the catalog", f"cards.{iid}")
            if card.kind == "bonus":
                raise _fail("bonus_card_in_game", f"instance {iid} is the bonus card {cid} (RULES 3.3)",
                            f"cards.{iid}")
    _check_conservation(s)
    _check_zone_kinds(catalog, s)
    _check_references(catalog, s)
    _check_flow(s)
    _check_pending(catalog, s)
    _check_extras(catalog, s)


def _check_conservation(s: dict) -> None:
    cards = s["cards"]
    if len(cards) != 2 * DECK_SIZE:
        raise _fail("card_not_conserved", f"cards lists {len(cards)} instances; a game has {2 * DECK_SIZE}", "cards")
    seen: set[str] = set()
    for i, pl in enumerate(s["players"]):
        ids = [*pl["file"], *pl["hand"], *pl["trash"],
               *(e["card"] for e in pl["cases"]), *(e["card"] for e in pl["fairies"]),
               *(e["card"] for e in pl["evidence"])]
        if len(ids) != DECK_SIZE:
            raise _fail("card_not_conserved",
                        f"player {i}'s zones hold {len(ids)} cards; each player has exactly {DECK_SIZE}",
                        f"players.{i}")
        unique = set(ids)
        if len(unique) == DECK_SIZE and unique.isdisjoint(seen) and unique <= cards.keys():
            seen |= unique  # the common case; otherwise find the culprit below
            continue
        for iid in ids:
            if iid in seen:
                raise _fail("duplicate_card", f"instance {iid} is in more than one place", f"players.{i}")
            if iid not in cards:
                raise _fail("card_not_conserved", f"instance {iid} is not in cards", f"players.{i}")
            seen.add(iid)


_ZONE_KIND = {"cases": "case", "fairies": "fairy", "evidence": "evidence"}


def _check_zone_kinds(catalog: Catalog, s: dict) -> None:
    cards = s["cards"]
    for i, pl in enumerate(s["players"]):
        for zone, kind in _ZONE_KIND.items():
            for j, e in enumerate(pl[zone]):
                if catalog[cards[e["card"]]].kind != kind:
                    raise _fail("wrong_zone_kind", f"{e['card']} in {zone} is not a {kind} card",
                                f"players.{i}.{zone}.{j}")


def _check_references(catalog: Catalog, s: dict) -> None:
    in_play = {e["card"] for pl in s["players"] for e in pl["cases"]}
    per_case: dict[tuple[int, str], int] = {}
    for i, pl in enumerate(s["players"]):
        for j, f in enumerate(pl["fairies"]):
            if f["case"] is None:
                continue
            if f["case"] not in in_play:
                raise _fail("dangling_reference", f"fairy {f['card']} is dispatched to {f['case']}, which is not a case in play",
                            f"players.{i}.fairies.{j}.case")
            key = (i, f["case"])
            per_case[key] = per_case.get(key, 0) + 1
        for j, e in enumerate(pl["evidence"]):
            if e["case"] not in in_play:
                raise _fail("dangling_reference", f"evidence {e['card']} is attached to {e['case']}, which is not a case in play",
                            f"players.{i}.evidence.{j}.case")
    for (i, case), count in per_case.items():
        limit = catalog[s["cards"][case]].dispatch_limit
        if count > limit:
            raise _fail("dispatch_limit_exceeded",
                        f"player {i} has {count} fairies on case {case}; its limit is {limit} (RULES 8.9)",
                        f"players.{i}.fairies")


def _check_flow(s: dict) -> None:
    phase, step, active, players = s["phase"], s["step"], s["active"], s["players"]
    if (phase == "over") != (s["result"] is not None):
        raise _fail("inconsistent_result", "result is set exactly when phase is over", "result")
    if phase == "mulligan":
        if step != "mulligan" or s["turn"] != 0:
            raise _fail("inconsistent_phase", "the mulligan phase has step mulligan and turn 0", "step")
        first = s["first_player"]
        deciding = first if not players[first]["kept"] else other(first)
        if players[deciding]["kept"] or active != deciding:
            raise _fail("inconsistent_turn",
                        f"in the mulligan phase player {deciding} decides (first player first, RULES 5.4)", "active")
        if s["case_played"] or s["pending"] is not None:
            raise _fail("inconsistent_phase", "no case or pending action in the mulligan phase", "phase")
        return
    if step == "mulligan" and phase == "turn":
        raise _fail("inconsistent_phase", "step mulligan belongs to the mulligan phase", "step")
    if phase == "over" and s["turn"] == 0:
        return  # lost in the mulligan (RULES 5.5)
    if s["turn"] < 1 or not all(p["kept"] for p in players):
        raise _fail("inconsistent_turn", "turns start at 1, after both players kept", "turn")
    expected = s["first_player"] if s["turn"] % 2 == 1 else other(s["first_player"])
    if active != expected:
        raise _fail("inconsistent_turn", f"turn {s['turn']} is player {expected}'s", "active")
    if phase == "over":
        if s["pending"] is not None:
            raise _fail("inconsistent_pending", "a finished game has no pending action", "pending")
        return
    if step == "end" and (len(players[active]["hand"]) <= 7 or s["pending"] is not None):
        raise _fail("inconsistent_step", "step end means the active player owes discards (hand over 7)", "step")
    if step == "case" and s["case_played"] and not (s["pending"] and s["pending"]["action"]["type"] == "play_case"):
        raise _fail("inconsistent_step", "a case was played this turn, so the case step is over", "case_played")


def _check_pending(catalog: Catalog, s: dict) -> None:
    pen = s["pending"]
    if pen is None:
        return
    act = pen["action"]
    active = s["active"]
    if s["phase"] != "turn" or act["type"] not in RESPONDABLE:
        raise _fail("inconsistent_pending", "only a respondable action of a turn can be pending", "pending.action")
    if act["player"] != active or pen["responder"] != other(active):
        raise _fail("inconsistent_pending", "the active player declares; the opponent responds", "pending")
    want_step = "case" if act["type"] == "play_case" else "main"
    if s["step"] != want_step:
        raise _fail("inconsistent_pending", f"a pending {act['type']} belongs to the {want_step} step", "step")
    if act["type"] == "play_case" and not s["case_played"]:
        raise _fail("inconsistent_pending", "a pending play_case sets case_played", "case_played")
    cards = s["cards"]
    for name in ("card", "case", "fairy"):
        if name in act and act[name] not in cards:
            raise _fail("dangling_reference", f"the pending action names unknown card {act[name]}", f"pending.action.{name}")
    for iid in [*act.get("targets", []), *act.get("pay", []), *pen["counters"]]:
        if iid not in cards:
            raise _fail("dangling_reference", f"the pending action names unknown card {iid}", "pending")
    if act["type"] in _PLAYED_KIND:
        if act["card"] not in s["players"][active]["hand"]:
            raise _fail("inconsistent_pending", f"the card being played ({act['card']}) stays in hand until it resolves",
                        "pending.action.card")
        kind = _PLAYED_KIND[act["type"]]
        if catalog[cards[act["card"]]].kind != kind:  # it could never have been declared (6.4, 8.3, 8.4, 9.2)
            raise _fail("inconsistent_pending", f"a pending {act['type']} names {act['card']}, which is not a {kind} card",
                        "pending.action.card")
    if act["type"] == "use_ability" and act["ability"] >= len(catalog[cards[act["card"]]].abilities):
        raise _fail("inconsistent_pending", f"card {act['card']} has no ability {act['ability']} (RULES 9.1)",
                    "pending.action.ability")


# The card a pending action plays, by action type: it must be of this kind.
_PLAYED_KIND = {"play_case": "case", "play_fairy": "fairy", "play_evidence": "evidence", "cast_spell": "spell"}


def _check_extras(catalog: Catalog, s: dict) -> None:
    on_field = {e["card"] for pl in s["players"] for z in ("fairies", "evidence") for e in pl[z]}
    for j, m in enumerate(s["modifiers"]):
        if m["card"] not in on_field:
            raise _fail("dangling_reference", f"modifier on {m['card']}, which is not a fairy or evidence on the field",
                        f"modifiers.{j}")
    seen = set()
    for j, u in enumerate(s["used"]):
        key = (u["card"], u["ability"])
        if u["card"] not in s["cards"] or key in seen:
            raise _fail("inconsistent_used", f"used entry {u} names an unknown card or repeats", f"used.{j}")
        abilities = catalog[s["cards"][u["card"]]].abilities
        if u["ability"] >= len(abilities):
            raise _fail("inconsistent_used", f"card {u['card']} has no ability {u['ability']}", f"used.{j}")
        seen.add(key)


