"""Game records (docs/records.md, docs/api.md §14): exact round trips, seat records, and every bad input refused
with its line."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import Catalog, Session, parse_action
from referee.engine.decklists import DeckCodeError, counts_from_code, deck_code
from referee.engine.playout import random_action, random_new_game
from referee.engine.records import MAX_LINE, MAX_MOVES, RecordError, read, read_lines, record_text, write
from referee.engine.setup import SeededStream
from referee.engine.views import visible_cards

BUILTIN = Catalog.builtin()
# The second catalog the suite uses (tests/test_check_cli.py): af-ref under another id, without AF-001.
VARIANT = Catalog.from_text(
    json.dumps(
        {"id": "af-ref-variant", "cards": [c for c in BUILTIN.canonical["cards"] if c["id"] != "AF-001"]},
        ensure_ascii=False,
    ),
    "variant.json",
)


def played(catalog: Catalog, game: dict[str, Any], seed: str, limit: int = 400) -> list[dict[str, Any]]:
    """Random legal actions from ``game``'s deal (at most ``limit``)."""
    session, _ = Session.new(catalog, game)
    stream = SeededStream("choices:" + seed)
    actions: list[dict[str, Any]] = []
    while not session.over and len(actions) < limit:
        action = random_action(session.board, stream)
        actions.append(action)
        session.apply_parsed(action)
    return actions


@st.composite
def games(draw: Any) -> tuple[Catalog, dict[str, Any], list[dict[str, Any]]]:
    catalog = draw(st.sampled_from([BUILTIN, VARIANT]))
    seed = draw(st.text(min_size=1, max_size=12))
    game = random_new_game(catalog, seed)
    if draw(st.booleans()):  # counts in id order: the decks are written as deck codes
        game["decks"] = [{c: d.count(c) for c in sorted(set(d))} for d in game["decks"]]
    if draw(st.booleans()):
        game["first_player"] = draw(st.sampled_from([0, 1]))
    if draw(st.booleans()):
        game["shuffle"] = False
    if draw(st.booleans()):
        game["options"] = {"response_windows": draw(st.sampled_from(["auto", "strict"]))}
    if draw(st.booleans()):
        game["players"] = [draw(st.text(max_size=10)), draw(st.text(max_size=10))]
    actions = played(catalog, game, seed, draw(st.integers(0, 400)))
    times = None
    if draw(st.booleans()):  # a clocked game's times (ms since the deal), as data
        times = sorted(draw(st.lists(st.integers(0, 10**9), min_size=len(actions), max_size=len(actions))))
    return catalog, game, actions, times


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.sampled_from(["whole", 0, 1, None]))
def test_a_record_read_gives_its_newgame_and_actions_and_writes_again_byte_for_byte(example, seat):
    catalog, game, actions, times = example
    text = record_text(catalog, game, actions, times=times, seat=seat)
    record = read(text)
    assert write(record) == text
    assert record.actions == [parse_action(a) for a in actions]
    assert record.times == (times or None)
    if seat == "whole":
        assert record_text(catalog, record.new_game(catalog), record.actions, times=record.times) == text
        final = Session.new(catalog, game)[0]
        final.replay(actions)
        assert record.result == final.state["result"]


def test_the_decks_are_codes_when_given_in_id_order_and_a_list_as_given_otherwise():
    game = random_new_game(BUILTIN, "order")
    listed = read(record_text(BUILTIN, game, [])).tags["Deck0"]
    assert listed == " ".join(game["decks"][0])
    game["decks"] = [{c: d.count(c) for c in sorted(set(d))} for d in game["decks"]]
    coded = read(record_text(BUILTIN, game, [])).tags["Deck0"]
    assert coded.startswith("afd1.") and counts_from_code(BUILTIN, coded) == game["decks"][0]


