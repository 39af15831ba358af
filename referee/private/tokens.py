"""State tokens and seats of private play (docs/api.md §10), with the ``cryptography`` package.

One 256-bit key (``REFEREE_STATE_KEY``) gives two sub-keys by HKDF-SHA256,
each with its own ``info``, so a key is never used for two purposes:

- **state tokens**: ``afs1.`` + base64url(nonce ‖ ciphertext ‖ tag), the
  canonical state (without ``seal``, compact UTF-8 JSON, in the engine's
  normal form: every object's keys in the order the model declares, ``cards``
  in the order of the deal) encrypted with AES-256-GCM under a fresh random
  96-bit nonce, with the prefix ``afs1`` as associated data. No compression
  before encryption (its length would leak what the state holds). The keys
  are not sorted, as sealing sorts them: only a referee reads the text, and it
  reads any order (tokens made with sorted keys open alike); sorting cost a
  tenth of making a token.
- **seats**: ``afk1.`` + base64url(player ‖ HMAC-SHA256(seat key,
  ``afk1`` ‖ game id ‖ 0x00 ‖ player)); valid for that game and player only.
  The spectator key (``watch``) is the same with the role 2 in the player's place.

A previous key (``REFEREE_STATE_KEY_PREVIOUS``) is tried after the current
one when opening and checking, never used to make anything. Base64url is
read strictly (the canonical spelling only), so flipping any character of a
token or seat makes it refused, never silently equal.
"""

from __future__ import annotations

import binascii
import hmac
import os
from typing import Any

import orjson
import pybase64
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

TOKEN_PREFIX = "afs1."
SEAT_PREFIX = "afk1."
_AAD = b"afs1"
_NONCE = 12
_TAG = 16
WATCH = 2  # the spectator's role in a seat's MAC (docs/api.md §12): a key of the same form, never a player's
ROLES = (0, 1, WATCH)


class TokenError(Exception):
    """A token or seat that does not open or check: ``code`` ``bad_token`` or ``bad_seat``, and why.

    The service answers it as the problem of that name (403, docs/api.md §10).
    """

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code = code
        self.detail = detail


def _subkey(key: bytes, purpose: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"ace-file-referee " + purpose).derive(key)


_DIGIT = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")}
_UNUSED_BITS = {2: 0x0F, 3: 0x03}  # in the last digit, by the text's length mod 4
_PAD = ("", "", "==", "=")  # by the text's length mod 4 (1 is no base64 length: refused before)
_URL = "-_"  # the URL alphabet's last two digits, for pybase64's altchars


# pybase64 (SIMD base64) writes and reads the URL alphabet itself: no translating pass, no copies
# but the answer.
def b64url(data: bytes) -> str:
    return pybase64.b64encode_as_string(data, altchars=_URL).rstrip("=")


def unb64url(text: str) -> bytes | None:
    """The bytes of a canonical unpadded base64url string, else None: :func:`unb64url_careful`'s answer.

    A shortcut of the service's registry (``referee/service/shortcuts.py``): pybase64's reading, with the
    checks its decoder leaves out, in place of binascii's strict one.
    """
    rest = len(text) % 4
    # validate=True refuses any other character (and a non-ASCII text); "+" and "/", the standard
    # alphabet's digits, are refused here, as they are not this alphabet's.
    if rest == 1 or "+" in text or "/" in text or "=" in text:
        return None
    try:
        data = pybase64.b64decode(text + _PAD[rest], altchars=_URL, validate=True)
    except ValueError:  # binascii.Error is one
        return None
    if rest and _DIGIT[text[-1]] & _UNUSED_BITS[rest]:  # the decoder does not look at these bits
        return None
    return data


_TO_STANDARD = bytes.maketrans(b"-_", b"+/")


