"""RULES 15 (events): the players and rounds (15.1), results (15.2), points (15.3), standings (15.4), Swiss
pairing (15.5), the top cut (15.6) and Glicko-2 ratings (15.7), through :mod:`referee.events`' pure calls.

Every refusal code that :mod:`referee.events` declares with ``@rule`` is asserted here with its rule id
(``refused``); the last test checks that none is left out.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from referee import events
from referee.events.glicko import Rating, update
from referee.events.scoring import ranked, seeded_order, tally

ASSERTED: set[str] = set()


def refused(call, document, rule: str, code: str, round: int | None = None, table: int | None = None):
    with pytest.raises(events.EventRefusal) as caught:
        call(document)
    exc = caught.value
    assert (exc.rule, exc.code) == (rule, code), exc.detail
    assert (exc.round, exc.table) == (round, table), (exc.round, exc.table)
    ASSERTED.add(code)
    return exc


def invalid(call, document) -> dict[str, list[str]]:
    with pytest.raises(events.EventInputError) as caught:
        call(document)
    return caught.value.errors


def new(n: int, **options) -> dict:
    return events.new_event([f"p{i}" for i in range(1, n + 1)], seed=options.pop("seed", "s"), **options)


def paired(document: dict) -> dict:
    return events.pair(document)["event"]


def play(document: dict, *scores: list[int]) -> dict:
    """The last round's matches given ``scores`` in table order."""
    document = copy.deepcopy(document)
    matches = [p for p in document["rounds"][-1]["pairings"] if "players" in p]
    assert len(matches) == len(scores)
    for match, games in zip(matches, scores, strict=True):
        match["result"] = {"games": list(games)}
    return document


def first_wins(document: dict) -> dict:
    n = sum(1 for p in document["rounds"][-1]["pairings"] if "players" in p)
    return play(document, *([2, 0] for _ in range(n)))


def standings_of(document: dict) -> list[str]:
    return [row["player"] for row in events.standings(document)["standings"]]


# -- RULES 15.1 ------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "rounds"), [(2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4), (4096, 12)])
def test_15_1_swiss_rounds_default_to_log2_of_the_players(players, rounds) -> None:
    """RULES 15.1: ⌈log₂ players⌉ Swiss rounds, at least 1."""
    assert events.read_event(new(players)).swiss_rounds == rounds


def test_15_1_an_event_has_2_to_4096_players_and_at_most_64_rounds() -> None:
    """RULES 15.1: the limits of docs/api.md §17 are field errors."""
    assert "players" in invalid(events.pair, new(2) | {"players": [{"id": "a"}]})
    assert "players" in invalid(events.pair, new(2) | {"players": [{"id": f"p{i}"} for i in range(4097)]})
    assert "rounds" in invalid(events.pair, new(2) | {"rounds": [{"pairings": []}] * 65})
    assert "swiss_rounds" in invalid(events.pair, new(2) | {"swiss_rounds": 65})


def test_15_1_a_player_who_drops_is_never_paired_again_and_keeps_their_results() -> None:
    """RULES 15.1: drops leave after their round; their results stay in the standings."""
    doc = first_wins(paired(new(6)))
    winner = doc["rounds"][0]["pairings"][0]["players"][0]
    doc["rounds"][0]["drops"] = [winner]
    nxt = events.pair(doc)
    assert all(winner not in p.get("players", [p.get("bye")]) for p in nxt["pairings"])
    rows = {row["player"]: row for row in events.standings(doc)["standings"]}
    assert rows[winner]["match_points"] == 3 and rows[winner]["dropped"] is True
    nxt["event"]["rounds"][-1]["pairings"][0]["players"][0] = winner
    errors = invalid(events.check, nxt["event"])
    assert errors == {"rounds.1.pairings.0.players.0": ["Dropped after round 1: never paired again (RULES 15.1)."]}