def test_first_player_drawn_by_the_seed_is_written_so_and_deals_the_same_game():
    """RULES 5.2: a NewGame without first_player draws one from the seed, which moves the shuffle."""
    game = random_new_game(BUILTIN, "first")
    record = read(record_text(BUILTIN, game, []))
    dealt = Session.new(BUILTIN, game)[0].state
    assert record.tags["FirstPlayer"] == f"{dealt['first_player']} drawn"
    assert "first_player" not in record.new_game(BUILTIN)
    assert Session.new(BUILTIN, record.new_game(BUILTIN))[0].state == dealt


# -- the clocks' and formats' tags and claim_time: data here (the engine that deals them merges later) -------

CLOCKED = """\
[Catalog "af-ref {digest}"]
[Format "af99 2000-04-01"]
[Player0 "Aoi"]
[Player1 "Ren"]
[Deck0 "{deck}"]
[Deck1 "{deck}"]
[Seed "club-night-3"]
[FirstPlayer "0"]
[Options "response_windows=auto"]
[Clock "600+10"]
[Match "best_of=3"]
[Result "1 time"]

1. Aoi keep @1200
2. Ren keep @4100
3. Ren claim_time @700000
"""


def clocked() -> str:
    deck = deck_code(BUILTIN, {"AF-040": 3})
    return CLOCKED.format(digest=BUILTIN.digest.removeprefix("af-ref "), deck=deck)


def test_clock_match_format_tags_times_and_claim_time_are_read_as_data_and_written_back_exactly():
    record = read(clocked())
    assert write(record) == clocked()
    game = record.new_game(BUILTIN)
    assert game["format"] == {"id": "af99", "date": "2000-04-01"}
    assert game["clock"] == {"initial": 600, "increment": 10}
    assert game["match"] == {"best_of": 3}
    body = record.replay_body(BUILTIN)
    assert body["times"] == [1200, 4100, 700000]
    assert body["actions"][2] == {"type": "claim_time", "player": 1}
    assert record.result == {"winner": 1, "reason": "time"}


def test_a_clocked_game_of_a_format_round_trips_through_the_engine_and_replays_its_charges():
    """Given a clocked best-of-3 in a format, when its record is written from NewGame + actions + times and read
    back, then it is the same bytes, and replaying the record charges each move as the engine did (RULES 11.5)."""
    from referee.engine import replay

    game = random_new_game(BUILTIN, "clocked")
    game["format"] = {"id": "open", "date": "2000-04-01"}
    actions = played(BUILTIN, game, "clocked", limit=30)  # the clock changes no deal: the same moves are legal
    game["clock"] = {"initial": 600, "increment": 10}
    game["match"] = {"best_of": 3}
    times = [1500 * (i + 1) for i in range(len(actions))]
    text = record_text(BUILTIN, game, actions, times=times)
    assert write(read(text)) == text
    body = read(text).replay_body(BUILTIN)
    assert body["times"] == times and body["game"]["format"] == {"id": "open", "date": "1999-07-01"}  # its revision
    direct, _ = replay(BUILTIN, actions, game=game, times=times)
    again, _ = replay(BUILTIN, body["actions"], game=body["game"], times=body["times"])
    assert again["clock"] == direct["clock"] and again["format"] == {"id": "open", "revision": "1999-07-01"}
    assert sum(direct["clock"]["remaining"]) < 2 * 600_000 + 10_000 * len(actions)  # time was charged


# -- one seat's record: what that seat may know ---------------------------------------------------------


def seen_by(catalog: Catalog, game: dict[str, Any], actions: list[dict[str, Any]], seat: int | None) -> set[str]:
    """Every instance ``seat`` could see at some moment of the game."""
    session, _ = Session.new(catalog, game)
    seen = set(visible_cards(session.state, seat))
    for action in actions:
        session.apply(action)
        seen |= visible_cards(session.state, seat)
    return seen


