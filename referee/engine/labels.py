"""Readable labels for legal actions, in English and Japanese, built from the catalog.

``/v1/legal-actions`` with ``"labels": true`` adds ``label`` to each listed
action, so every client (the table page, a bot's log, a Discord app) words an
action the same way: ``Dispatch Fairy of the North to The Missing Slippers —
1 action``. A label names only what the acting player may see (docs/api.md §5): an
opponent's face-down case is "a face-down case", never its name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from referee.engine.actions import Action
from referee.engine.board import Board
from referee.engine.catalog import Catalog, Effect
from referee.engine.facts import OPENING_HAND
from referee.engine.rulebook import RULEBOOK
from referee.engine.state import check_state
from referee.engine.state_types import FieldZone
from referee.engine.views import visible_cards

LANGUAGES = ("en", "ja")

# type: (English, Japanese); fields in braces are card names (or lists of them).
TEMPLATES: dict[str, tuple[str, str]] = {
    "mulligan": (
        f"Mulligan: trash your hand and draw {OPENING_HAND}",
        f"マリガン：手札を捨てて{OPENING_HAND}枚引き直す",
    ),
    "keep": ("Keep this hand", "この手札でキープ"),
    "play_case": ("Play case {card} face down", "事件{card}を裏向きで出す"),
    "skip_case": ("Play no case this turn", "このターンは事件を出さない"),
    "draw": ("Draw a card", "カードを1枚引く"),
    "play_fairy": ("Play fairy {card}", "妖精{card}を出す"),
    "play_evidence": ("Play evidence {card} on {case}", "証拠{card}を{case}に出す"),
    "dispatch": ("Dispatch {fairy} to {case}", "{fairy}を{case}に派遣する"),
    "redispatch": ("Redispatch {fairy} to {case}", "{fairy}を{case}に派遣しなおす"),
    "recall": ("Recall {fairy}", "{fairy}を呼び戻す"),
    "investigate": ("Investigate {case}", "{case}を捜査する"),
    "use_ability": ("Use {card}: {effect}", "{card}の能力：{effect}"),
    "cast_spell": ("Cast {card}: {effect}", "妖力{card}を使う：{effect}"),
    "counter": ("Counter with {card}: {effect}", "魔気{card}で対応：{effect}"),
    "pass": ("Pass: let it resolve", "パス（対応しない）"),
    "end_turn": ("End the turn", "ターンを終了する"),
    "discard": ("Discard {cards}", "{cards}を捨てる"),
    "concede": ("Concede the game", "投了する"),
    "claim_time": ("Claim the game: your opponent's time has run out", "時間切れ勝ちを申し立てる"),
}

# (English, Japanese) of the small words around names.
WORDS: dict[str, tuple[str, str]] = {
    "unknown": ("a hidden card", "非公開のカード"),
    "cost": (" — {n} action", "（{n}アクション）"),
    "costs": (" — {n} actions", "（{n}アクション）"),
    "sep": (", ", "、"),
    "then": ("; ", "、"),
    "on": (" on {targets}", "（対象：{targets}）"),
    "ability": (" (ability {n})", "（能力{n}）"),
    "player": ("Player {n}", "プレイヤー{n}"),
}

# How a card in play is named, by whose it is (the viewer's or the opponent's) and what is known.
PLACES: dict[str, tuple[str, str]] = {
    # an opponent's face-down case: whose it is and its place, never its name (RULES 4.4)
    "their_face_down": ("your opponent's {nth} case, face down", "相手の{n}番目の事件（裏向き）"),
    "my_case": ("{name}", "事件「{name}」"),
    "their_case": ("{name} (your opponent's)", "相手の事件「{name}」"),
    "my_case_at": ("{name} (your {nth} case)", "自分の{n}番目の事件「{name}」"),
    "their_case_at": ("{name} (your opponent's {nth} case)", "相手の{n}番目の事件「{name}」"),
    "my_card": ("{name}", "「{name}」"),
    "their_card": ("your opponent's {name}", "相手の「{name}」"),
    "my_card_at": ("your {nth} {name}", "自分の{n}枚目の「{name}」"),
    "their_card_at": ("your opponent's {nth} {name}", "相手の{n}枚目の「{name}」"),
}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


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


class Namer:
    """Cards and players named as one player (``viewer``) may see them, each card in play by whose it is
    and, where its name alone would not tell it apart, its place: two labels of one position are the
    same only for the same move (copies of one card in hand or in a trash are the same move)."""

    def __init__(self, g: Board, viewer: int, lang: str):
        self.g, self.viewer, self.lang = g, viewer, lang
        self.known = visible_cards(g.s, viewer)
        # instance -> (owner, zone, 1-based place among that owner's zone) for every card in play
        self.place: dict[str, tuple[int, FieldZone, int]] = {}
        # instance -> (its place among the copies of its card in its owner's zone, how many copies there)
        self.copy_place: dict[str, tuple[int, int]] = {}
        cards = g.s["cards"]
        for owner, pl in enumerate(g.s["players"]):
            zones: tuple[FieldZone, ...] = ("cases", "fairies", "evidence")
            for zone in zones:
                seen: dict[str, list[str]] = {}  # catalog id -> its instances in this zone, in order
                for n, entry in enumerate(pl[zone], 1):
                    self.place[entry["card"]] = (owner, zone, n)
                    seen.setdefault(cards[entry["card"]], []).append(entry["card"])
                for same in seen.values():
                    for n, iid in enumerate(same, 1):
                        self.copy_place[iid] = (n, len(same))
        self.copies: dict[tuple[str, str], int] = {}  # (zone kind, catalog id) -> copies in play, both players
        for iid, (_, zone, _) in self.place.items():
            if iid in self.known:
                key = ("cases" if zone == "cases" else "field", g.s["cards"][iid])
                self.copies[key] = self.copies.get(key, 0) + 1

    def _text(self, key: str, **values: Any) -> str:
        en, ja = PLACES[key]
        return (ja if self.lang == "ja" else en).format(**values)

    def name(self, iid: str) -> str:
        """The printed name (Japanese, or the English one where the catalog has it)."""
        card = self.g.card(iid)
        return card.name if self.lang == "ja" else (card.name_en or card.name)

    def player(self, i: int) -> str:
        """A player by the name in the state (``Player 1`` for an unnamed first player)."""
        players = self.g.s["players"]
        name = players[i].get("name") if isinstance(i, int) and 0 <= i < len(players) else None
        return name or _word("player", self.lang, n=i + 1 if isinstance(i, int) else i)

    def card(self, iid: str) -> str:
        """Any card: in play by whose it is (and its place when needed), else by name if known."""
        where = self.place.get(iid)
        if where is not None:
            return self.case(iid) if where[1] == "cases" else self._in_play(iid, where)
        if iid in self.known:
            return self._text("my_card", name=self.name(iid))
        return _word("unknown", self.lang)

    def _in_play(self, iid: str, where: tuple[int, FieldZone, int]) -> str:
        owner = where[0]
        name = self.name(iid)
        mine = owner == self.viewer
        cid = self.g.s["cards"][iid]
        if self.copies.get(("field", cid), 0) < 2:
            return self._text("my_card" if mine else "their_card", name=name)
        n, same = self.copy_place[iid]
        if same == 1:
            return self._text("my_card" if mine else "their_card", name=name)
        return self._text("my_card_at" if mine else "their_card_at", name=name, n=n, nth=ordinal(n))

    def case(self, iid: str) -> str:
        """A case in play: an opponent's face-down one by its place only (RULES 4.4)."""
        where = self.place.get(iid)
        if where is None or where[1] != "cases":
            return self.card(iid) if where is not None or iid in self.known else _word("unknown", self.lang)
        owner, _, n = where
        mine = owner == self.viewer
        if iid not in self.known:
            return self._text("their_face_down", n=n, nth=ordinal(n))
        name = self.name(iid)
        if self.copies.get(("cases", self.g.s["cards"][iid]), 0) > 1:
            return self._text("my_case_at" if mine else "their_case_at", name=name, n=n, nth=ordinal(n))
        return self._text("my_case" if mine else "their_case", name=name)

    def target(self, iid: str) -> str:
        return self.card(iid)

    def given(self, iid: str) -> str:
        """A card id a request named: the card as this player may see it, else the id as it was given."""
        if iid not in self.g.s["cards"] or (iid not in self.known and iid not in self.place):
            return f'"{iid}"'
        return self.card(iid)


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


