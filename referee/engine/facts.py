"""The game's facts, declared once (OpenSpiel style): sizes, players, phases, steps, reasons.

Every other module reads these names; none writes the numbers again.

>>> Phase.OVER == "over", DECK_SIZE, HAND_LIMIT
(True, 40, 7)
>>> Player.check(1), other(0)
(1, 1)
>>> Player.check(1.0)
Traceback (most recent call last):
...
referee.engine.errors.InvalidInput: player: must be 0 or 1
"""

from __future__ import annotations

import hashlib
import unicodedata
from enum import StrEnum
from functools import lru_cache
from typing import Any, Final, NamedTuple

from referee.engine.errors import InvalidInput
from referee.engine.state_types import ResultDict

SCHEMA: Final = "ace-file/state@1"  # docs/api.md §3: the state's format
RULESET: Final = "ace-file-99"
PLAYERS = 2  # RULES 1.1
DECK_SIZE = 40  # RULES 3.1
OPENING_HAND = 7  # RULES 5.3, 5.4
HAND_LIMIT = 7  # RULES 6.6

# Bounded replies: a deck names at most DECK_MAX_ENTRIES ids (list items or object
# keys), and at most UNKNOWN_CARDS_LISTED unknown ids are listed, then one count.
DECK_MAX_ENTRIES = 100
UNKNOWN_CARDS_LISTED = 10
# RULES 3.1 once, 3.2 and 3.3 at most once per entry, the listed 3.4s and their count.
DECK_MAX_VIOLATIONS = 1 + 3 * DECK_MAX_ENTRIES + UNKNOWN_CARDS_LISTED + 1  # 3.2|3.8, 3.3|3.6, 3.7 per id
# The ranges of a state's integers (inclusive): far past any reachable game, and narrow
# enough that no arithmetic of the rules on them can leave 64 bits (or the 2^53 that a
# JavaScript client reads exactly).
TURN_MAX = 1_000_000
RNG_MAX = 2**53 - 1
POWER_MAX = 1_000_000  # pending.power and each modifier's power, either sign
# docs/api.md §15: a clock's time at the deal and its Fischer increment, in seconds; a match's lengths.
CLOCK_INITIAL = (10, 86_400)
CLOCK_INCREMENT = (0, 3_600)
BEST_OF = (1, 3, 5)  # RULES 14.1
WATCH_DELAY = (0, 50)  # docs/api.md §12 "Delay": how many moves a spectator sees the game behind, at most
# The latest time a clock may show (9999-12-31T23:59:59.999Z, in milliseconds since 1970): RFC 3339's last year.
CLOCK_TIME_MAX = 253_402_300_799_999


# RULES 2.1 kinds, and the words of RULES.md's term table for them (docs/api.md §8): wherever a card kind is
# written (a card's `kind`, an effect's target), each word is read as its kind (ruling 2026-12-05), with or
# without its trailing カード, and read as RULES 3.2.1 reads names (NFKC, white space trimmed; the space inside
# the bonus row's word may be any white space or none).
KINDS = ("case", "fairy", "evidence", "spell", "counter", "bonus")
_KIND_WORDS = {
    "character": "fairy",
    "deduction": "spell",
    "super_deduction": "counter",
    "事件": "case",
    "妖精": "fairy",
    "証拠": "evidence",
    "妖力": "spell",
    "魔気": "counter",
    "キャラクター": "fairy",
    "推理": "spell",
    "超推理": "counter",
    "ノーマル トレーディング": "bonus",  # the term table's bonus row: ノーマル トレーディングカード
    "ノーマル": "bonus",
}
CARD_WORD = "カード"  # RULES' term table (ruling 2026-12-05): each Japanese word with or without カード


def kind_word_key(word: str) -> str:
    """The form in which a kind word is looked up: NFKC, trimmed (RULES 3.2.1); a Japanese word's inner white
    space dropped, an English word's runs of it made one space.

    >>> kind_word_key(" ノーマル\u3000トレーディングカード ") == kind_word_key("ノーマルトレーディングカード")
    True
    """
    parts = unicodedata.normalize("NFKC", word).split()
    return " ".join(parts) if any(part.isascii() for part in parts) else "".join(parts)


KIND_ALIASES = {
    kind_word_key(alias): kind
    for word, kind in _KIND_WORDS.items()
    for alias in ((word,) if word.isascii() else (word, word + CARD_WORD))
} | {k: k for k in KINDS}


def kind_of_word(word: str) -> str | None:
    """The kind a word of the term table (or an English kind name) names, or None.

    >>> kind_of_word("ノーマル トレーディングカード"), kind_of_word("妖精"), kind_of_word("joker")
    ('bonus', 'fairy', None)
    """
    return KIND_ALIASES.get(kind_word_key(word))


COMMITMENT_PREFIX = "sha256:"


@lru_cache(maxsize=256)  # every view carries it: a game's seed is hashed once, not at each view
def commitment(seed: str) -> str:
    """docs/api.md §10: the seed's commitment, ``sha256:`` and the hex SHA-256 of its UTF-8 bytes.

    >>> commitment("s-1")
    'sha256:6a840baf5d8c3ff241688aeb14546e653774cd5387faf1cb982b0fbbf1fbb810'
    """
    return COMMITMENT_PREFIX + hashlib.sha256(seed.encode("utf-8")).hexdigest()


class Phase(StrEnum):
    MULLIGAN = "mulligan"  # RULES 5.4
    TURN = "turn"
    OVER = "over"  # RULES 11


class Step(StrEnum):
    """RULES 6: the steps of a turn (``mulligan`` while the phase is)."""

    MULLIGAN = "mulligan"
    CASE = "case"
    MAIN = "main"
    END = "end"


class WindowMode(StrEnum):
    """docs/api.md §3 ``options.response_windows``: RULES 9.4's windows opened always or only on demand."""

    AUTO = "auto"
    STRICT = "strict"


class Reason(StrEnum):
    """Why a game ended (RULES 11.1, 11.2, 11.5)."""

    DECK_OUT = "deck_out"
    CONCEDE = "concede"
    TIME = "time"  # RULES 11.5: claimed on time


class Player(int):
    """A player index, 0 or 1 (RULES 1.1); :meth:`check` is the one place a client's value is judged."""

    @staticmethod
    def is_valid(value: Any) -> bool:
        return type(value) is int and (value == 0 or value == 1)

    @staticmethod
    def check(value: Any, path: str = "player") -> int:
        """``value`` if it is 0 or 1 (not ``True``, not ``1.0``), else :class:`InvalidInput` at ``path``."""
        if not Player.is_valid(value):
            raise InvalidInput({path: ["must be 0 or 1"]})
        player: int = value
        return player


def majority(best_of: int) -> int:
    """RULES 14.1: how many games win a match of ``best_of``."""
    return best_of // 2 + 1


def other(player: int) -> int:
    """The opponent of ``player``."""
    return 1 - player


class Outcome(NamedTuple):
    """How a game ended: serialised as the state's ``result`` ``{"winner": 0, "reason": "concede"}``."""

    reason: Reason
    winner: int

    def json(self) -> ResultDict:
        return {"winner": self.winner, "reason": str(self.reason)}