@pytest.mark.parametrize("seat", [0, 1, None])
@pytest.mark.parametrize("seed", [f"seat-{i}" for i in range(6)])
def test_swapping_every_card_a_seat_never_saw_leaves_its_record_unchanged(seed, seat):
    """As the views' test: the opponent's cards the seat never saw, permuted among themselves (the decks given
    unshuffled, so each instance is one position of the list), give a game whose seat record is the same."""
    game = random_new_game(BUILTIN, seed, options={"response_windows": "strict"})  # auto: windows tell of counters
    game["shuffle"] = False
    actions = played(BUILTIN, game, seed)
    text = record_text(BUILTIN, game, actions, seat=seat)
    seen = seen_by(BUILTIN, game, actions, seat)
    dealt = Session.new(BUILTIN, game)[0].state
    swapped = 0
    for owner in (0, 1):
        if owner == seat:
            continue
        dealt_as = dealt["players"][owner]["hand"] + dealt["players"][owner]["file"]  # position j of the deck
        deck = game["decks"][owner]
        for kind in ("case", "fairy", "evidence", "spell", "counter"):  # a face-down case stays a case
            unseen = [j for j, iid in enumerate(dealt_as) if iid not in seen and BUILTIN[deck[j]].kind == kind]
            cards = [deck[j] for j in unseen]
            rotated = cards[1:] + cards[:1]
            swapped += sum(a != b for a, b in zip(cards, rotated, strict=True))
            for j, card in zip(unseen, rotated, strict=True):
                deck[j] = card
    assert swapped > 0
    assert record_text(BUILTIN, game, actions, seat=seat) == text
    assert record_text(BUILTIN, game, actions) != record_text(BUILTIN, game, actions, seat=seat)


def test_a_seat_record_has_the_commitment_its_own_deck_only_and_does_not_replay():
    game = random_new_game(BUILTIN, "seat")
    record = read(record_text(BUILTIN, game, [], seat=1))
    assert record.tags["Seat"] == "1" and "Seed" not in record.tags and "Deck0" not in record.tags
    assert record.tags["Commitment"].startswith("sha256:") and "Deck1" in record.tags
    with pytest.raises(RecordError, match="cannot be replayed"):
        record.new_game(BUILTIN)
    spectator = read(record_text(BUILTIN, game, [], seat=None))
    assert "Deck0" not in spectator.tags and "Deck1" not in spectator.tags


# -- deck codes --------------------------------------------------------------------------------------


def test_a_deck_code_reads_back_and_refuses_another_catalog_and_a_changed_character():
    counts = {"AF-002": 3, "AF-040": 2}
    code = deck_code(BUILTIN, counts)
    assert counts_from_code(BUILTIN, code) == counts
    with pytest.raises(DeckCodeError) as wrong:
        counts_from_code(VARIANT, code)
    assert wrong.value.code == "wrong_catalog"
    changed = code[:-3] + ("A" if code[-3] != "A" else "B") + code[-2:]
    with pytest.raises(DeckCodeError) as bad:
        counts_from_code(BUILTIN, changed)
    assert bad.value.code == "bad_deck_code"


# -- bad input: a RecordError naming the line -------------------------------------------------------------


def whole() -> str:
    game = random_new_game(BUILTIN, "bad")
    game["decks"] = [{c: d.count(c) for c in sorted(set(d))} for d in game["decks"]]
    return record_text(BUILTIN, game, played(BUILTIN, game, "bad", 12))


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith(start))


