"""Every violation code's text, in English and Japanese.

Texts only: a code's rule id is declared with ``@rule`` beside the check that
raises it (``registry.rule``). One table, so every detail exists in both
languages (a test checks both templates take the same parameters).
"""

from __future__ import annotations

from typing import Any, Protocol

# code: (English template, Japanese template)
MESSAGES: dict[str, tuple[str, str]] = {
    # 3 Decks
    "deck_size": (
        "Deck has {count} card(s); a deck is exactly 40.",
        "デッキが{count}枚です。デッキはちょうど40枚です。",
    ),
    "too_many_copies": (
        "Deck has {count} cards named {name}; at most {limit} are allowed.",
        "デッキに「{name}」が{count}枚あります。{limit}枚までです。",
    ),
    "bonus_card": (
        "{name} is a bonus card and is never legal in a deck.",
        "「{name}」はノーマル トレーディングカードで、デッキに入れられません。",
    ),
    "unknown_card": ("Card {card} is not in the catalog.", "カード{card}はカタログにありません。"),
    "more_unknown_cards": (
        "And {count} more card id(s) are not in the catalog.",
        "ほかに{count}種類のカードIDがカタログにありません。",
    ),
    "series_not_in_format": (
        "{name} is of the series {series}, which format {format} leaves out.",
        "「{name}」はシリーズ{series}で、フォーマット{format}では使えません。",
    ),
    "banned_card": (
        "{name} is banned in format {format} (revision {revision}).",
        "「{name}」はフォーマット{format}（{revision}版）で禁止されています。",
    ),
    "restricted_card": (
        "Deck has {count} cards named {name}; format {format} (revision {revision}) allows at most {limit}.",
        "デッキに「{name}」が{count}枚あります。フォーマット{format}（{revision}版）では{limit}枚までです。",
    ),
    # 11.3 / 12 Who may act
    "game_over": ("The game is over; no action is legal.", "ゲームは終了しています。行動はできません。"),
    "not_your_turn": (
        "{player} may not act now; {actor} acts.",
        "{player}は今は行動できません。行動するのは{actor}です。",
    ),
    "responder_acts": (
        "A response window is open; only {actor} acts now.",
        "対応ウィンドウが開いています。今は{actor}だけが行動できます。",
    ),
    "time_not_out": (
        "{player} may claim the game only once their opponent's time has run out (RULES 11.5).",
        "{player}が時間切れを申し立てられるのは、相手の持ち時間が切れたときだけです。",
    ),
    # 14 Matches
    "not_a_match": ("This game is not part of a match.", "このゲームはマッチの一部ではありません。"),
    "match_game_not_over": (
        "Game {game} of the match is not over: the next game is dealt once it is.",
        "マッチの第{game}ゲームはまだ終わっていません。次のゲームは終了後に配られます。",
    ),
    "match_over": (
        "The match is over: {player} won it {wins}–{loses}; no further game is dealt.",
        "マッチは終了しました（{player}が{wins}対{loses}で勝利）。次のゲームは配られません。",
    ),
    "loser_chooses": (
        "{actor} lost the game before, so {actor} chooses who plays first, not {player}.",
        "前のゲームに負けた{actor}が先攻を選びます。{player}は選べません。",
    ),
    # 11.5 Clocks
    "time_out": (
        "{player}'s time has run out: they may only concede; their opponent may claim the game.",
        "{player}の持ち時間が切れました。投了のみできます。相手は時間切れの勝ちを申し立てられます。",
    ),
    "no_clock": (
        "This game has no clock: there is no time to claim.",
        "このゲームには持ち時間がありません。時間切れの申し立てはできません。",
    ),
    "card_not_available": (
        "{player} has no {card} {where}.",
        "{player}の{where_ja}に{card}はありません。",
    ),
    # 5 Setup
    "not_mulligan_phase": (
        "Mulligan and keep are only for the mulligan phase.",
        "マリガンとキープはマリガンの段階でのみ行えます。",
    ),
    "mulligan_phase": (
        "The game is in the mulligan phase: mulligan or keep.",
        "マリガンの段階です。マリガンかキープを選んでください。",
    ),
    # 6 Turn
    "not_case_step": (
        "A case is played (or skipped) only in the case step.",
        "事件カードは事件ステップでのみ出せます（またはスキップできます）。",
    ),
    "not_a_case": ("{card} is not a case.", "{card}は事件カードではありません。"),
    "not_end_step": (
        "Discards are made only in the end step, when the hand is over 7.",
        "手札の調整はエンドステップで手札が7枚を超えるときにのみ行います。",
    ),
    "end_step": (
        "{player} must discard {count} card(s) to end the turn.",
        "ターンを終えるには{player}は{count}枚捨てる必要があります。",
    ),
    "wrong_discard_count": (
        "Discard exactly {count} card(s), not {given}.",
        "ちょうど{count}枚捨ててください（{given}枚ではなく）。",
    ),
    "duplicate_discard": (
        "{card} is named twice in the discard.",
        "{card}が捨てる札に2回指定されています。",
    ),
    "window_open": (
        "A response window is open; the turn cannot end now.",
        "対応ウィンドウが開いているため、ターンを終了できません。",
    ),
    "not_main_step_end": (
        "The turn is ended only from the main step.",
        "ターンの終了はメインステップからのみ宣言できます。",
    ),
    # 13.1 The referee's guarantees: an answer is a state the referee accepts
    "turn_limit": (
        "Turn {turn} is the last turn a game state may reach; it cannot pass (concede ends the game).",
        "ターン{turn}はゲームの状態が取りうる最後のターンです。ターンを進めることはできません（投了でゲームを終えられます）。",
    ),
    # 8 Main-step actions
    "not_main_step": (
        "{action} is a main-step action of the active player.",
        "{action}はアクティブプレイヤーのメインステップでのみ行えます。",
    ),
    "main_action_in_window": (
        "{action} cannot be taken while a response window is open.",
        "対応ウィンドウが開いている間は{action}を行えません。",
    ),
    "file_empty": (
        "{player}'s file is empty; a voluntary draw is illegal.",
        "{player}のファイルは空です。任意のドローはできません。",
    ),
    "not_a_fairy": ("{card} is not a fairy.", "{card}は妖精カードではありません。"),
    "not_an_evidence": ("{card} is not an evidence.", "{card}は証拠カードではありません。"),
    "no_such_case": ("There is no {case} in play.", "場に{case}はありません。"),
    "not_standby": (
        "{fairy} is already dispatched; redispatch it instead.",
        "{fairy}はすでに派遣されています。派遣しなおしてください。",
    ),
    "not_dispatched": ("{fairy} is not dispatched.", "{fairy}は派遣されていません。"),
    "same_case": (
        "{fairy} is already dispatched to {case}.",
        "{fairy}はすでに{case}に派遣されています。",
    ),
    "recall_standby": (
        "{fairy} is standby; only a dispatched fairy is recalled.",
        "{fairy}は派遣されていません。派遣中の妖精だけを外せます。",
    ),
    "one_fairy_per_case": (
        "{player} already has {count} fairy(ies) dispatched to {case}; the limit is {limit}.",
        "{player}はすでに{case}に妖精を{count}体派遣しています（上限{limit}）。",
    ),
    "face_down_case_limit": (
        "Player {player} already has {count} fairy(ies) dispatched to case {case}, which is face down to them: "
        "until it turns face up the limit is {limit}.",
        "事件{case}はプレイヤー{player}には裏向きです。表向きになるまで派遣できる妖精は{limit}体です"
        "（すでに{count}体派遣しています）。",
    ),
    # 9 Abilities, spells, counters
    "no_such_ability": ("{card} has no ability {ability}.", "{card}に能力{ability}はありません。"),
    "ability_used": (
        "Ability {ability} of {card} is once per turn and was used this turn.",
        "{card}の能力{ability}は1ターンに1回で、このターンすでに使用されています。",
    ),
    "not_a_spell": ("{card} is not a spell.", "{card}は妖力カードではありません。"),
    "not_a_counter": ("{card} is not a counter.", "{card}は魔気カードではありません。"),
    "no_window": (
        "A counter is played only in a response window during the opponent's turn.",
        "魔気カードは相手のターンの対応ウィンドウでのみ使用できます。",
    ),
    "wrong_trigger": (
        "{card} answers {trigger}, but the pending action is {pending}.",
        "{card}のトリガーは{trigger}ですが、保留中の行動は{pending}です。",
    ),
    "no_window_to_pass": ("There is no response window to pass in.", "パスできる対応ウィンドウはありません。"),
    "wrong_target_count": (
        "{card} takes {count} target(s), {given} given.",
        "{card}の対象は{count}個ですが、{given}個指定されています。",
    ),
    "illegal_target": (
        "{target} is not a legal target for effect {effect} of {card}.",
        "{target}は{card}の効果{effect}の対象として不適正です。",
    ),
    # 10 Investigation
    "no_fairy_on_case": (
        "{player} has no fairy dispatched to {case}.",
        "{player}の妖精は{case}に派遣されていません。",
    ),
    # 7 Costs
    "cannot_pay": (
        "The cost is {cost} action(s); {player} has {available} unactioned case(s).",
        "コストは{cost}アクションですが、{player}の未アクションの事件は{available}枚です。",
    ),
    "wrong_pay_count": (
        "The cost is {cost} action(s), but {given} case(s) are named to pay.",
        "コストは{cost}アクションですが、支払いに{given}枚の事件が指定されています。",
    ),
    "bad_payer": ("{case} cannot pay: {why}.", "{case}では支払えません：{why_ja}。"),
}