def test_15_1_every_player_still_in_is_paired_and_there_are_no_extra_rounds() -> None:
    """RULES 15.1: each round pairs the players not dropped; the event has its number of Swiss rounds."""
    doc = paired(new(4, swiss_rounds=1))
    short = copy.deepcopy(doc)
    short["rounds"][0]["pairings"].pop()
    refused(events.check, short, "15.1", "player_not_paired", 1)
    extra = first_wins(doc)
    extra["rounds"].append(copy.deepcopy(extra["rounds"][0]))
    refused(events.check, extra, "15.1", "too_many_rounds", 2)


def test_15_1_ids_are_unique_and_rounds_name_known_players_once() -> None:
    """RULES 15.1 / docs/api.md §17: unknown or repeated ids, a player twice in a round: field errors."""
    doc = new(4)
    doc["players"].append({"id": "p1"})
    assert invalid(events.standings, doc) == {"players.4.id": ["Duplicate player id (also players.0)."]}
    doc = paired(new(4))
    doc["rounds"][0]["pairings"][1]["players"][1] = doc["rounds"][0]["pairings"][0]["players"][0]
    assert list(invalid(events.check, doc)) == ["rounds.0.pairings.1.players.1"]
    doc["rounds"][0]["pairings"][1]["players"][1] = "nobody"
    assert invalid(events.check, doc) == {"rounds.0.pairings.1.players.1": ["Unknown player id 'nobody'."]}


# -- RULES 15.2 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("best_of", "games", "score"),
    [(1, [1, 0], True), (1, [0, 1], True), (1, [0, 0], False), (3, [2, 1], True), (3, [1, 1], False),
     (3, [2, 2], False), (3, [0, 2], True), (5, [3, 2], True), (5, [2, 2], False), (5, [3, 3], False)],
)  # fmt: skip
def test_15_2_a_match_is_won_with_a_match_score(best_of, games, score) -> None:
    """RULES 15.2: 1–0 in best of 1; 2–0, 2–1 in best of 3; 3–0, 3–1, 3–2 in best of 5."""
    doc = play(paired(new(2, best_of=best_of)), games)
    if score:
        assert events.check(doc) == {"ok": True}
    else:
        refused(events.check, doc, "15.2", "not_a_match_score", 1, 1)
        refused(events.standings, doc, "15.2", "not_a_match_score", 1, 1)


def test_15_2_a_forfeit_is_a_loss_0_2_and_the_players_have_met() -> None:
    """RULES 15.2: the forfeiting player loses 0–2; the two are each other's opponents (15.4, 15.5)."""
    doc = paired(new(2, swiss_rounds=2))
    a, b = doc["rounds"][0]["pairings"][0]["players"]
    doc["rounds"][0]["pairings"][0]["result"] = {"forfeit": a}
    rows = {row["player"]: row for row in events.standings(doc)["standings"]}
    assert (rows[b]["record"], rows[b]["gw"], rows[a]["record"], rows[a]["gw"]) == ("1-0", 1.0, "0-1", 0.3333)
    assert rows[a]["omw"] == 1.0  # b is a's opponent
    assert events.pair(doc)["swiss_ended"] is True  # they have met: no second pairing


def test_15_2_a_bye_is_a_match_win_2_0_against_no_one() -> None:
    """RULES 15.2: the bye's player wins 2–0; no opponent (15.4)."""
    doc = first_wins(paired(new(3)))
    bye = doc["rounds"][0]["pairings"][-1]["bye"]
    row = next(r for r in events.standings(doc)["standings"] if r["player"] == bye)
    assert (row["match_points"], row["record"], row["gw"], row["omw"]) == (3, "1-0", 1.0, 0.3333)


def test_15_2_a_round_s_results_are_all_in_before_the_next_round() -> None:
    """RULES 15.2: pairing with a result missing is refused, naming the round and the table."""
    doc = paired(new(4))
    doc = play(doc, [2, 0], [2, 1])
    del doc["rounds"][0]["pairings"][1]["result"]
    refused(events.pair, doc, "15.2", "round_not_finished", 1, 2)
    doc["rounds"].append({"pairings": []})
    refused(events.check, doc, "15.2", "round_not_finished", 1, 2)


