"""The state: its strict parser and the consistency check of RULES 13.1.

:func:`check_state` is the one gate every state passes before anything else.
It checks the shape (API.md §3 plus the optional fields of docs/state.md),
then consistency, and returns a *new* state with defaults filled in: the
working copy the rules then mutate, so the caller's dict is never touched.

Shape errors raise :class:`InvalidInput` with field paths
(``players.0.hand.3``); a well-formed but impossible position raises
:class:`InconsistentState` with a specific ``code``.
"""

from __future__ import annotations

from typing import Any

from referee.engine.catalog import Catalog
from referee.engine.errors import InconsistentState, InvalidInput

SCHEMA = "ace-file/state@1"
RULESET = "ace-file-99"
DECK_SIZE = 40
PHASES = ("mulligan", "turn", "over")
STEPS = ("mulligan", "case", "main", "end")
WINDOW_MODES = ("auto", "strict")
RESULT_REASONS = ("deck_out", "concede")

# API.md §6: the fields each action type takes (besides type, player, pay).
ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "mulligan": (),
    "keep": (),
    "play_case": ("card",),
    "skip_case": (),
    "draw": (),
    "play_fairy": ("card",),
    "play_evidence": ("card", "case"),
    "dispatch": ("fairy", "case"),
    "redispatch": ("fairy", "case"),
    "recall": ("fairy",),
    "investigate": ("case",),
    "use_ability": ("card", "ability", "targets"),
    "cast_spell": ("card", "targets"),
    "counter": ("card", "targets"),
    "pass": (),
    "end_turn": (),
    "discard": ("cards",),
    "concede": (),
}
ACTION_TYPES = tuple(ACTION_FIELDS)
# RULES 9.4: the actions that open a response window when declared.
RESPONDABLE = (
    "play_case", "draw", "play_fairy", "play_evidence", "dispatch",
    "redispatch", "recall", "investigate", "use_ability", "cast_spell",
)
_ID_FIELDS = ("card", "case", "fairy")
_STATE_KEYS = frozenset((
    "schema", "ruleset", "catalog", "options", "seed", "rng", "turn", "phase",
    "step", "active", "first_player", "case_played", "pending", "result",
    "cards", "players", "modifiers", "used", "seal",
))
_PLAYER_KEYS = frozenset(("name", "file", "hand", "trash", "cases", "fairies", "evidence", "kept"))
_PENDING_KEYS = frozenset(("action", "responder", "negated", "power", "counters"))


def other(player: int) -> int:
    return 1 - player


# -- actions -------------------------------------------------------------------

def parse_action(raw: Any, path: str = "action") -> dict[str, Any]:
    """Check an action's shape and return a normalised copy.

    ``targets`` defaults to ``[]``; counts (how many targets, discards or
    payers) are rule matters, checked later.

    >>> parse_action({"type": "draw", "player": 0})
    {'type': 'draw', 'player': 0}
    >>> parse_action({"type": "fly", "player": 0})
    Traceback (most recent call last):
    ...
    referee.engine.errors.InvalidInput: action.type: unknown action type 'fly'
    """
    errors: dict[str, list[str]] = {}
    if not isinstance(raw, dict):
        raise InvalidInput({path: ["must be an object"]})
    kind = raw.get("type")
    if kind not in ACTION_FIELDS:
        msg = "missing" if kind is None else f"unknown action type {kind!r}"
        raise InvalidInput({f"{path}.type": [msg]})
    fields = ACTION_FIELDS[kind]
    out: dict[str, Any] = {"type": kind}
    player = raw.get("player")
    if not _is_player(player):
        errors[f"{path}.player"] = ["must be 0 or 1"]
    out["player"] = player
    for name in fields:
        value = raw.get(name)
        if name in _ID_FIELDS:
            if not _is_id(value):
                errors[f"{path}.{name}"] = ["must be a card instance id (non-empty string)"]
        elif name == "ability":
            if not _is_int(value) or value < 0:
                errors[f"{path}.ability"] = ["must be an ability index (integer ≥ 0)"]
        elif name == "targets":
            if value is None:
                value = []
            elif not _is_id_list(value):
                errors[f"{path}.targets"] = ["must be a list of card instance ids"]
        elif name == "cards":
            if not _is_id_list(value):
                errors[f"{path}.cards"] = ["must be a list of card instance ids"]
        out[name] = list(value) if isinstance(value, list) else value
    if "pay" in raw:
        if not _is_id_list(raw["pay"]):
            errors[f"{path}.pay"] = ["must be a list of case instance ids"]
        else:
            out["pay"] = list(raw["pay"])
    extra = set(raw) - {"type", "player", "pay", *fields}
    for name in sorted(extra):
        errors[f"{path}.{name}"] = [f"unknown field for a {kind} action"]
    if errors:
        raise InvalidInput(errors)
    return out


