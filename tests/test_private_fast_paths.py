"""Private play's base64url reading (a shortcut of referee/service/shortcuts.py) equals its careful twin.

tests/test_service_shortcuts.py holds it to ``unb64url_careful`` through the
endpoints; here the two readers are compared on any text, and the careful one
is held to its own promise: what ``b64url`` wrote reads back, and any one
change of a character is refused or read as other bytes, never silently equal.
"""

from __future__ import annotations

import copy
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import Catalog
from referee.engine.playout import play
from referee.private.tokens import Vault, b64url, unb64url
from referee.private.tokens import unb64url_careful as careful_unb64url

CATALOG = Catalog.builtin()
# (state, the action played from it), through two games; each state after is apply's
POSITIONS = [
    (copy.deepcopy(s), a)
    for options in ({"response_windows": "strict"}, {})
    for n, (s, a) in enumerate(play(CATALOG, f"private-fast-paths-{len(options)}", options=options))
    if n % 7 == 0
]


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
        assert changed == text or careful_unb64url(changed) != data


def test_a_whole_token_is_read_alike():
    vault = Vault(os.urandom(32))
    for state, _ in POSITIONS[:5]:
        body = vault.token(state)[len("afs1.") :]
        assert unb64url(body) == careful_unb64url(body) is not None


# -- tokens ------------------------------------------------------------------------------------


def test_a_token_holds_the_state_as_compact_json_and_opens_to_it():
    vault = Vault(os.urandom(32))
    for state, _ in POSITIONS[:10]:
        opened = vault.open(vault.token(state))
        assert opened == state and list(opened) == list(state)
        assert vault.open(vault.token({**state, "seal": "hmac-sha256:00"})) == state