# -- RULES 15.3 ------------------------------------------------------------------------


def test_15_3_points_and_rates_are_exact_and_at_least_a_third() -> None:
    """RULES 15.3: 3 match points a win; MW and GW over 3 × rounds and 3 × games, at least 1/3."""
    doc = play(paired(new(2, swiss_rounds=1)), [1, 2])
    event = events.read_event(doc)
    first, second = event.rounds[0].pairings[0].players
    t = tally(event)
    assert (t[second].match_points, t[second].mw, t[second].gw) == (3, Fraction(1), Fraction(2, 3))
    assert (t[first].match_points, t[first].mw, t[first].gw) == (0, Fraction(1, 3), Fraction(1, 3))


def test_15_3_the_cut_changes_no_swiss_points() -> None:
    """RULES 15.3: points count over the Swiss rounds only."""
    doc = first_wins(paired(new(4, swiss_rounds=1, cut=2)))
    before = events.standings(doc)["standings"]
    doc = first_wins(paired(doc))
    assert events.read_event(doc).rounds[-1].cut
    assert events.standings(doc)["standings"] == before


# -- RULES 15.4 ------------------------------------------------------------------------


def test_15_4_ties_are_broken_by_omw_then_gw_then_ogw_then_the_seed() -> None:
    """RULES 15.4: after round 1, the 2–0 winners before the 2–1 winners (GW); equal ones by the seed."""
    doc = play(paired(new(8, seed="tie")), [2, 0], [2, 1], [2, 0], [2, 1])
    rows = events.standings(doc)["standings"]
    assert [r["gw"] for r in rows[:4]] == [1.0, 1.0, 0.6667, 0.6667]
    event = events.read_event(doc)
    drawn = [event.ids[p] for p in seeded_order(event)]
    assert [r["player"] for r in rows[:2]] == sorted([r["player"] for r in rows[:2]], key=drawn.index)
    assert [r["rank"] for r in rows] == list(range(1, 9))


def test_15_4_rates_are_compared_exactly_not_rounded() -> None:
    """RULES 15.4: rates equal to 4 places but not exactly are still ordered."""
    doc = new(2, swiss_rounds=1)
    event = events.read_event(doc)
    t = tally(event)
    t[0].rounds, t[0].games, t[0].game_points = 1, 10, 3 * 7  # GW 0.7
    t[1].rounds, t[1].games, t[1].game_points = 1, 100000, 3 * 70001  # GW 0.70001
    assert round(t[0].gw, 4) == round(t[1].gw, 4) and t[0].gw < t[1].gw
    assert [row.player for row in ranked(event, t)] == [1, 0]


def test_15_4_standings_are_deterministic() -> None:
    """RULES 15.4 with 13.2: the same document gives the same standings."""
    doc = first_wins(paired(new(9, seed="again")))
    assert events.standings(doc) == events.standings(copy.deepcopy(doc))


# -- RULES 15.5 ------------------------------------------------------------------------


def test_15_5_round_one_pairs_the_seeded_order_in_twos() -> None:
    """RULES 15.5: round 1 shuffles by the seed; the last of an odd field has the bye."""
    doc = new(5, seed="r1")
    event = events.read_event(doc)
    drawn = [event.ids[p] for p in seeded_order(event)]
    answer = events.pair(doc)
    assert answer["pairings"] == [
        {"table": 1, "players": drawn[0:2]},
        {"table": 2, "players": drawn[2:4]},
        {"bye": drawn[4]},
    ]
    assert events.pair(new(5, seed="r2"))["pairings"] != answer["pairings"]
    swapped = copy.deepcopy(answer["event"])
    first, second = swapped["rounds"][0]["pairings"][:2]
    first["players"][1], second["players"][1] = second["players"][1], first["players"][1]
    refused(events.check, swapped, "15.5", "round_one_order", 1, 1)