# -- states --------------------------------------------------------------------

def check_state(catalog: Catalog, raw: Any) -> dict[str, Any]:
    """RULES 13.1: the shape, then the consistency of a state; a normalised copy.

    >>> from referee.engine.catalog import Catalog
    >>> check_state(Catalog.builtin(), {"schema": "x"})
    Traceback (most recent call last):
    ...
    referee.engine.errors.InvalidInput: cards: missing; ...
    """
    state = _parse_state(raw)
    _check_consistency(catalog, state)
    return state


def _parse_state(raw: Any) -> dict[str, Any]:
    p = _Parser()
    if not isinstance(raw, dict):
        raise InvalidInput({"state": ["must be an object"]})
    for name in sorted(set(raw) - _STATE_KEYS):
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
        if key in obj and (not _is_int(got) or got < low):
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
        if key in obj and not _is_player(got):
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
        for name in sorted(set(pen) - _PENDING_KEYS):
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
        if not _is_int(power):
            self.err("pending.power", "must be an integer")
        out["power"] = power
        counters = pen.get("counters", [])
        if not _is_id_list(counters):
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
        for name in sorted(set(raw) - _PLAYER_KEYS):
            self.err(f"{path}.{name}", "unknown field")
        name = raw.get("name", f"Player {i + 1}")
        if not isinstance(name, str):
            self.err(f"{path}.name", "must be a string")
        out = {"name": name}
        for zone in ("file", "hand", "trash"):
            value = self._get(raw, zone, f"{path}.{zone}")
            if zone in raw and not _is_id_list(value):
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
        if not _is_id(raw.get("card")):
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
        elif case is not None and not _is_id(case):
            self.err(f"{path}.case", "must be null or a case instance id")
        return {"card": raw.get("card"), "case": case}

    def evidence_entry(self, raw: Any, path: str) -> dict:
        if not self._entry(raw, path, frozenset(("card", "case"))):
            return {"card": None, "case": None}
        if not _is_id(raw.get("case")):
            self.err(f"{path}.case", "must be a case instance id")
        return {"card": raw.get("card"), "case": raw.get("case")}

    def modifiers(self, raw: dict) -> list:
        mods = raw.get("modifiers", [])
        if not isinstance(mods, list):
            self.err("modifiers", "must be a list")
            return []
        for j, m in enumerate(mods):
            if not (isinstance(m, dict) and set(m) == {"card", "power"}
                    and _is_id(m["card"]) and _is_int(m["power"])):
                self.err(f"modifiers.{j}", "must be an object {card: id, power: integer}")
        return [dict(m) for m in mods if isinstance(m, dict)]

    def used(self, raw: dict) -> list:
        used = raw.get("used", [])
        if not isinstance(used, list):
            self.err("used", "must be a list")
            return []
        for j, u in enumerate(used):
            if not (isinstance(u, dict) and set(u) == {"card", "ability"}
                    and _is_id(u["card"]) and _is_int(u["ability"]) and u["ability"] >= 0):
                self.err(f"used.{j}", "must be an object {card: id, ability: index}")
        return [dict(u) for u in used if isinstance(u, dict)]


# -- consistency (RULES 13.1) -------------------------------------------------

def _fail(code: str, detail: str, path: str = "state") -> InconsistentState:
    return InconsistentState(code, detail, path)


def _check_consistency(catalog: Catalog, s: dict[str, Any]) -> None:
    if s["catalog"] != catalog.ref:
        raise _fail("catalog_mismatch",
                    f"the state was made with catalog {s['catalog']}, the referee has {catalog.ref}", "catalog")
    cards = s["cards"]
    for iid, cid in cards.items():
        card = catalog.get(cid)
        if card is None:
            raise _fail("unknown_card", f"instance {iid} is {cid}, which is not in the catalog", f"cards.{iid}")
        if card.kind == "bonus":
            raise _fail("bonus_card_in_game", f"instance {iid} is the bonus card {cid} (RULES 3.3)", f"cards.{iid}")
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
    if act["type"] in ("play_case", "play_fairy", "play_evidence", "cast_spell"):
        if act["card"] not in s["players"][active]["hand"]:
            raise _fail("inconsistent_pending", f"the card being played ({act['card']}) stays in hand until it resolves",
                        "pending.action.card")


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


# -- small predicates -----------------------------------------------------------

def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_player(v: Any) -> bool:
    return v in (0, 1) and not isinstance(v, bool) and isinstance(v, int)


def _is_id(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def _is_id_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) and x for x in v)