@pytest.mark.parametrize(
    ("bend", "line", "words"),
    [
        (lambda t: "\ufeff" + t, lambda t: 1, "byte order mark"),
        (lambda t: t.replace("\n", "\r\n"), lambda t: 1, "CR LF"),
        (lambda t: t[:-1], lambda t: t.count("\n") + 1, "no newline"),
        (lambda t: t[:-4], lambda t: t.count("\n") + 1, None),
        (lambda t: t.replace(" cards=", " cards ", 1), lambda t: line_of(t, "11.") - 4, "discard takes"),
        (lambda t: t.replace('[Seed "bad"]\n', ""), lambda t: line_of(t, "1."), "Seed is missing"),
        (
            lambda t: t.replace('[Seed "bad"]', '[Seed "bad"]\n[Seed "bad"]'),
            lambda t: line_of(t, "[Seed") + 1,
            "repeated",
        ),
        (lambda t: t.replace("[Options", '[Opening "x"]\n[Options'), lambda t: line_of(t, "[Opening"), "unknown tag"),
        (lambda t: t.replace("4. ", "5. ", 1), lambda t: line_of(t, "5."), "expected '4.'"),
        (lambda t: t.replace("2. P0", "2. Aoi").replace("2. P1", "2. Aoi"), lambda t: line_of(t, "2."), "player"),
        (lambda t: t.replace('"1 ', '"2 ', 1), lambda t: line_of(t, "[Result"), "Result"),
        (lambda t: t.replace("\n1.", "\n1. P0 keep \xff\n1.", 1), None, "UTF-8"),
    ],
)
def test_a_bad_record_is_refused_naming_its_line(bend, line, words):
    text = whole()
    bent = bend(text)
    if bent == text:
        return
    data = bent.encode("utf-8").replace(b"\xc3\xbf", b"\xff")
    with pytest.raises(RecordError) as err:
        record = read(data)
        record.new_game(BUILTIN)
        raise AssertionError("read")
    if words:
        assert words in err.value.message
    if line is not None:
        assert err.value.line == line(bent)


def test_a_record_of_another_catalog_or_a_card_not_in_it_is_refused_at_its_tag():
    text = whole()
    other = text.replace(BUILTIN.digest, "sha256:" + "0" * 64)
    with pytest.raises(RecordError, match="catalog") as err:
        read(other).new_game(BUILTIN)
    assert err.value.line == 1
    game = random_new_game(BUILTIN, "listed")
    listed = record_text(BUILTIN, game, []).replace(game["decks"][1][0], "AF-999", 1)
    with pytest.raises(RecordError, match="AF-999 is not a card") as err:
        read(listed).new_game(BUILTIN)
    assert err.value.line == line_of(listed, "[Deck")
    game = random_new_game(BUILTIN, "coded")
    game["decks"] = [{c: d.count(c) for c in sorted(set(d))} for d in game["decks"]]
    coded = record_text(BUILTIN, game, [])
    theirs = deck_code(VARIANT, {"AF-002": 3})
    bent = coded.replace(read(coded).tags["Deck1"], theirs)
    with pytest.raises(RecordError, match="wrong_catalog") as err:
        read(bent).new_game(BUILTIN)
    assert err.value.line == line_of(bent, "[Deck1")


def test_a_line_past_the_bound_is_refused_without_reading_on():
    long_line = b'[Player0 "' + b"x" * (MAX_LINE + 10) + b'"]\n'
    with pytest.raises(RecordError, match="longer than") as err:
        read_lines(iter([b'[Catalog "a sha256:' + b"0" * 64 + b'"]\n', long_line]))
    assert err.value.line == 2


def test_a_million_line_record_stops_at_the_bound_of_moves():
    head = whole().split("\n\n")[0].encode() + b"\n\n"

    def lines():
        yield from head.splitlines(keepends=True)
        for n in range(1, 1_000_001):
            yield b"%d. P0 keep\n" % n

    with pytest.raises(RecordError, match=f"at most {MAX_MOVES}") as err:
        read_lines(lines())
    assert err.value.line == head.count(b"\n") + MAX_MOVES + 1