_WHERE_JA = {
    "in hand": "手札",
    "on the field": "場",
    "in the trash": "トラッシュ",
    "as a standby or dispatched fairy": "場の妖精",
    "to use": "場",
}
_WHY_JA = {
    "not theirs": "自分の事件ではありません",
    "not in play": "場にありません",
    "already actioned": "すでにアクション済です",
    "named twice": "2回指定されています",
}


# A NewGame's refusal for its decks (docs/api.md §7): its own detail counts the problems, which its
# `violations` list each once, rather than repeating the first of them.
ILLEGAL_DECKS = (
    "The decks break {count} deck rule(s); violations lists each.",
    "デッキが{count}件の規則に反しています。violations にそれぞれを挙げています。",
)


def illegal_decks_detail(count: int, lang: str = "en") -> str:
    """The detail of a NewGame refused for its decks: how many problems, each listed once elsewhere."""
    en, ja = ILLEGAL_DECKS
    return (ja if lang == "ja" else en).format(count=count)


# The codes about decks name cards by name (3.2–3.8) or by catalog id (3.4), never instances: their texts
# stay as given.
DECK_CODES = frozenset(
    {
        "deck_size",
        "too_many_copies",
        "bonus_card",
        "unknown_card",
        "more_unknown_cards",
        "series_not_in_format",
        "banned_card",
        "restricted_card",
    }
)
PLAYER_KEYS = ("player", "actor")
CARD_KEYS = ("card", "fairy", "case", "target")
# Without a state to read names from: players as the default names of a NewGame, cards by instance id.
_NO_NAMES = {
    "player": ("Player {n}", "プレイヤー{n}"),
    "card": ("card {id}", "カード{id}"),
    "fairy": ("fairy {id}", "妖精{id}"),
    "case": ("case {id}", "事件{id}"),
    "target": ("{id}", "{id}"),
}


