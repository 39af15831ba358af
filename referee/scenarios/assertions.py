"""``then`` assertions: matching the state reached against what the scenario expects.

Matching rules (docs/scenarios.md):

- a mapping matches when every key it gives matches (other keys are free);
- a list matches element by element, same length, in order;
- a string matches a card instance when it is that instance id, a reference
  naming it, or its catalog id; other strings compare as they are;
- numbers, booleans and null compare exactly.

Zone keys (``p0.hand``) take a count, the exact list, or
``{count, top, includes, excludes, any_order}``; card keys (``p0.cases.0``,
``p1.fairies.AF-005``) take ``null`` (no such card), a card, or the fields
its entry must have.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.engine import ActionDict, CaseEntryDict, EvidenceEntryDict, FairyEntryDict, IdZone, StateDict
from referee.scenarios.refs import AnyState, RefError, looks_like_ref, parse_ref, resolve, zone_ids

_ZONE_KEY = re.compile(r"^p([01])\.(file|hand|trash|cases|fairies|evidence)$")
_CARD_KEY = re.compile(r"^p([01])\.(file|hand|trash|cases|fairies|evidence)\..+$")
_PLAYER_KEY = re.compile(r"^p([01])\.(name|kept)$")


@dataclass
class Mismatch:
    key: str
    expected: str
    actual: str
    note: str = ""

    def lines(self) -> list[str]:
        out = [f"{self.key}:", f"  expected: {self.expected}", f"  actual:   {self.actual}"]
        if self.note:
            out.append(f"  ({self.note})")
        return out


def _fields(state: StateDict) -> Mapping[str, Any]:
    """The state's fields by a name a scenario writes (``then: {phase: main}``): read as written."""
    return state


def _player(state: StateDict, p: int) -> Mapping[str, Any]:
    """One player's zones by a name a scenario writes (``p0.hand``, ``p1.kept``): read as written."""
    return state["players"][p]


LISTED_ZONES: tuple[IdZone, ...] = ("hand", "trash")  # shown card by card (the file: its size and top)


class Matcher:
    """Matches expected values against one state (references resolve against it)."""

    def __init__(self, state: AnyState):
        self.state = state
        self.cards: dict[str, str] = state["cards"]

    def same_card(self, expected: str, iid: str) -> bool:
        if expected == iid:
            return True
        if looks_like_ref(expected):
            try:
                return resolve(self.state, expected) == iid
            except RefError:
                return False
        return self.cards.get(iid) == expected

    def match(self, expected: Any, actual: Any) -> bool:
        if expected is None or actual is None:
            return expected is None and actual is None
        if isinstance(expected, bool) or isinstance(actual, bool):
            return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
        if isinstance(expected, str):
            if isinstance(actual, str) and actual in self.cards:
                return self.same_card(expected, actual)
            return bool(expected == actual)
        if isinstance(expected, (int, float)):
            return isinstance(actual, (int, float)) and expected == actual
        if isinstance(expected, dict):
            return isinstance(actual, dict) and all(
                k in actual and self.match(v, actual[k]) for k, v in expected.items()
            )
        if isinstance(expected, list):
            return (
                isinstance(actual, list)
                and len(expected) == len(actual)
                and all(self.match(e, a) for e, a in zip(expected, actual))
            )
        return bool(expected == actual)

    def entry_match(self, expected: Any, entry: Any) -> bool:
        """A zone element: a string names the card; a mapping gives fields of the entry."""
        if isinstance(expected, str):
            card = entry["card"] if isinstance(entry, dict) else entry
            return self.same_card(expected, card)
        if isinstance(expected, dict) and not isinstance(entry, dict):
            return set(expected) <= {"card"} and self.same_card(expected.get("card", entry), entry)
        return self.match(expected, entry)

    # -- readable forms ------------------------------------------------------

    def human(self, value: Any) -> Any:
        """``value`` with instance ids written as catalog ids (what the reader can check)."""
        if isinstance(value, str):
            return self.cards.get(value, value)
        if isinstance(value, list):
            return [self.human(v) for v in value]
        if isinstance(value, dict):
            return {k: self.human(v) for k, v in value.items()}
        return value


