"""Every violation code: its rule id and its text in English and Japanese.

One table, so a code can never cite two rules and every detail exists in both
languages (a test checks both templates take the same parameters).
"""

from __future__ import annotations

from typing import Any

# code: (rule id, English template, Japanese template)
MESSAGES: dict[str, tuple[str, str, str]] = {
    # 3 Decks
    "deck_size": ("3.1", "Deck has {count} cards; a deck is exactly 40.",
                  "デッキが{count}枚です。デッキはちょうど40枚です。"),
    "too_many_copies": ("3.2", "Deck has {count} cards named {name}; at most {limit} are allowed.",
                        "デッキに「{name}」が{count}枚あります。{limit}枚までです。"),
    "bonus_card": ("3.3", "Card {card} is a bonus card and is never legal in a deck.",
                   "カード{card}はノーマル トレーディングカードで、デッキに入れられません。"),
    "unknown_card": ("3.4", "Card {card} is not in the catalog.",
                     "カード{card}はカタログにありません。"),
    "more_unknown_cards": ("3.4", "And {count} more card ids are not in the catalog.",
                           "ほかに{count}種類のカードIDがカタログにありません。"),
    # 11.3 / 12 Who may act
    "game_over": ("11.3", "The game is over; no action is legal.",
                  "ゲームは終了しています。行動はできません。"),
    "not_your_turn": ("12.2", "Player {player} may not act now; player {actor} acts.",
                      "プレイヤー{player}は今は行動できません。行動するのはプレイヤー{actor}です。"),
    "responder_acts": ("12.1", "A response window is open; only player {actor} acts now.",
                       "対応ウィンドウが開いています。今はプレイヤー{actor}だけが行動できます。"),
    "card_not_available": ("12.3", "Player {player} has no card {card} {where}.",
                           "プレイヤー{player}の{where_ja}にカード{card}はありません。"),
    # 5 Setup
    "not_mulligan_phase": ("5.4", "Mulligan and keep are only for the mulligan phase.",
                           "マリガンとキープはマリガンの段階でのみ行えます。"),
    "mulligan_phase": ("5.4", "The game is in the mulligan phase: mulligan or keep.",
                       "マリガンの段階です。マリガンかキープを選んでください。"),
    # 6 Turn
    "not_case_step": ("6.4", "A case is played (or skipped) only in the case step.",
                      "事件カードは事件ステップでのみ出せます（またはスキップできます）。"),
    "not_a_case": ("6.4", "Card {card} is not a case.", "カード{card}は事件カードではありません。"),
    "not_end_step": ("6.6", "Discards are made only in the end step, when the hand is over 7.",
                     "手札の調整はエンドステップで手札が7枚を超えるときにのみ行います。"),
    "end_step": ("6.6", "Player {player} must discard {count} card(s) to end the turn.",
                 "ターンを終えるにはプレイヤー{player}は{count}枚捨てる必要があります。"),
    "wrong_discard_count": ("6.6", "Discard exactly {count} card(s), not {given}.",
                            "ちょうど{count}枚捨ててください（{given}枚ではなく）。"),
    "duplicate_discard": ("6.6", "Card {card} is named twice in the discard.",
                          "カード{card}が捨てる札に2回指定されています。"),
    "window_open": ("6.5", "A response window is open; the turn cannot end now.",
                    "対応ウィンドウが開いているため、ターンを終了できません。"),
    "not_main_step_end": ("6.5", "The turn is ended only from the main step.",
                          "ターンの終了はメインステップからのみ宣言できます。"),
    # 8 Main-step actions
    "not_main_step": ("8.1", "{action} is a main-step action of the active player.",
                      "{action}はアクティブプレイヤーのメインステップでのみ行えます。"),
    "main_action_in_window": ("8.1", "{action} cannot be taken while a response window is open.",
                              "対応ウィンドウが開いている間は{action}を行えません。"),
    "file_empty": ("8.2", "Player {player}'s file is empty; a voluntary draw is illegal.",
                   "プレイヤー{player}のファイルは空です。任意のドローはできません。"),
    "not_a_fairy": ("8.3", "Card {card} is not a fairy.", "カード{card}は妖精カードではありません。"),
    "not_an_evidence": ("8.4", "Card {card} is not an evidence.", "カード{card}は証拠カードではありません。"),
    "no_such_case": ("12.3", "There is no case {case} in play.", "場に事件{case}はありません。"),
    "not_standby": ("8.5", "Fairy {fairy} is already dispatched; redispatch it instead.",
                    "妖精{fairy}はすでに派遣されています。派遣しなおしてください。"),
    "not_dispatched": ("8.6", "Fairy {fairy} is not dispatched.", "妖精{fairy}は派遣されていません。"),
    "same_case": ("8.6", "Fairy {fairy} is already dispatched to case {case}.",
                  "妖精{fairy}はすでに事件{case}に派遣されています。"),
    "recall_standby": ("8.7", "Fairy {fairy} is standby; only a dispatched fairy is recalled.",
                       "妖精{fairy}は派遣されていません。派遣中の妖精だけを外せます。"),
    "one_fairy_per_case": ("8.9", "Player {player} already has {count} fairy(ies) dispatched to case {case}; the limit is {limit}.",
                           "プレイヤー{player}はすでに事件{case}に妖精を{count}体派遣しています（上限{limit}）。"),
    # 9 Abilities, spells, counters
    "no_such_ability": ("9.1", "Card {card} has no ability {ability}.",
                        "カード{card}に能力{ability}はありません。"),
    "ability_used": ("9.1", "Ability {ability} of card {card} is once per turn and was used this turn.",
                     "カード{card}の能力{ability}は1ターンに1回で、このターンすでに使用されています。"),
    "not_a_spell": ("9.2", "Card {card} is not a spell.", "カード{card}は妖力カードではありません。"),
    "not_a_counter": ("9.3", "Card {card} is not a counter.", "カード{card}は魔気カードではありません。"),
    "no_window": ("9.3", "A counter is played only in a response window during the opponent's turn.",
                  "魔気カードは相手のターンの対応ウィンドウでのみ使用できます。"),
    "wrong_trigger": ("9.3", "Counter {card} answers {trigger}, but the pending action is {pending}.",
                      "魔気カード{card}のトリガーは{trigger}ですが、保留中の行動は{pending}です。"),
    "no_window_to_pass": ("9.4", "There is no response window to pass in.",
                          "パスできる対応ウィンドウはありません。"),
    "wrong_target_count": ("9.6", "Card {card} takes {count} target(s), {given} given.",
                           "カード{card}の対象は{count}個ですが、{given}個指定されています。"),
    "illegal_target": ("9.6", "{target} is not a legal target for effect {effect} of card {card}.",
                       "{target}はカード{card}の効果{effect}の対象として不適正です。"),
    # 10 Investigation
    "no_fairy_on_case": ("10.1", "Player {player} has no fairy dispatched to case {case}.",
                         "プレイヤー{player}の妖精は事件{case}に派遣されていません。"),
    # 7 Costs
    "cannot_pay": ("7.2", "The cost is {cost} action(s); player {player} has {available} unactioned case(s).",
                   "コストは{cost}アクションですが、プレイヤー{player}の未アクションの事件は{available}枚です。"),
    "wrong_pay_count": ("7.3", "The cost is {cost} action(s), but {given} case(s) are named to pay.",
                        "コストは{cost}アクションですが、支払いに{given}枚の事件が指定されています。"),
    "bad_payer": ("7.3", "Case {case} cannot pay: {why}.", "事件{case}では支払えません：{why_ja}。"),
}

_WHERE_JA = {
    "in hand": "手札", "on the field": "場", "in the trash": "トラッシュ",
    "as a standby or dispatched fairy": "場の妖精", "to use": "場",
}
_WHY_JA = {
    "not theirs": "自分の事件ではありません", "not in play": "場にありません",
    "already actioned": "すでにアクション済です", "named twice": "2回指定されています",
}


def render(code: str, lang: str, params: dict[str, Any]) -> str:
    """The rule id (``lang="rule"``) or the detail text of a violation code."""
    rule, en, ja = MESSAGES[code]
    if lang == "rule":
        return rule
    values = dict(params)
    values.setdefault("where_ja", _WHERE_JA.get(str(params.get("where", "")), str(params.get("where", ""))))
    values.setdefault("why_ja", _WHY_JA.get(str(params.get("why", "")), str(params.get("why", ""))))
    template = ja if lang == "ja" else en
    try:
        return template.format(**values)
    except (KeyError, IndexError):
        return template