def test_a_game_whose_record_the_reader_would_refuse_is_not_written():
    from referee.engine import InvalidInput

    game = {**random_new_game(BUILTIN, "long"), "players": ["x" * MAX_LINE, "y"]}
    with pytest.raises(InvalidInput, match="at most"):
        record_text(BUILTIN, game, [])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_bent_record_reads_or_is_refused_with_a_line_never_anything_else(data):
    """Characters changed, dropped or added anywhere: a record, or a RecordError naming a line of the text."""
    text = WHOLE_TEXT
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        piece = data.draw(st.sampled_from(['"', "[", "]", "\n", " ", "=", ",", "@", ";", "\\", "-", "x", "0", "é", ""]))
        cut = data.draw(st.integers(0, 3))
        text = text[:at] + piece + text[at + cut :]
    try:
        record = read(text)
        record.new_game(BUILTIN)
    except RecordError as err:
        assert 1 <= err.line <= text.count("\n") + 1


WHOLE_TEXT = whole()


def test_the_newgame_found_from_a_deal_keeps_its_format_clock_and_match(catalog):
    """A record written from a deal's state (a private game's token) names what its NewGame named beside the
    decks: the format's revision, the clock and the match; so its `Clock` tag and the times go together."""
    from referee.engine.records import deal_game
    from referee.engine.setup import new_game

    game = random_new_game(catalog, "dealt-with")
    game["decks"] = [{cid: d.count(cid) for cid in sorted(set(d))} if isinstance(d, list) else d for d in game["decks"]]
    extra = {
        "format": {"id": "open", "date": "1999-07-01"},
        "clock": {"initial": 60, "increment": 1},
        "match": {"best_of": 3},
    }
    state, _ = new_game(catalog, {**game, **extra})
    found = deal_game(catalog, state)
    assert found is not None and {k: found[k] for k in extra} == extra
    text = record_text(catalog, found, [], times=[])
    assert '[Clock "60+1"]' in text and '[Format "open 1999-07-01"]' in text and '[Match "best_of=3"]' in text


def test_a_player_named_with_a_control_character_is_written_as_p0_p1_and_reads_back():
    """A NUL (or any control character) in a name would make a move line no record reader takes: the move
    lines name the players P0/P1 instead, and the tag keeps the name, escaped."""
    game = random_new_game(BUILTIN, "nul")
    game["players"] = ["a\x00", "b"]
    actions = played(BUILTIN, game, "nul", limit=3)
    text = record_text(BUILTIN, game, actions)
    assert "\x00" not in text and ("\n1. P0 " in text or "\n1. P1 " in text)
    assert write(read(text)) == text and read(text).new_game(BUILTIN)["players"] == ["a\x00", "b"]


def test_a_later_game_of_a_match_names_the_match_as_it_stood_and_replays_to_the_same_state():
    """Given game 2 of a best of 3 that player 1 leads 1-0 (a later game is dealt by /v1/matches/next), when its
    record is written from its deal's state and read back, then the Match tag holds the game and the wins, the
    record is the same bytes again, and it replays to the very state the game ended in, match included."""
    from referee.engine import replay
    from referee.engine.records import deal_game
    from referee.engine.setup import new_game

    game = random_new_game(BUILTIN, "game-two")
    game["decks"] = [{cid: d.count(cid) for cid in sorted(set(d))} for d in game["decks"]]
    game["match"] = {"best_of": 3, "game": 2, "wins": [0, 1]}
    actions = played(BUILTIN, game, "game-two", limit=60)
    dealt, _ = new_game(BUILTIN, game)
    found = deal_game(BUILTIN, dealt)
    assert found is not None and found["match"] == {"best_of": 3, "game": 2, "wins": [0, 1]}
    text = record_text(BUILTIN, found, actions)
    assert '[Match "best_of=3 game=2 wins=0-1"]' in text
    assert write(read(text)) == text
    body = read(text).replay_body(BUILTIN)
    direct, _ = replay(BUILTIN, actions, game=game)
    again, _ = replay(BUILTIN, body["actions"], game=body["game"])
    assert again == direct and again["match"]["game"] == 2