def unb64url_careful(text: str) -> bytes | None:
    """The bytes of a canonical unpadded base64url string, else None.

    Strict: only the URL alphabet, no padding, and the last digit's unused
    bits zero, so each byte string has exactly one spelling (binascii's strict
    mode, after translating the URL alphabet to the standard one).
    """
    try:
        raw = text.encode("ascii")
    except UnicodeEncodeError:
        return None
    rest = len(raw) % 4
    if rest == 1 or b"+" in raw or b"/" in raw or b"=" in raw:
        return None
    try:
        data = binascii.a2b_base64(raw.translate(_TO_STANDARD) + b"=" * (-len(raw) % 4), strict_mode=True)
    except binascii.Error:
        return None
    if rest and _DIGIT[text[-1]] & _UNUSED_BITS[rest]:
        return None
    return data


class _Keys:
    """The sub-keys of one state key, ready to use: made once, at start-up."""

    def __init__(self, key: bytes):
        self.aead = AESGCM(_subkey(key, b"state-token afs1"))
        self.seat_key = _subkey(key, b"seat afk1")

    def seat_mac(self, game_id: str, player: int) -> bytes:
        """HMAC-SHA256(seat key, ``afk1`` ‖ game id ‖ 0x00 ‖ player)."""
        return hmac.digest(self.seat_key, b"afk1" + game_id.encode("utf-8") + b"\x00" + bytes((player,)), "sha256")


class Vault:
    """Makes and opens state tokens and seats under a key (and a previous one, for rotation)."""

    def __init__(self, key: bytes, previous: bytes | None = None):
        self._keys = [_Keys(key)] + ([_Keys(previous)] if previous is not None else [])

    # -- state tokens ----------------------------------------------------------

    def token(self, state: dict[str, Any]) -> str:
        nonce = os.urandom(_NONCE)
        if "seal" in state:  # never in a state the engine made; kept out all the same
            state = {k: v for k, v in state.items() if k != "seal"}
        plain = orjson.dumps(state)
        return TOKEN_PREFIX + b64url(nonce + self._keys[0].aead.encrypt(nonce, plain, _AAD))

    def open(self, token: Any) -> dict[str, Any]:
        """The state inside ``token``; :class:`TokenError` ``bad_token`` unless it opens under a key."""
        data = (
            unb64url(token[len(TOKEN_PREFIX) :]) if isinstance(token, str) and token.startswith(TOKEN_PREFIX) else None
        )
        if data is None or len(data) < _NONCE + _TAG:
            raise TokenError("bad_token", "The state is not a state token of this referee (afs1.…).")
        nonce, sealed = data[:_NONCE], data[_NONCE:]
        for keys in self._keys:
            try:
                plain = keys.aead.decrypt(nonce, sealed, _AAD)
            except InvalidTag:
                continue
            state: dict[str, Any] = orjson.loads(plain)
            return state
        raise TokenError(
            "bad_token",
            "The state token does not open under this referee's key: it was "
            "changed, or made by a referee with another key.",
        )

    # -- seats -------------------------------------------------------------------

    def seat(self, game_id: str, player: int) -> str:
        """Player ``player``'s seat of the game, or with :data:`WATCH` its spectator key (docs/api.md §12)."""
        return SEAT_PREFIX + b64url(bytes((player,)) + self._keys[0].seat_mac(game_id, player))

    def seat_player(self, seat: Any, game_id: str | None) -> tuple[int, bool]:
        """The player ``seat`` is for in game ``game_id``, and whether it was made under the current key.

        :class:`TokenError` ``bad_seat`` unless it is a seat of this game. The game's spectator key
        gives :data:`WATCH`, which callers refuse wherever a player must act.
        """
        data = unb64url(seat[len(SEAT_PREFIX) :]) if isinstance(seat, str) and seat.startswith(SEAT_PREFIX) else None
        if data is not None and len(data) == 33 and data[0] in ROLES and game_id is not None:
            player, mac = data[0], data[1:]
            for index, keys in enumerate(self._keys):
                if hmac.compare_digest(mac, keys.seat_mac(game_id, player)):
                    return player, index == 0
        raise TokenError("bad_seat", "The seat is not a seat of this game (afk1.…, as POST /v1/games gave it).")
