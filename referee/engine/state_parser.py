"""The careful state parser: every shape error of a state, each with its field path.

``state.check_state`` tries a fast path first and comes here only to explain
what is wrong (or for the rare shapes the fast path does not take), so the
two must accept exactly the same states (a hypothesis test checks it).
"""

from __future__ import annotations

from typing import Any

from referee.engine.errors import InvalidInput
from referee.engine.schema import (
    PHASES, RESULT_REASONS, RULESET, SCHEMA, STEPS, WINDOW_MODES, STATE_KEYS, PLAYER_KEYS,
    PENDING_KEYS, STR_ONLY, is_id, is_id_list, is_int, is_player, types_of, parse_action,
)


def parse_state(raw: Any) -> dict[str, Any]:
    p = _Parser()
    if not isinstance(raw, dict):
        raise InvalidInput({"": ["must be an object"]})
    for name in sorted(set(raw) - STATE_KEYS):
        p.err(name, "unknown field")
    s: dict[str, Any] = {}
    s["schema"] = p.const(raw, "schema", SCHEMA)
    s["ruleset"] = p.const(raw, "ruleset", RULESET)
    s["catalog"] = p.catalog_ref(raw)
    s["options"] = p.options(raw)
    s["seed"] = p.string(raw, "seed")
    s["rng"] = p.integer(raw, "rng", 0)
    s["turn"] = p.integer(raw, "turn", 0)
    s["phase"] = p.choice(raw, "phase", PHASES)
    s["step"] = p.choice(raw, "step", STEPS)
    s["active"] = p.player(raw, "active")
    s["first_player"] = p.player(raw, "first_player")
    s["case_played"] = p.boolean(raw, "case_played")
    s["pending"] = p.pending(raw)
    s["result"] = p.result(raw)
    s["cards"] = p.cards(raw)
    s["players"] = p.players(raw)
    s["modifiers"] = p.modifiers(raw)
    s["used"] = p.used(raw)
    if "seal" in raw:
        s["seal"] = p.string(raw, "seal")
    if p.errors:
        raise InvalidInput(p.errors)
    return s