class Names(Protocol):
    """Who and what a detail names, as the player it is for may see them (``labels.Namer``)."""

    def player(self, i: int) -> str: ...
    def given(self, iid: str) -> str: ...


def _unnamed(key: str, lang: str, value: Any) -> str:
    en, ja = _NO_NAMES["player" if key in PLAYER_KEYS else key]
    template = ja if lang == "ja" else en
    return template.format(n=value + 1, id=value) if key in PLAYER_KEYS else template.format(id=value)


def render(code: str, lang: str, params: dict[str, Any], names: Names | None = None) -> str:
    """The detail text of a violation code, in English or Japanese (``lang="ja"``).

    Players are named by their names in the state and cards as the acting player may see them when
    ``names`` is given (the service passes them: "Aoi's file is empty"); without it, players by the
    default names of a NewGame ("Player 1") and cards by instance id.
    """
    en, ja = MESSAGES[code]
    if names is None and callable(params.get("_names")):
        names = params["_names"](lang)  # the service's namers for this refusal (labels.names_for)
    values = dict(params)
    values.setdefault("where_ja", _WHERE_JA.get(str(params.get("where", "")), str(params.get("where", ""))))
    values.setdefault("why_ja", _WHY_JA.get(str(params.get("why", "")), str(params.get("why", ""))))
    if code not in DECK_CODES:
        for key in PLAYER_KEYS:
            if type(values.get(key)) is int:
                values[key] = names.player(values[key]) if names else _unnamed(key, lang, values[key])
        for key in CARD_KEYS:
            if isinstance(values.get(key), str):
                values[key] = names.given(values[key]) if names else _unnamed(key, lang, values[key])
    template = ja if lang == "ja" else en
    try:
        text = template.format(**values)
    except (KeyError, IndexError):
        return template
    return text[:1].upper() + text[1:]