def flow(value: Any) -> str:
    """YAML flow style, the way a scenario writes values: ``[AF-001, {card: AF-042, face_up: true}]``.

    Reading the text back with a YAML loader gives ``value`` again.
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return _plain(value) or _quoted(value)
    if isinstance(value, list):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_plain(str(k)) or _quoted(str(k))}: {flow(v)}" for k, v in value.items()) + "}"
    return _quoted(str(value))


_PLAIN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-#@/]*$")
_PLAIN_OK: dict[str, bool] = {}


def _plain(text: str) -> str | None:
    """``text`` unquoted when YAML reads it back as the same string (AF-001, p0.hand.AF-001#1)."""
    ok = _PLAIN_OK.get(text)
    if ok is None:
        ok = bool(_PLAIN.match(text))
        if ok:
            import yaml

            try:
                ok = yaml.safe_load(f"[{text}]") == [text]
            except yaml.YAMLError:
                ok = False
        if len(_PLAIN_OK) < 10000:
            _PLAIN_OK[text] = ok
    return text if ok else None


def _quoted(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


def check(
    assertions: dict[str, Any],
    state: StateDict,
    events: Sequence[Mapping[str, Any]],
    legal_actions: Callable[[StateDict, int | None], list[ActionDict]],
) -> list[Mismatch]:
    """Every assertion that does not hold, in the scenario's order."""
    m = Matcher(state)
    out: list[Mismatch] = []
    for key, expected in assertions.items():
        found = _check_one(m, key, expected, state, events, legal_actions)
        if found is not None:
            out.append(found)
    return out


def _check_one(
    m: Matcher,
    key: str,
    expected: Any,
    state: StateDict,
    events: Sequence[Mapping[str, Any]],
    legal_actions: Callable[[StateDict, int | None], list[ActionDict]],
) -> Mismatch | None:
    zone = _ZONE_KEY.match(key)
    if zone:
        return _check_zone(m, key, expected, _player(state, int(zone[1]))[zone[2]])
    if _CARD_KEY.match(key):
        return _check_card(m, key, expected, state)
    player = _PLAYER_KEY.match(key)
    if player:
        actual = _player(state, int(player[1]))[player[2]]
        return None if m.match(expected, actual) else Mismatch(key, flow(expected), flow(actual))
    if key == "events":
        return _check_events(m, expected, events)
    if key == "legal_actions":
        return _check_actions(m, expected, state, legal_actions)
    actual = _fields(state).get(key)
    if m.match(expected, actual):
        return None
    return Mismatch(key, flow(expected), flow(m.human(actual)))


def _zone_human(m: Matcher, items: list[Any]) -> list[Any]:
    return [m.human(e) for e in items]


def _check_zone(m: Matcher, key: str, expected: Any, items: list[Any]) -> Mismatch | None:
    actual_text = flow(_zone_human(m, items))
    if isinstance(expected, int) and not isinstance(expected, bool):
        if len(items) == expected:
            return None
        return Mismatch(key, f"{expected} card(s)", f"{len(items)} card(s): {actual_text}")
    if isinstance(expected, list):
        if len(expected) == len(items) and all(m.entry_match(e, a) for e, a in zip(expected, items)):
            return None
        return Mismatch(key, flow(expected), actual_text, _list_note(m, expected, items))
    problems = []
    if "count" in expected and len(items) != expected["count"]:
        problems.append(f"{expected['count']} card(s) expected, {len(items)} found")
    if "top" in expected:
        top = expected["top"]
        if len(items) < len(top) or not all(m.entry_match(e, a) for e, a in zip(top, items)):
            problems.append(f"top should be {flow(top)}")
    if "includes" in expected:
        missing = _unmatched(m, expected["includes"], items)
        if missing:
            problems.append(f"missing {flow(missing)}")
    if "excludes" in expected:
        present = [e for e in expected["excludes"] if any(m.entry_match(e, a) for a in items)]
        if present:
            problems.append(f"should not hold {flow(present)}")
    if "any_order" in expected:
        want = expected["any_order"]
        missing = _unmatched(m, want, items)
        if missing or len(want) != len(items):
            problems.append(f"should hold exactly {flow(want)} in any order")
    if not problems:
        return None
    return Mismatch(key, flow(expected), actual_text, "; ".join(problems))


def _unmatched(m: Matcher, wanted: list[Any], items: list[Any]) -> list[Any]:
    """The expected elements that find no distinct actual element (greedy)."""
    free = list(items)
    missing = []
    for e in wanted:
        for j, a in enumerate(free):
            if m.entry_match(e, a):
                del free[j]
                break
        else:
            missing.append(e)
    return missing


def _list_note(m: Matcher, expected: list[Any], items: list[Any]) -> str:
    missing = _unmatched(m, expected, items)
    extra_pool = list(items)
    for e in expected:
        for j, a in enumerate(extra_pool):
            if m.entry_match(e, a):
                del extra_pool[j]
                break
    parts = []
    if missing:
        parts.append(f"missing {flow(missing)}")
    if extra_pool:
        parts.append(f"unexpected {flow(_zone_human(m, extra_pool))}")
    if not parts:
        parts.append("same cards, different order or fields")
    return "; ".join(parts)


def _check_card(m: Matcher, key: str, expected: Any, state: StateDict) -> Mismatch | None:
    ref = parse_ref(key)
    try:
        iid = resolve(state, ref)
    except RefError as exc:
        if expected is None:
            return None
        return Mismatch(key, flow(expected), "no such card", str(exc))
    items = _player(state, ref.player)[ref.zone]
    entry = items[zone_ids(state, ref.player, ref.zone).index(iid)]
    if expected is not None and m.entry_match(expected, entry):
        return None
    return Mismatch(key, "no such card" if expected is None else flow(expected), flow(m.human(entry)))


def _check_events(m: Matcher, expected: Any, events: Sequence[Mapping[str, Any]]) -> Mismatch | None:
    includes = expected if isinstance(expected, list) else expected.get("includes", [])
    excludes = [] if isinstance(expected, list) else expected.get("excludes", [])
    problems = []
    pos = 0
    for want in includes:  # in order: a subsequence of the events
        while pos < len(events) and not m.match(want, events[pos]):
            pos += 1
        if pos == len(events):
            problems.append(f"no event {flow(want)}" + (" after the ones before it" if includes.index(want) else ""))
            break
        pos += 1
    problems += _unwanted(m, excludes, events, "unexpected event")
    return _listed("events", m, expected, events, problems)


def _check_actions(
    m: Matcher,
    expected: dict[str, Any],
    state: StateDict,
    legal_actions: Callable[[StateDict, int | None], list[ActionDict]],
) -> Mismatch | None:
    player = expected.get("player")
    actions = legal_actions(state, player)
    problems = []
    if "count" in expected and len(actions) != expected["count"]:
        problems.append(f"{expected['count']} expected, {len(actions)} found")
    for want in expected.get("includes", []):
        if not any(m.match(want, a) for a in actions):
            problems.append(f"missing {flow(want)}")
    problems += _unwanted(m, expected.get("excludes", []), actions, "should not include")
    return _listed("legal_actions", m, expected, actions, problems)


def _unwanted(m: Matcher, excludes: list[Any], items: Sequence[Mapping[str, Any]], say: str) -> list[str]:
    """A problem for each of ``excludes`` that one of ``items`` matches, naming the first such item."""
    problems = []
    for bad in excludes:
        hits = [item for item in items if m.match(bad, item)]
        if hits:
            problems.append(f"{say} {flow(m.human(hits[0]))}")
    return problems


def _listed(
    key: str, m: Matcher, expected: Any, items: Sequence[Mapping[str, Any]], problems: list[str]
) -> Mismatch | None:
    """The mismatch of a list assertion (``events``, ``legal_actions``): the problems and every item found."""
    if not problems:
        return None
    shown = "\n    ".join(flow(m.human(item)) for item in items) or "(none)"
    return Mismatch(key, flow(expected), f"\n    {shown}", "; ".join(problems))


# -- the state, readable ------------------------------------------------------


def _case_text(m: Matcher, e: CaseEntryDict) -> str:
    return (
        f"{m.cards.get(e['card'], e['card'])} ({'face up' if e['face_up'] else 'face down'}, "
        f"{'actioned' if e['actioned'] else 'unactioned'})"
    )


def _on_text(m: Matcher, e: FairyEntryDict | EvidenceEntryDict) -> str:
    where = "standby" if e["case"] is None else f"on {m.cards.get(e['case'], e['case'])}"
    return f"{m.cards.get(e['card'], e['card'])} {where}"


def _ids_text(m: Matcher, ids: list[str]) -> str:
    """``[AF-001, AF-004 x3, AF-005]``: runs of one card id counted, so long zones stay one short line."""
    names = [m.cards.get(i, i) for i in ids]
    if len(names) <= 8:
        return flow(names)
    runs: list[list[Any]] = []
    for n in names:
        if runs and runs[-1][0] == n:
            runs[-1][1] += 1
        else:
            runs.append([n, 1])
    return "[" + ", ".join(n if c == 1 else f"{n} x{c}" for n, c in runs) + f"] ({len(names)} cards)"


def readable_lines(state: StateDict) -> list[str]:
    """The state as ``key: value`` lines by catalog id: what a diff shows."""
    m = Matcher(state)
    lines = [
        f"{k}: {flow(m.human(_fields(state).get(k)))}"
        for k in ("phase", "step", "turn", "active", "case_played", "pending", "result")
    ]
    for p, pl in enumerate(state["players"]):
        top = m.human(pl["file"][:3])
        lines.append(f"p{p}.file: {len(pl['file'])} card(s)" + (f", top {flow(top)}" if top else ""))
        for zone in LISTED_ZONES:
            lines.append(f"p{p}.{zone}: {_ids_text(m, pl[zone])}")
        lines.append(f"p{p}.cases: [{', '.join(_case_text(m, e) for e in pl['cases'])}]")
        lines.append(f"p{p}.fairies: [{', '.join(_on_text(m, e) for e in pl['fairies'])}]")
        lines.append(f"p{p}.evidence: [{', '.join(_on_text(m, e) for e in pl['evidence'])}]")
    for k in ("modifiers", "used"):
        if _fields(state).get(k):
            lines.append(f"{k}: {flow(m.human(_fields(state)[k]))}")
    return lines


def legend(text: str, state: StateDict | None) -> str:
    """Instance ids mentioned in ``text``, explained: ``a03 = p0.cases.AF-042``."""
    if not state:
        return ""
    from referee.scenarios.refs import ref_for

    seen = []
    for token in re.findall(r"[A-Za-z0-9_\-]+", text):
        if token in state["cards"] and token not in seen:
            seen.append(token)
    return ", ".join(f"{t} = {ref_for(state, t)}" for t in seen)
