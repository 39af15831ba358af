"""Readable labels for legal actions, in English and Japanese, built from the catalog.

``/v1/legal-actions`` with ``"labels": true`` adds ``label`` to each listed
action, so every client (the table page, a bot's log, a Discord app) words an
action the same way: ``Dispatch Fairy of the North to The Missing Slippers —
1 action``. A label names only what the acting player may see (docs/api.md §5): an
opponent's face-down case is "a face-down case", never its name.
"""

from __future__ import annotations

from typing import Any, cast

from referee.engine.actions import Action
from referee.engine.board import Board
from referee.engine.catalog import Catalog, Effect
from referee.engine.facts import OPENING_HAND
from referee.engine.rulebook import RULEBOOK
from referee.engine.state import check_state
from referee.engine.state_types import StateDict
from referee.engine.views import visible_cards

LANGUAGES = ("en", "ja")

# type: (English, Japanese); fields in braces are card names (or lists of them).
TEMPLATES: dict[str, tuple[str, str]] = {
    "mulligan": (
        f"Mulligan: trash your hand and draw {OPENING_HAND}",
        f"マリガン：手札を捨てて{OPENING_HAND}枚引き直す",
    ),
    "keep": ("Keep this hand", "この手札でキープ"),
    "play_case": ("Play case {card} face down", "事件「{card}」を裏向きで出す"),
    "skip_case": ("Play no case this turn", "このターンは事件を出さない"),
    "draw": ("Draw a card", "カードを1枚引く"),
    "play_fairy": ("Play fairy {card}", "妖精「{card}」を出す"),
    "play_evidence": ("Play evidence {card} on {case}", "証拠「{card}」を{case}に出す"),
    "dispatch": ("Dispatch {fairy} to {case}", "「{fairy}」を{case}に派遣する"),
    "redispatch": ("Redispatch {fairy} to {case}", "「{fairy}」を{case}に派遣しなおす"),
    "recall": ("Recall {fairy}", "「{fairy}」を呼び戻す"),
    "investigate": ("Investigate {case}", "{case}を捜査する"),
    "use_ability": ("Use {card}: {effect}", "「{card}」の能力：{effect}"),
    "cast_spell": ("Cast {card}: {effect}", "妖力「{card}」を使う：{effect}"),
    "counter": ("Counter with {card}: {effect}", "魔気「{card}」で対応：{effect}"),
    "pass": ("Pass: let it resolve", "パス（対応しない）"),
    "end_turn": ("End the turn", "ターンを終了する"),
    "discard": ("Discard {cards}", "{cards}を捨てる"),
    "concede": ("Concede the game", "投了する"),
}

# (English, Japanese) of the small words around names.
WORDS: dict[str, tuple[str, str]] = {
    "face_down": ("a face-down case", "裏向きの事件"),
    "case_of": ("{name}", "事件「{name}」"),
    "their": ("{name} (opponent's)", "相手の{name}"),
    "unknown": ("a hidden card", "非公開のカード"),
    "cost": (" — {n} action", "（{n}アクション）"),
    "costs": (" — {n} actions", "（{n}アクション）"),
    "sep": (", ", "、"),
    "then": ("; ", "、"),
    "on": (" on {targets}", "（対象：{targets}）"),
}

# effect op: (English, Japanese); {n} the amount, {sign} its sign.
EFFECTS: dict[str, tuple[str, str]] = {
    "draw": ("draw {n}", "{n}枚引く"),
    "mill": ("trash the top {n} of the opponent's file", "相手のファイルの上から{n}枚をトラッシュ"),
    "power": ("{sign}{n} power", "パワー{sign}{n}"),
    "ready": ("ready a case", "事件1枚をアクション解除"),
    "bounce": ("return a fairy to hand", "妖精1体を手札に戻す"),
    "trash": ("trash a {kind}", "{kind_ja}1枚をトラッシュ"),
    "reveal": ("turn a case face up", "事件1枚を表向きにする"),
    "recover": ("return a {kind} from your trash", "トラッシュから{kind_ja}1枚を手札に戻す"),
    "negate": ("negate it", "無効にする"),
    "investigation_power": ("{sign}{n} to the investigation", "捜査のパワー{sign}{n}"),
}
KIND_JA = {
    "case": "事件",
    "fairy": "妖精",
    "evidence": "証拠",
    "spell": "妖力",
    "counter": "魔気",
    "bonus": "ノーマル",
    "any": "カード",
    "self": "このカード",
}


def _word(key: str, lang: str, **values: Any) -> str:
    en, ja = WORDS[key]
    return (ja if lang == "ja" else en).format(**values)


class _Namer:
    """Card names as one player may see them."""

    def __init__(self, g: Board, viewer: int, lang: str):
        self.g, self.viewer, self.lang = g, viewer, lang
        self.known = visible_cards(cast(dict[str, Any], g.s), viewer)

    def card(self, iid: str) -> str:
        if iid not in self.known:
            return _word("face_down" if self.g.case_in_play(iid) else "unknown", self.lang)
        card = self.g.card(iid)
        return card.name if self.lang == "ja" else (card.name_en or card.name)

    def case(self, iid: str) -> str:
        name = self.card(iid)
        if iid in self.known:
            name = _word("case_of", self.lang, name=name)
        found = self.g.case_in_play(iid)
        if found is not None and found[0] != self.viewer:
            return _word("their", self.lang, name=name)
        return name

    def target(self, iid: str) -> str:
        return self.case(iid) if self.g.case_in_play(iid) else self.card(iid)


def describe_effects(effects: tuple[Effect, ...], lang: str) -> str:
    """An effect list in a few words (``draw 2; +1 power``)."""
    parts = []
    for e in effects:
        en, ja = EFFECTS[e.op]
        template = ja if lang == "ja" else en
        parts.append(
            template.format(
                n=abs(e.amount),
                sign="+" if e.amount >= 0 else "−",
                kind=e.kind or "card",
                kind_ja=KIND_JA.get(e.kind or "any", "カード"),
            )
        )
    return _word("then", lang).join(parts)


def label(g: Board, action: Action, lang: str = "en") -> str:
    """The label of one (legal) action on the board ``g``, as its player may read it."""
    lang = lang if lang in LANGUAGES else "en"
    kind = action["type"]
    names = _Namer(g, action["player"], lang)
    values: dict[str, str] = {}
    if "card" in action:
        values["card"] = names.card(action["card"])
    if "fairy" in action:
        values["fairy"] = names.card(action["fairy"])
    if "case" in action:
        values["case"] = names.case(action["case"])
    if "cards" in action:
        values["cards"] = _word("sep", lang).join(names.card(c) for c in action["cards"])
    if kind in ("use_ability", "cast_spell", "counter"):
        card = g.card(action["card"])
        effects = card.abilities[action["ability"]].effect if kind == "use_ability" else card.effect
        values["effect"] = describe_effects(effects, lang)
        targets = action.get("targets") or []
        if targets:
            values["effect"] += _word("on", lang, targets=_word("sep", lang).join(names.target(t) for t in targets))
    en, ja = TEMPLATES[kind]
    text = (ja if lang == "ja" else en).format(**values)
    cost = RULEBOOK[kind].cost(g, action)
    if cost:
        text += _word("cost" if cost == 1 else "costs", lang, n=cost)
    return text


def labelled(catalog: Catalog, state: Any, actions: list[dict[str, Any]], lang: str = "en") -> list[dict[str, Any]]:
    """``actions`` (legal now in ``state``) each with its ``label``."""
    g = Board(catalog, cast(StateDict, check_state(catalog, state)))
    return [{**a, "label": label(g, cast(Action, a), lang)} for a in actions]
