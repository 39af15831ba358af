"""The fast path of the state parser: one pass that accepts a well-formed state and copies it.

It returns ``None`` as soon as anything is unusual; ``state_parser.parse_state``
then gives the precise errors (or accepts a rare spelling, such as an empty
``options``). So this function may refuse more than the careful parser, never
less, and must return exactly what it would (tests/test_state_parsers.py).
"""

from __future__ import annotations

from typing import Any

from referee.engine.errors import InvalidInput
from referee.engine.schema import (
    PENDING_KEYS, PHASES, PLAYER_KEYS, RESULT_REASONS, RULESET, SCHEMA, STATE_KEYS, STEPS,
    STR_ONLY, WINDOW_MODES, is_id_list, parse_action, types_of,
)

_REQUIRED = STATE_KEYS - {"options", "modifiers", "used", "seal"}
_CASE_KEYS = {"card", "face_up", "actioned"}
_LINK_KEYS = {"card", "case"}
_PLAYER_REQUIRED = PLAYER_KEYS - {"name"}


def fast_parse_state(raw: Any) -> dict[str, Any] | None:
    if type(raw) is not dict or not raw.keys() <= STATE_KEYS or not _REQUIRED <= raw.keys():
        return None
    if raw["schema"] != SCHEMA or raw["ruleset"] != RULESET:
        return None
    ref = raw["catalog"]
    if type(ref) is not dict or ref.keys() != {"id", "digest"} or types_of(ref.values()) != STR_ONLY:
        return None
    options = raw.get("options", _AUTO)
    if type(options) is not dict or options.keys() != {"response_windows"} \
            or options["response_windows"] not in WINDOW_MODES:
        return None
    if not (type(raw["seed"]) is str and _nat(raw["rng"]) and _nat(raw["turn"])
            and raw["phase"] in PHASES and raw["step"] in STEPS and _player(raw["active"])
            and _player(raw["first_player"]) and type(raw["case_played"]) is bool):
        return None
    cards = raw["cards"]
    if type(cards) is not dict or not types_of(cards) | types_of(cards.values()) <= STR_ONLY or "" in cards:
        return None
    players = raw["players"]
    if type(players) is not list or len(players) != 2:
        return None
    out_players = [_player_state(p, i) for i, p in enumerate(players)]
    if None in out_players:
        return None
    pending = _pending(raw["pending"])
    result = _result(raw["result"])
    modifiers = _pairs(raw.get("modifiers", _NONE), "power")
    used = _pairs(raw.get("used", _NONE), "ability")
    if pending is False or result is False or modifiers is None or used is None:
        return None
    if any(u["ability"] < 0 for u in used):
        return None
    state = {
        "schema": SCHEMA, "ruleset": RULESET, "catalog": {"id": ref["id"], "digest": ref["digest"]},
        "options": {"response_windows": options["response_windows"]}, "seed": raw["seed"],
        "rng": raw["rng"], "turn": raw["turn"], "phase": raw["phase"], "step": raw["step"],
        "active": raw["active"], "first_player": raw["first_player"], "case_played": raw["case_played"],
        "pending": pending, "result": result, "cards": dict(cards), "players": out_players,
        "modifiers": modifiers, "used": used,
    }
    if "seal" in raw:
        if type(raw["seal"]) is not str:
            return None
        state["seal"] = raw["seal"]
    return state


_AUTO = {"response_windows": "auto"}
_NONE: list = []  # read only


def _nat(v: Any) -> bool:
    return type(v) is int and v >= 0


def _player(v: Any) -> bool:
    return type(v) is int and (v == 0 or v == 1)


def _id(v: Any) -> bool:
    return type(v) is str and v != ""


def _player_state(p: Any, i: int) -> dict[str, Any] | None:
    if type(p) is not dict or not p.keys() <= PLAYER_KEYS or not _PLAYER_REQUIRED <= p.keys():
        return None
    name = p.get("name", f"Player {i + 1}")
    if type(name) is not str or type(p["kept"]) is not bool:
        return None
    if not (is_id_list(p["file"]) and is_id_list(p["hand"]) and is_id_list(p["trash"])):
        return None
    cases, fairies, evidence = p["cases"], p["fairies"], p["evidence"]
    if type(cases) is not list or type(fairies) is not list or type(evidence) is not list:
        return None
    for e in cases:
        if type(e) is not dict or e.keys() != _CASE_KEYS or not _id(e["card"]) \
                or type(e["face_up"]) is not bool or type(e["actioned"]) is not bool:
            return None
    for e in fairies:
        if type(e) is not dict or e.keys() != _LINK_KEYS or not _id(e["card"]) \
                or not (e["case"] is None or _id(e["case"])):
            return None
    for e in evidence:
        if type(e) is not dict or e.keys() != _LINK_KEYS or not _id(e["card"]) or not _id(e["case"]):
            return None
    return {
        "name": name, "file": list(p["file"]), "hand": list(p["hand"]), "trash": list(p["trash"]),
        "cases": [{"card": e["card"], "face_up": e["face_up"], "actioned": e["actioned"]} for e in cases],
        "fairies": [{"card": e["card"], "case": e["case"]} for e in fairies],
        "evidence": [{"card": e["card"], "case": e["case"]} for e in evidence],
        "kept": p["kept"],
    }


def _pending(pen: Any) -> dict[str, Any] | None | bool:
    """The parsed pending action, None for none, False when unusual."""
    if pen is None:
        return None
    if type(pen) is not dict or not pen.keys() <= PENDING_KEYS or "action" not in pen:
        return False
    try:
        action = parse_action(pen["action"], "pending.action")
    except InvalidInput:
        return False
    responder, negated = pen.get("responder"), pen.get("negated", False)
    power, counters = pen.get("power", 0), pen.get("counters", [])
    if not _player(responder) or type(negated) is not bool or type(power) is not int \
            or not is_id_list(counters):
        return False
    return {"action": action, "responder": responder, "negated": negated, "power": power,
            "counters": list(counters)}


def _result(res: Any) -> dict[str, Any] | None | bool:
    if res is None:
        return None
    if type(res) is not dict or res.keys() != {"winner", "reason"} or not _player(res["winner"]) \
            or res["reason"] not in RESULT_REASONS:
        return False
    return {"winner": res["winner"], "reason": res["reason"]}


def _pairs(items: Any, number: str) -> list[dict[str, Any]] | None:
    """``modifiers`` ({card, power}) or ``used`` ({card, ability}) entries, copied."""
    if type(items) is not list:
        return None
    keys = {"card", number}
    out = []
    for m in items:
        if type(m) is not dict or m.keys() != keys or not _id(m["card"]) or type(m[number]) is not int:
            return None
        out.append({"card": m["card"], number: m[number]})
    return out
