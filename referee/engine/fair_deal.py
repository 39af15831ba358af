"""Provably fair dealing (docs/api.md §10): the commitment, the private deal and its check.

In private mode the referee draws the seed itself and publishes
``commitment`` = ``sha256:`` + SHA-256(seed) at the deal; the seed stays
inside the encrypted state until the game is over and revealed. Anyone
holding the revealed state can then check the deal:

1. SHA-256 of the revealed seed is the commitment they were shown;
2. the NewGame rebuilt from the revealed state (:func:`new_game_of`) deals,
   with that seed, exactly the cards the game was played with: the same
   instance ids for the same catalog cards, and the same first player (names
   and options are taken from the state: the deal does not depend on them);
3. each player's file at the end is the untouched rest of the dealt file
   (cards only ever leave a file from the top), so nobody reordered it.

The state holds all a re-deal needs: each player's 40 cards (the instances
in their zones, in ``cards``), names, options, first player and game id. The
private deal gives each deck to the shuffle in one canonical order — sorted
by catalog id — so the order the decks were sent in does not matter.
"""

from __future__ import annotations

from typing import Any

from referee.engine.catalog import Catalog
from referee.engine.errors import InvalidInput, RuleViolation
from referee.engine.facts import COMMITMENT_PREFIX, PLAYERS, Phase, commitment
from referee.engine.setup import deck_list, new_game, validate_deck
from referee.engine.state import check_state
from referee.engine.state_types import MatchDict, StateDict


class DealMismatch(Exception):
    """The revealed state does not check out; the message says what differs (one line)."""


def canonical_deck(deck: Any, catalog: Catalog | None = None) -> Any:
    """A legal deck as the sorted list of its catalog ids (what the private shuffle starts from)."""
    return sorted(deck_list(deck, catalog))


def private_deal(
    catalog: Catalog,
    request: Any,
    seed: str,
    game_id: str,
    *,
    now: int | None = None,
    match: MatchDict | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The deal of a private game: ``request``'s decks in canonical order, ``seed`` and ``game_id`` set
    (``now`` and ``match`` as ``new_game`` takes them).

    Malformed or illegal decks are left as sent, so ``new_game`` reports them
    exactly as in plain mode.
    """
    game = dict(request) if isinstance(request, dict) else request
    if isinstance(game, dict) and _legal_decks(catalog, game.get("decks")):
        game["decks"] = [canonical_deck(d, catalog) for d in game["decks"]]
    if isinstance(game, dict):
        game["seed"] = seed
    return new_game(catalog, game, game_id=game_id, now=now, match=match)


def _legal_decks(catalog: Catalog, decks: Any) -> bool:
    if not isinstance(decks, list) or len(decks) != PLAYERS:
        return False
    try:
        return not any(validate_deck(catalog, d) for d in decks)
    except InvalidInput:
        return False


def owned_cards(state: StateDict, player: int) -> list[str]:
    """Every instance id in ``player``'s zones (a player's 40 cards stay theirs all game)."""
    pl = state["players"][player]
    return [
        *pl["file"],
        *pl["hand"],
        *pl["trash"],
        *(e["card"] for e in pl["cases"]),
        *(e["card"] for e in pl["fairies"]),
        *(e["card"] for e in pl["evidence"]),
    ]


def new_game_of(state: StateDict, *, seeded_first_player: bool) -> dict[str, Any]:
    """The NewGame that dealt ``state``'s game (with the first player given, or left to the seed)."""
    cards = state["cards"]
    game: dict[str, Any] = {
        "decks": [sorted(cards[iid] for iid in owned_cards(state, i)) for i in (0, 1)],
        "seed": state["seed"],
        "players": [pl["name"] for pl in state["players"]],
        "options": dict(state["options"]),
    }
    if not seeded_first_player:
        game["first_player"] = state["first_player"]
    return game


def redeal(catalog: Catalog, revealed: Any) -> dict[str, Any]:
    """The first state of the game ``revealed`` ends, dealt again from its seed and decks.

    Raises :class:`DealMismatch` when no deal from that seed gives the same cards.
    The first player was either chosen by the seed or given in the NewGame: both are tried.
    """
    try:
        state = check_state(catalog, revealed)
    except InvalidInput as exc:
        raise DealMismatch(f"the revealed state is not a valid state: {exc}") from None
    found = None
    for seeded in (True, False):
        try:
            first, _ = new_game(catalog, new_game_of(state, seeded_first_player=seeded), game_id=state.get("game_id"))
        except (InvalidInput, RuleViolation) as exc:
            raise DealMismatch(f"the decks of the revealed state cannot be dealt: {exc}") from None
        if first["cards"] == state["cards"] and first["first_player"] == state["first_player"]:
            found = first
            break
    if found is None:
        raise DealMismatch(
            "dealing again from the revealed seed and decks does not give the cards "
            "of the game: the seed, a card or an instance id was changed"
        )
    for i in (0, 1):
        left = state["players"][i]["file"]
        dealt = found["players"][i]["file"]
        if dealt[len(dealt) - len(left) :] != left:
            raise DealMismatch(f"player {i}'s file is not the rest of the file dealt: it was reordered")
    return found


def verify_deal(catalog: Catalog, revealed: Any, expected: str | None = None) -> dict[str, Any]:
    """Check a revealed state (see the module docstring); the re-dealt first state.

    ``expected`` is the commitment the players were shown at the deal; without
    it the caller must compare ``commitment(state["seed"])`` with theirs.
    Raises :class:`DealMismatch` with what does not check out.
    """
    if not isinstance(revealed, dict) or not isinstance(revealed.get("seed"), str):
        raise DealMismatch("not a revealed state: it has no seed")
    if revealed.get("phase") != Phase.OVER:
        raise DealMismatch("the revealed state is not of a finished game (phase is not over)")
    got = commitment(revealed["seed"])
    if expected is not None and got != expected.strip():
        raise DealMismatch(
            f"the revealed seed does not match the commitment: SHA-256 gives {got}, the game showed {expected.strip()}"
        )
    return redeal(catalog, revealed)


__all__ = [
    "COMMITMENT_PREFIX",
    "DealMismatch",
    "canonical_deck",
    "commitment",
    "new_game_of",
    "private_deal",
    "redeal",
    "verify_deal",
]
