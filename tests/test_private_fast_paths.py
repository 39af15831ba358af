"""Private play's shortcuts equal the careful code they stand in for (hypothesis).

The seat MAC with its key blocks hashed once is HMAC-SHA256; base64url read
by pybase64 is binascii's strict reading with the same refusals. (The view and
its events are held to the contract itself in ``tests/test_views.py``.)
"""

from __future__ import annotations

import binascii
import copy
import hmac
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import Catalog
from referee.engine.playout import play
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
