"""Every violation code's text, in English and Japanese.

Texts only: a code's rule id is declared with ``@rule`` beside the check that
raises it (``registry.rule``). One table, so every detail exists in both
languages (a test checks both templates take the same parameters).
"""

from __future__ import annotations

from typing import Any

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
        "Card {card} is a bonus card and is never legal in a deck.",
        "カード{card}はノーマル トレーディングカードで、デッキに入れられません。",
    ),
    "unknown_card": ("Card {card} is not in the catalog.", "カード{card}はカタログにありません。"),
    "more_unknown_cards": (
        "And {count} more card id(s) are not in the catalog.",
        "ほかに{count}種類のカードIDがカタログにありません。",
    ),
    # 11.3 / 12 Who may act
    "game_over": ("The game is over; no action is legal.", "ゲームは終了しています。行動はできません。"),
    "not_your_turn": (
        "Player {player} may not act now; player {actor} acts.",
        "プレイヤー{player}は今は行動できません。行動するのはプレイヤー{actor}です。",
    ),
    "responder_acts": (
        "A response window is open; only player {actor} acts now.",
        "対応ウィンドウが開いています。今はプレイヤー{actor}だけが行動できます。",
    ),
    "card_not_available": (
        "Player {player} has no card {card} {where}.",
        "プレイヤー{player}の{where_ja}にカード{card}はありません。",
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
    "not_a_case": ("Card {card} is not a case.", "カード{card}は事件カードではありません。"),
    "not_end_step": (
        "Discards are made only in the end step, when the hand is over 7.",
        "手札の調整はエンドステップで手札が7枚を超えるときにのみ行います。",
    ),
    "end_step": (
        "Player {player} must discard {count} card(s) to end the turn.",
        "ターンを終えるにはプレイヤー{player}は{count}枚捨てる必要があります。",
    ),
    "wrong_discard_count": (
        "Discard exactly {count} card(s), not {given}.",
        "ちょうど{count}枚捨ててください（{given}枚ではなく）。",
    ),
    "duplicate_discard": (
        "Card {card} is named twice in the discard.",
        "カード{card}が捨てる札に2回指定されています。",
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
        "Player {player}'s file is empty; a voluntary draw is illegal.",
        "プレイヤー{player}のファイルは空です。任意のドローはできません。",
    ),
    "not_a_fairy": ("Card {card} is not a fairy.", "カード{card}は妖精カードではありません。"),
    "not_an_evidence": ("Card {card} is not an evidence.", "カード{card}は証拠カードではありません。"),
    "no_such_case": ("There is no case {case} in play.", "場に事件{case}はありません。"),
    "not_standby": (
        "Fairy {fairy} is already dispatched; redispatch it instead.",
        "妖精{fairy}はすでに派遣されています。派遣しなおしてください。",
    ),
    "not_dispatched": ("Fairy {fairy} is not dispatched.", "妖精{fairy}は派遣されていません。"),
    "same_case": (
        "Fairy {fairy} is already dispatched to case {case}.",
        "妖精{fairy}はすでに事件{case}に派遣されています。",
    ),
    "recall_standby": (
        "Fairy {fairy} is standby; only a dispatched fairy is recalled.",
        "妖精{fairy}は派遣されていません。派遣中の妖精だけを外せます。",
    ),
    "one_fairy_per_case": (
        "Player {player} already has {count} fairy(ies) dispatched to case {case}; the limit is {limit}.",
        "プレイヤー{player}はすでに事件{case}に妖精を{count}体派遣しています（上限{limit}）。",
    ),
    "face_down_case_limit": (
        "Player {player} already has {count} fairy(ies) dispatched to case {case}, which is face down to them: "
        "until it turns face up the limit is {limit}.",
        "事件{case}はプレイヤー{player}には裏向きです。表向きになるまで派遣できる妖精は{limit}体です"
        "（すでに{count}体派遣しています）。",
    ),
    # 9 Abilities, spells, counters
    "no_such_ability": ("Card {card} has no ability {ability}.", "カード{card}に能力{ability}はありません。"),
    "ability_used": (
        "Ability {ability} of card {card} is once per turn and was used this turn.",
        "カード{card}の能力{ability}は1ターンに1回で、このターンすでに使用されています。",
    ),
    "not_a_spell": ("Card {card} is not a spell.", "カード{card}は妖力カードではありません。"),
    "not_a_counter": ("Card {card} is not a counter.", "カード{card}は魔気カードではありません。"),
    "no_window": (
        "A counter is played only in a response window during the opponent's turn.",
        "魔気カードは相手のターンの対応ウィンドウでのみ使用できます。",
    ),
    "wrong_trigger": (
        "Counter {card} answers {trigger}, but the pending action is {pending}.",
        "魔気カード{card}のトリガーは{trigger}ですが、保留中の行動は{pending}です。",
    ),
    "no_window_to_pass": ("There is no response window to pass in.", "パスできる対応ウィンドウはありません。"),
    "wrong_target_count": (
        "Card {card} takes {count} target(s), {given} given.",
        "カード{card}の対象は{count}個ですが、{given}個指定されています。",
    ),
    "illegal_target": (
        "{target} is not a legal target for effect {effect} of card {card}.",
        "{target}はカード{card}の効果{effect}の対象として不適正です。",
    ),
    # 10 Investigation
    "no_fairy_on_case": (
        "Player {player} has no fairy dispatched to case {case}.",
        "プレイヤー{player}の妖精は事件{case}に派遣されていません。",
    ),
    # 7 Costs
    "cannot_pay": (
        "The cost is {cost} action(s); player {player} has {available} unactioned case(s).",
        "コストは{cost}アクションですが、プレイヤー{player}の未アクションの事件は{available}枚です。",
    ),
    "wrong_pay_count": (
        "The cost is {cost} action(s), but {given} case(s) are named to pay.",
        "コストは{cost}アクションですが、支払いに{given}枚の事件が指定されています。",
    ),
    "bad_payer": ("Case {case} cannot pay: {why}.", "事件{case}では支払えません：{why_ja}。"),
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


def render(code: str, lang: str, params: dict[str, Any]) -> str:
    """The detail text of a violation code, in English or Japanese (``lang="ja"``)."""
    en, ja = MESSAGES[code]
    values = dict(params)
    values.setdefault("where_ja", _WHERE_JA.get(str(params.get("where", "")), str(params.get("where", ""))))
    values.setdefault("why_ja", _WHY_JA.get(str(params.get("why", "")), str(params.get("why", ""))))
    template = ja if lang == "ja" else en
    try:
        return template.format(**values)
    except (KeyError, IndexError):
        return template
