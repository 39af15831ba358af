"""Private play's shortcuts equal the careful code they stand in for (hypothesis).

The seat MAC with its key blocks hashed once is HMAC-SHA256; base64url read
by pybase64 is binascii's strict reading with the same refusals; the view and
the visible cards computed in C are those of the plain loops they replaced,
key order included (an answer's bytes do not change); the events given the
visible cards are those that compute them.
"""

from __future__ import annotations

import binascii
import copy
import hmac
import os

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import Catalog, apply
from referee.engine.events import events_for
from referee.engine.fair_deal import commitment
from referee.engine.playout import play
from referee.engine.views import VIEW_SCHEMA, view_of, visible_cards
from referee.service.private_tokens import Vault, _Keys, _subkey, b64url, unb64url

CATALOG = Catalog.builtin()
# (state, the action played from it), through two games; each state after is apply's
POSITIONS = [
    (copy.deepcopy(s), a)
    for options in ({"response_windows": "strict"}, {})
    for n, (s, a) in enumerate(play(CATALOG, f"private-fast-paths-{len(options)}", options=options))
    if n % 7 == 0
]


# -- the careful code, as it was -------------------------------------------------------------

_DIGIT = {c: i for i, c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")}
_UNUSED_BITS = {2: 0x0F, 3: 0x03}  # in the last digit, by the text's length mod 4


def careful_unb64url(text: str) -> bytes | None:
    try:
        raw = text.encode("ascii")
    except UnicodeEncodeError:
        return None
    rest = len(raw) % 4
    if rest == 1 or b"+" in raw or b"/" in raw or b"=" in raw:
        return None
    try:
        data = binascii.a2b_base64(
            raw.translate(bytes.maketrans(b"-_", b"+/")) + b"=" * (-len(raw) % 4), strict_mode=True
        )
    except binascii.Error:
        return None
    if rest and _DIGIT[raw[-1]] & _UNUSED_BITS[rest]:
        return None
    return data


def careful_visible_cards(state: dict, viewer: int) -> set[str]:
    known = set(state["players"][viewer]["hand"])
    for i, pl in enumerate(state["players"]):
        known.update(pl["trash"])
        known.update(e["card"] for e in pl["fairies"])
        known.update(e["card"] for e in pl["evidence"])
        known.update(e["card"] for e in pl["cases"] if i == viewer or e["face_up"])
    pen = state["pending"]
    if pen is not None:
        known.update(pen["counters"])
        act = pen["action"]
        if act["type"] != "play_case" and "card" in act:
            known.add(act["card"])
    return known


def careful_view(s: dict, player: int) -> dict:
    known = careful_visible_cards(s, player)
    out = {k: v for k, v in s.items() if k not in ("seed", "rng", "seal", "cards", "players")}
    out["schema"] = VIEW_SCHEMA
    out["viewer"] = player
    out["commitment"] = commitment(s["seed"])
    out["cards"] = {iid: cid for iid, cid in s["cards"].items() if iid in known}
    out["players"] = [{**pl, "file": len(pl["file"])} for pl in s["players"]]
    return out


# -- base64url ---------------------------------------------------------------------------------

URL_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
near_base64 = st.text(st.sampled_from(URL_DIGITS + '+/=\\"\n \x00\x7fé\u00ff'), max_size=40)


@settings(max_examples=3000, deadline=None)
@given(st.one_of(st.text(max_size=40), near_base64, st.text(st.sampled_from(URL_DIGITS), max_size=40)))
def test_base64url_is_read_as_binascii_strictly_reads_it(text):
    assert unb64url(text) == careful_unb64url(text)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200), st.data())
def test_base64url_reads_back_what_it_wrote_and_refuses_any_one_change(data, draw):
    text = b64url(data)
    assert unb64url(text) == careful_unb64url(text) == data
    if text:
        i = draw.draw(st.integers(0, len(text) - 1))
        changed = text[:i] + draw.draw(st.characters(codec="utf-8")) + text[i + 1 :]
        assert unb64url(changed) == careful_unb64url(changed)


def test_a_whole_token_is_read_alike():
    vault = Vault(os.urandom(32))
    for state, _ in POSITIONS[:5]:
        body = vault.token(state)[len("afs1.") :]
        assert unb64url(body) == careful_unb64url(body) is not None


# -- the seat MAC ------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.text(max_size=60), st.integers(0, 1))
def test_the_seat_mac_is_hmac_sha256(key, game_id, player):
    msg = b"afk1" + game_id.encode("utf-8") + b"\x00" + bytes((player,))
    assert _Keys(key).seat_mac(game_id, player) == hmac.digest(_subkey(key, b"seat afk1"), msg, "sha256")


# -- tokens ------------------------------------------------------------------------------------


def test_a_token_holds_the_state_as_compact_json_and_opens_to_it():
    vault = Vault(os.urandom(32))
    for state, _ in POSITIONS[:10]:
        opened = vault.open(vault.token(state))
        assert opened == state and list(opened) == list(state)
        assert vault.open(vault.token({**state, "seal": "hmac-sha256:00"})) == state


# -- views and events --------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(POSITIONS), st.integers(0, 1), st.data())
def test_the_view_is_the_careful_view_byte_for_byte(position, viewer, data):
    state = copy.deepcopy(position[0])
    for pl in state["players"]:  # cases turned either way, to reach both sides of RULES 4.4
        for case in pl["cases"]:
            case["face_up"] = data.draw(st.booleans())
    if data.draw(st.booleans()):  # any order of cards is kept as it came
        items = list(state["cards"].items())
        state["cards"] = dict(data.draw(st.permutations(items)))
    known = visible_cards(state, viewer)
    assert known == careful_visible_cards(state, viewer)
    expected = orjson.dumps(careful_view(state, viewer))
    assert orjson.dumps(view_of(state, viewer)) == orjson.dumps(view_of(state, viewer, known)) == expected


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(POSITIONS), st.sampled_from([0, 1, None]))
def test_events_given_the_visible_cards_are_those_computed_alone(position, viewer):
    state, events = apply(CATALOG, *position)
    reveal = {"type": "reveal", "case": next(iter(state["cards"])), "card": "AF-001"}
    events = [*events, reveal]
    known = visible_cards(state, viewer) if viewer is not None else None
    assert events_for(events, state, viewer, known) == events_for(events, state, viewer)
