"""Card references: naming a card instance by where it is, so scenarios need no instance ids.

Syntax (docs/scenarios.md)::

    p0.hand.AF-001      the first AF-001 in player 0's hand
    p0.hand.AF-001#1    the second one (0-based, like indexes)
    p1.cases.0          player 1's first case in play (cases in the order played)
    p0.file.0           the top card of player 0's file; -1 is the bottom
    p0.trash.-1         the card that went to player 0's trash last

Zones: ``file``, ``hand``, ``trash``, ``cases``, ``fairies``, ``evidence``.
A reference may start with ``@`` (``"@p0.hand.AF-001"``; quoted, since YAML
reserves ``@``). It is resolved against the state at the moment it is used:
for an action, the state just before that action.

Any string starting with ``p0.`` or ``p1.`` is a reference; every other string
is taken as it is (an instance id, or a catalog id where one is expected).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from referee.engine import StateDict

# A checked state, or a position being built (``build.py``: it may pose a broken state on purpose).
AnyState = StateDict | dict[str, Any]

ZONES = ("file", "hand", "trash", "cases", "fairies", "evidence")
FIELD_ZONES = ("cases", "fairies", "evidence")
_ZONE_WORDS = {
    "file": "file",
    "hand": "hand",
    "trash": "trash",
    "cases": "cases in play",
    "fairies": "fairies",
    "evidence": "evidence",
}
_LOOKS_LIKE = re.compile(r"^@?p\d+\.")
_REF = re.compile(r"^@?p([01])\.(file|hand|trash|cases|fairies|evidence)\.(.+)$")
_INDEX = re.compile(r"^-?\d+$")
_NTH = re.compile(r"^(.+)#(\d+)$")

# The action fields that hold card instance ids (docs/api.md §6).
ID_FIELDS = ("card", "case", "fairy")
ID_LIST_FIELDS = ("targets", "cards", "pay")


class RefError(Exception):
    """A reference that is not well formed (a scenario error) or names nothing (a failure)."""


@dataclass(frozen=True, slots=True)
class Ref:
    text: str
    player: int
    zone: str
    index: int | None = None
    card: str | None = None
    nth: int = 0


def looks_like_ref(value: Any) -> bool:
    return isinstance(value, str) and bool(_LOOKS_LIKE.match(value))


@lru_cache(maxsize=4096)  # a recorded game names the same few hundred references again and again
def parse_ref(text: str) -> Ref:
    """A reference's parts (a frozen value, so one parse serves every use); raises
    :class:`RefError` if it is not well formed."""
    m = _REF.match(text)
    if not m:
        if not re.match(r"^@?p[01]\.", text):
            raise RefError(f"{text!r}: a reference starts with p0. or p1.")
        raise RefError(f"{text!r}: unknown zone; a reference is pN.ZONE.SELECTOR with ZONE one of " + ", ".join(ZONES))
    player, zone, sel = int(m[1]), m[2], m[3]
    if _INDEX.match(sel):
        return Ref(text, player, zone, index=int(sel))
    nth = _NTH.match(sel)
    if nth:
        return Ref(text, player, zone, card=nth[1], nth=int(nth[2]))
    return Ref(text, player, zone, card=sel)


def zone_ids(state: AnyState, player: int, zone: str) -> list[str]:
    """The instance ids of one zone, in the state's order."""
    zones: Mapping[str, Any] = state["players"][player]  # ``zone`` is a reference's word: one of ZONES
    items: list[Any] = zones[zone]
    if zone in FIELD_ZONES:
        return [e["card"] for e in items]
    return items


def resolve(state: AnyState, ref: Ref | str) -> str:
    """The instance id a reference names in ``state``; raises :class:`RefError` if there is none."""
    if isinstance(ref, str):
        ref = parse_ref(ref)
    ids = zone_ids(state, ref.player, ref.zone)
    where = f"player {ref.player}'s {_ZONE_WORDS[ref.zone]}"
    if ref.index is not None:
        if -len(ids) <= ref.index < len(ids):
            return ids[ref.index]
        raise RefError(f"{ref.text}: {where} has {len(ids)} card(s), so there is no index {ref.index}")
    cards = state["cards"]
    seen = 0
    for iid in ids:
        if iid == ref.card and ref.nth == 0:  # an instance id works as a selector too
            return iid
        if cards.get(iid) == ref.card:
            if seen == ref.nth:
                return iid
            seen += 1
    held = [cards.get(i, i) for i in ids]
    shown = ", ".join(held[:12]) + (f", ... ({len(held)} in all)" if len(held) > 12 else "")
    count = f"only {seen} {ref.card}" if seen else f"no {ref.card}"
    raise RefError(f"{ref.text}: {where} holds {count} ({'holds: ' + shown if held else 'it is empty'})")


def resolve_action(state: AnyState, action: Any) -> Any:
    """A copy of ``action`` with every reference in its id fields replaced by the instance id."""
    if not isinstance(action, dict):
        return action
    out = dict(action)
    for name in ID_FIELDS:
        value = out.get(name)
        if isinstance(value, str) and _LOOKS_LIKE.match(value):
            out[name] = resolve(state, value)
    for name in ID_LIST_FIELDS:
        value = out.get(name)
        if isinstance(value, list):
            out[name] = [resolve(state, v) if isinstance(v, str) and _LOOKS_LIKE.match(v) else v for v in value]
    return out


def action_refs(action: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """Every reference-looking string in an action's id fields, with its field path (for static checks)."""
    found: list[tuple[tuple[str | int, ...], str]] = []
    if not isinstance(action, dict):
        return found
    for name in ID_FIELDS:
        if looks_like_ref(action.get(name)):
            found.append(((name,), action[name]))
    for name in ID_LIST_FIELDS:
        value = action.get(name)
        if isinstance(value, list):
            found.extend(((name, i), v) for i, v in enumerate(value) if looks_like_ref(v))
    return found


def has_refs(action: Any) -> bool:
    return bool(action_refs(action))


def locate(state: AnyState, iid: str) -> tuple[int, str, int] | None:
    """(player, zone, index) of an instance id in ``state``, or None."""
    for p, _pl in enumerate(state["players"]):
        for zone in ZONES:
            ids = zone_ids(state, p, zone)
            if iid in ids:
                return p, zone, ids.index(iid)
    return None


def ref_for(state: AnyState, iid: str) -> str:
    """The canonical reference to ``iid`` in ``state`` (what ``referee record`` writes).

    In the file, by index (``p0.file.3``); elsewhere by catalog id, with ``#k``
    when it is not the first of its id in that zone. An id not in any zone is
    returned as it is.
    """
    found = locate(state, iid)
    if found is None:
        return iid
    p, zone, index = found
    if zone == "file":
        return f"p{p}.file.{index}"
    cid = state["cards"][iid]
    before = sum(1 for other in zone_ids(state, p, zone)[:index] if state["cards"][other] == cid)
    return f"p{p}.{zone}.{cid}" + (f"#{before}" if before else "")


def refs_in_action(state: AnyState, action: Mapping[str, Any]) -> dict[str, Any]:
    """``action`` with its instance ids written as canonical references (for ``referee record``)."""
    out = dict(action)
    for name in ID_FIELDS:
        if isinstance(out.get(name), str):
            out[name] = ref_for(state, out[name])
    for name in ID_LIST_FIELDS:
        if isinstance(out.get(name), list):
            out[name] = [ref_for(state, v) for v in out[name]]
    return out