def test_15_5_score_groups_meet_and_no_one_meets_twice() -> None:
    """RULES 15.5: round 2 pairs winners with winners, losers with losers, none of round 1's pairs again."""
    doc = first_wins(paired(new(8)))
    first = {frozenset(p["players"]) for p in doc["rounds"][0]["pairings"]}
    winners = {p["players"][0] for p in doc["rounds"][0]["pairings"]}
    answer = events.pair(doc)
    for pairing in answer["pairings"]:
        assert frozenset(pairing["players"]) not in first
        assert (pairing["players"][0] in winners) == (pairing["players"][1] in winners)
    assert events.check(first_wins(answer["event"])) == {"ok": True}


def test_15_5_a_rematch_and_a_costlier_pairing_are_refused() -> None:
    """RULES 15.5: the checker names a rematch, and a pairing above the least sum of squares."""
    doc = first_wins(paired(new(8)))
    good = events.pair(doc)["event"]
    rematch = copy.deepcopy(good)
    rematch["rounds"][1]["pairings"] = copy.deepcopy(doc["rounds"][0]["pairings"])
    for p in rematch["rounds"][1]["pairings"]:
        del p["result"]
    refused(events.check, rematch, "15.5", "rematch", 2, 1)
    round1 = doc["rounds"][0]["pairings"]
    w, l_ = [p["players"][0] for p in round1], [p["players"][1] for p in round1]
    costly = copy.deepcopy(doc)  # every winner against a loser of another table: four floats
    costly["rounds"].append({"pairings": [{"players": [w[i], l_[(i + 1) % 4]]} for i in range(4)]})
    exc = refused(events.check, costly, "15.5", "pairing_cost", 2, 1)
    assert "costs 36; 0 is possible" in exc.detail


def test_15_5_the_bye_goes_to_the_lowest_player_without_one() -> None:
    """RULES 15.5: the lowest in the standings who has had no bye; no one has two while others have none."""
    doc = first_wins(paired(new(5, seed="bye")))
    had = doc["rounds"][0]["pairings"][-1]["bye"]
    answer = events.pair(doc)
    bye = answer["pairings"][-1]["bye"]
    assert bye != had
    order = standings_of(doc)
    assert bye == [p for p in order if p != had][-1]
    wrong = copy.deepcopy(answer["event"])
    last = wrong["rounds"][1]["pairings"]
    swap = last[0]["players"].index(last[0]["players"][1])
    last[0]["players"][swap], last[-1]["bye"] = last[-1]["bye"], last[0]["players"][swap]
    refused(events.check, wrong, "15.5", "wrong_bye", 2, len(last))


def test_15_5_the_swiss_rounds_end_when_only_rematches_are_left() -> None:
    """RULES 15.5: with no pairing free of rematches the Swiss rounds end early, never pairing a rematch."""
    doc = new(4, swiss_rounds=5)
    for _ in range(3):  # a round robin of four players
        doc = first_wins(paired(doc))
    answer = events.pair(doc)
    assert answer["swiss_ended"] is True and answer["round"] is None and answer["pairings"] == []
    assert answer["event"]["swiss_ended"] is True and len(answer["event"]["rounds"]) == 3
    refused(events.pair, answer["event"], "15.6", "event_over")
    assert events.standings(answer["event"])["winner"] == standings_of(doc)[0]


# -- RULES 15.6 ------------------------------------------------------------------------


def test_15_6_a_top_8_plays_1_8_4_5_2_7_3_6_and_the_final_decides_the_winner() -> None:
    """RULES 15.6: single elimination of the first 8; winners of 1–8 and 4–5 meet next; the final's winner wins."""
    doc = new(16, cut=8, swiss_rounds=4, seed="cut")
    for _ in range(4):
        doc = first_wins(paired(doc))
    seeds = standings_of(doc)[:8]
    answer = events.pair(doc)
    assert answer["event"]["rounds"][-1]["cut"] is True
    assert [p["players"] for p in answer["pairings"]] == [
        [seeds[0], seeds[7]], [seeds[3], seeds[4]], [seeds[1], seeds[6]], [seeds[2], seeds[5]]
    ]  # fmt: skip
    doc = play(answer["event"], [0, 2], [2, 1], [2, 0], [1, 2])  # 8, 4, 2 and 6 go on
    semis = events.pair(doc)["pairings"]
    assert [p["players"] for p in semis] == [[seeds[3], seeds[7]], [seeds[1], seeds[5]]]  # higher-placed first
    doc = first_wins(events.pair(doc)["event"])
    final = events.pair(doc)
    assert [p["players"] for p in final["pairings"]] == [[seeds[1], seeds[3]]]
    assert "winner" not in events.standings(final["event"])
    doc = play(final["event"], [1, 2])
    assert events.standings(doc)["winner"] == seeds[3]
    assert events.check(doc) == {"ok": True}
    refused(events.pair, doc, "15.6", "event_over")