class _Parser:
    """Reads one state, collecting every shape error with its path."""

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}

    def err(self, path: str, msg: str) -> None:
        self.errors.setdefault(path, []).append(msg)

    def _get(self, obj: dict, key: str, path: str) -> Any:
        if key not in obj:
            self.err(path, "missing")
            return None
        return obj[key]

    def const(self, obj: dict, key: str, value: str) -> str:
        got = self._get(obj, key, key)
        if key in obj and got != value:
            self.err(key, f"must be {value!r}")
        return value

    def string(self, obj: dict, key: str, path: str | None = None) -> Any:
        got = self._get(obj, key, path or key)
        if key in obj and not isinstance(got, str):
            self.err(path or key, "must be a string")
        return got

    def integer(self, obj: dict, key: str, low: int, path: str | None = None) -> Any:
        got = self._get(obj, key, path or key)
        if key in obj and (not is_int(got) or got < low):
            self.err(path or key, f"must be an integer ≥ {low}")
        return got

    def boolean(self, obj: dict, key: str, path: str | None = None, default: Any = ...) -> Any:
        if default is not ... and key not in obj:
            return default
        got = self._get(obj, key, path or key)
        if key in obj and not isinstance(got, bool):
            self.err(path or key, "must be true or false")
        return got

    def choice(self, obj: dict, key: str, options: tuple[str, ...], path: str | None = None) -> Any:
        got = self._get(obj, key, path or key)
        if key in obj and got not in options:
            self.err(path or key, f"must be one of {', '.join(options)}")
        return got

    def player(self, obj: dict, key: str, path: str | None = None) -> Any:
        got = self._get(obj, key, path or key)
        if key in obj and not is_player(got):
            self.err(path or key, "must be 0 or 1")
        return got

    def catalog_ref(self, raw: dict) -> Any:
        ref = self._get(raw, "catalog", "catalog")
        if "catalog" not in raw:
            return None
        if not isinstance(ref, dict) or set(ref) != {"id", "digest"} or not all(
                isinstance(v, str) for v in ref.values()):
            self.err("catalog", "must be an object with string fields id and digest")
            return None
        return {"id": ref["id"], "digest": ref["digest"]}

    def options(self, raw: dict) -> dict:
        opts = raw.get("options", {"response_windows": "auto"})
        if not isinstance(opts, dict) or set(opts) - {"response_windows"}:
            self.err("options", "must be an object with only response_windows")
            return {"response_windows": "auto"}
        mode = opts.get("response_windows", "auto")
        if mode not in WINDOW_MODES:
            self.err("options.response_windows", "must be auto or strict")
        return {"response_windows": mode}

    def result(self, raw: dict) -> Any:
        res = self._get(raw, "result", "result")
        if res is None:
            return None
        if not isinstance(res, dict) or set(res) != {"winner", "reason"}:
            self.err("result", "must be null or an object with winner and reason")
            return None
        self.player(res, "winner", "result.winner")
        self.choice(res, "reason", RESULT_REASONS, "result.reason")
        return {"winner": res["winner"], "reason": res["reason"]}

    def pending(self, raw: dict) -> Any:
        pen = self._get(raw, "pending", "pending")
        if pen is None:
            return None
        if not isinstance(pen, dict):
            self.err("pending", "must be null or an object")
            return None
        for name in sorted(set(pen) - PENDING_KEYS):
            self.err(f"pending.{name}", "unknown field")
        out: dict[str, Any] = {}
        try:
            out["action"] = parse_action(pen.get("action"), "pending.action")
        except InvalidInput as exc:
            for path, msgs in exc.errors.items():
                self.errors.setdefault(path, []).extend(msgs)
        out["responder"] = self.player(pen, "responder", "pending.responder")
        out["negated"] = self.boolean(pen, "negated", "pending.negated", default=False)
        power = pen.get("power", 0)
        if not is_int(power):
            self.err("pending.power", "must be an integer")
        out["power"] = power
        counters = pen.get("counters", [])
        if not is_id_list(counters):
            self.err("pending.counters", "must be a list of card instance ids")
            counters = []
        out["counters"] = list(counters)
        return out

    def cards(self, raw: dict) -> dict:
        cards = self._get(raw, "cards", "cards")
        if not isinstance(cards, dict):
            if "cards" in raw:
                self.err("cards", "must be an object mapping instance ids to catalog ids")
            return {}
        if not types_of(cards) | types_of(cards.values()) <= STR_ONLY or "" in cards:  # only then look closer
            for key, value in cards.items():
                if not isinstance(key, str) or not key or not isinstance(value, str):
                    self.err(f"cards.{key}", "must map a non-empty instance id to a catalog id string")
        return dict(cards)

    def players(self, raw: dict) -> list:
        players = self._get(raw, "players", "players")
        if not isinstance(players, list) or len(players) != 2:
            if "players" in raw:
                self.err("players", "must be a list of exactly 2 players (RULES 1.1)")
            return []
        return [self.player_state(p, i) for i, p in enumerate(players)]

    def player_state(self, raw: Any, i: int) -> dict:
        path = f"players.{i}"
        if not isinstance(raw, dict):
            self.err(path, "must be an object")
            return {}
        for name in sorted(set(raw) - PLAYER_KEYS):
            self.err(f"{path}.{name}", "unknown field")
        name = raw.get("name", f"Player {i + 1}")
        if not isinstance(name, str):
            self.err(f"{path}.name", "must be a string")
        out = {"name": name}
        for zone in ("file", "hand", "trash"):
            value = self._get(raw, zone, f"{path}.{zone}")
            if zone in raw and not is_id_list(value):
                self.err(f"{path}.{zone}", "must be a list of card instance ids")
                value = []
            out[zone] = list(value or [])
        out["cases"] = self.entries(raw, "cases", path, self.case_entry)
        out["fairies"] = self.entries(raw, "fairies", path, self.fairy_entry)
        out["evidence"] = self.entries(raw, "evidence", path, self.evidence_entry)
        out["kept"] = self.boolean(raw, "kept", f"{path}.kept")
        return out

    def entries(self, raw: dict, zone: str, path: str, read) -> list:
        value = self._get(raw, zone, f"{path}.{zone}")
        if zone in raw and not isinstance(value, list):
            self.err(f"{path}.{zone}", "must be a list")
            return []
        return [read(e, f"{path}.{zone}.{j}") for j, e in enumerate(value or [])]

    def _entry(self, raw: Any, path: str, keys: frozenset) -> bool:
        if not isinstance(raw, dict):
            self.err(path, "must be an object")
            return False
        for name in sorted(set(raw) - keys):
            self.err(f"{path}.{name}", "unknown field")
        if not is_id(raw.get("card")):
            self.err(f"{path}.card", "must be a card instance id")
        return True

    def case_entry(self, raw: Any, path: str) -> dict:
        if not self._entry(raw, path, frozenset(("card", "face_up", "actioned"))):
            return {"card": None, "face_up": False, "actioned": False}
        return {"card": raw.get("card"),
                "face_up": self.boolean(raw, "face_up", f"{path}.face_up"),
                "actioned": self.boolean(raw, "actioned", f"{path}.actioned")}

    def fairy_entry(self, raw: Any, path: str) -> dict:
        if not self._entry(raw, path, frozenset(("card", "case"))):
            return {"card": None, "case": None}
        case = raw.get("case")
        if "case" not in raw:
            self.err(f"{path}.case", "missing (null for standby)")
        elif case is not None and not is_id(case):
            self.err(f"{path}.case", "must be null or a case instance id")
        return {"card": raw.get("card"), "case": case}

    def evidence_entry(self, raw: Any, path: str) -> dict:
        if not self._entry(raw, path, frozenset(("card", "case"))):
            return {"card": None, "case": None}
        if not is_id(raw.get("case")):
            self.err(f"{path}.case", "must be a case instance id")
        return {"card": raw.get("card"), "case": raw.get("case")}

    def modifiers(self, raw: dict) -> list:
        mods = raw.get("modifiers", [])
        if not isinstance(mods, list):
            self.err("modifiers", "must be a list")
            return []
        for j, m in enumerate(mods):
            if not (isinstance(m, dict) and set(m) == {"card", "power"}
                    and is_id(m["card"]) and is_int(m["power"])):
                self.err(f"modifiers.{j}", "must be an object {card: id, power: integer}")
        return [dict(m) for m in mods if isinstance(m, dict)]

    def used(self, raw: dict) -> list:
        used = raw.get("used", [])
        if not isinstance(used, list):
            self.err("used", "must be a list")
            return []
        for j, u in enumerate(used):
            if not (isinstance(u, dict) and set(u) == {"card", "ability"}
                    and is_id(u["card"]) and is_int(u["ability"]) and u["ability"] >= 0):
                self.err(f"used.{j}", "must be an object {card: id, ability: index}")
        return [dict(u) for u in used if isinstance(u, dict)]