def label(g: Board, action: Action, lang: str = "en", names: Namer | None = None) -> str:
    """The label of one (legal) action on the board ``g``, as its player may read it (``names``: that
    player's :class:`Namer` of ``g`` in ``lang``, made once for many actions)."""
    lang = lang if lang in LANGUAGES else "en"
    kind = action["type"]
    if names is None:
        names = Namer(g, action["player"], lang)
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
        if kind == "use_ability" and len(card.abilities) > 1:
            values["card"] += _word("ability", lang, n=action["ability"] + 1)
        targets = action.get("targets") or []
        if targets:
            values["effect"] += _word("on", lang, targets=_word("sep", lang).join(names.target(t) for t in targets))
    en, ja = TEMPLATES[kind]
    text = (ja if lang == "ja" else en).format(**values)
    cost = RULEBOOK[kind].cost(g, action)
    if cost:
        text += _word("cost" if cost == 1 else "costs", lang, n=cost)
    return text


def names_for(catalog: Catalog, state: Any, viewer: Any) -> Callable[[str], Namer] | None:
    """Namers (by language) for the details of a refusal in ``state``, as ``viewer`` may see it;
    None when the state cannot be read (its own problem is reported instead)."""
    try:
        g = Board(catalog, check_state(catalog, state))
    except Exception:
        return None
    who = viewer if viewer in (0, 1) and type(viewer) is int else g.who_acts()
    return lambda lang: Namer(g, who, lang if lang in LANGUAGES else "en")


def labelled(catalog: Catalog, state: Any, actions: list[dict[str, Any]], lang: str = "en") -> list[dict[str, Any]]:
    """``actions`` (legal now in ``state``) each with its ``label``."""
    g = Board(catalog, check_state(catalog, state))
    lang = lang if lang in LANGUAGES else "en"
    # One namer per player, not per action: making one reads every card in play, so one per action
    # cost (actions × cards in play), 44 ms for 688 actions on a full table.
    namers: dict[int, Namer] = {}
    labelled_actions = []
    for a in actions:
        player = a["player"]
        names = namers.get(player)
        if names is None:
            names = namers[player] = Namer(g, player, lang)
        labelled_actions.append({**a, "label": label(g, cast(Action, a), lang, names)})
    return labelled_actions