def test_15_6_a_cut_round_off_the_bracket_is_refused() -> None:
    """RULES 15.6: the checker compares each cut round with the bracket."""
    doc = new(4, cut=4, swiss_rounds=2, seed="c")
    for _ in range(2):
        doc = first_wins(paired(doc))
    seeds = standings_of(doc)
    doc["rounds"].append({"cut": True, "pairings": [{"players": seeds[0:2]}, {"players": seeds[2:4]}]})
    refused(events.check, doc, "15.6", "cut_pairing", 3, 1)


def test_15_6_the_cut_takes_players_who_have_not_dropped() -> None:
    """RULES 15.6: the first in the standings who have not dropped."""
    doc = first_wins(paired(new(4, cut=2, swiss_rounds=1, seed="d")))
    top = standings_of(doc)
    doc["rounds"][0]["drops"] = [top[0]]
    assert events.pair(doc)["pairings"] == [{"table": 1, "players": top[1:3]}]


# -- RULES 15.7 ------------------------------------------------------------------------


def test_15_7_glicko_2_matches_glickmans_published_example() -> None:
    """RULES 15.7: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300 → 1464.06 / 151.52 / 0.05999.

    Glickman's figures round each intermediate step; the exact computation is 1464.0507, within 0.01."""
    after = update(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)])
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_15_7_ratings_move_once_a_round_and_a_bye_or_forfeit_only_grows_the_deviation() -> None:
    """RULES 15.7: a bye and a forfeit are no result; no match: the deviation grows, the rating stays."""
    doc = paired(new(3, seed="rate"))
    assert all(
        r == {"rating": 1500.0, "rd": 350.0, "volatility": 0.06} for r in events.standings(doc)["ratings"].values()
    )
    a, b = doc["rounds"][0]["pairings"][0]["players"]
    bye = doc["rounds"][0]["pairings"][1]["bye"]
    doc["rounds"][0]["pairings"][0]["result"] = {"forfeit": b}
    ratings = events.standings(doc)["ratings"]
    for player in (a, b, bye):
        assert ratings[player]["rating"] == 1500.0 and ratings[player]["rd"] == 350.16  # √(350² + (0.06·173.7)²)
    doc["rounds"][0]["pairings"][0]["result"] = {"games": [2, 0]}
    ratings = events.standings(doc)["ratings"]
    assert ratings[a]["rating"] > 1500 > ratings[b]["rating"]
    assert ratings[bye]["rating"] == 1500.0


def test_15_7_ratings_never_change_pairings_or_standings() -> None:
    """RULES 15.7: a player's starting rating changes no pairing and no standing."""
    doc = first_wins(paired(new(6, seed="r")))
    rated = copy.deepcopy(doc)
    rated["players"][0]["rating"] = {"rating": 2400, "rd": 50, "volatility": 0.06}
    assert events.pair(rated)["pairings"] == events.pair(doc)["pairings"]
    assert events.standings(rated)["standings"] == events.standings(doc)["standings"]


# -- every refusal code asserted ---------------------------------------------------------


def test_every_event_refusal_code_is_asserted_with_its_rule() -> None:
    """Runs last in this file: every code :mod:`referee.events` declares was refused above with its rule id."""
    assert set(events.RULE_OF) - ASSERTED == set()
