"""Sealing (docs/api.md §4): a MAC that proves a state came from a referee.

With a secret, every state the service returns carries
``"seal": "hmac-sha256:<64 hex digits>"``: HMAC-SHA256 under the secret over
the state's canonical form, which is the state without ``seal``, serialised
as compact UTF-8 JSON with object keys sorted (``orjson`` with
``OPT_SORT_KEYS``). Every replica started with the same secret computes the
same seal, so any of them accepts the others' states. Seals are compared in
constant time.

Without a secret nothing is sealed and an incoming ``seal`` is ignored (it
passes through the engine like any other optional field), so a sealed state
can still be inspected by an unsealed referee.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import orjson

PREFIX = "hmac-sha256:"


def fingerprint(key: bytes) -> str:
    """A key's public fingerprint: the first 8 bytes of HMAC-SHA256(key, "fingerprint"), in hex.

    Shown in ``/readyz`` and as a metric so operators can see which key each
    replica runs; it reveals nothing usable about the key.
    """
    return hmac.new(key, b"fingerprint", hashlib.sha256).hexdigest()[:16]


class SealError(Exception):
    """The state's seal is missing or does not match: ``code`` ``seal_missing`` or ``seal_mismatch``, and why.

    The service answers it as the problem ``seal-mismatch`` (403, docs/api.md §4).
    """

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code = code
        self.detail = detail


def canonical(state: dict[str, Any]) -> bytes:
    """The bytes a seal covers: the state minus ``seal``, keys sorted, compact."""
    if "seal" in state:
        state = {k: v for k, v in state.items() if k != "seal"}
    return orjson.dumps(state, option=orjson.OPT_SORT_KEYS)


class Sealer:
    """Seals and checks states under one secret (and optionally a previous one)."""

    def __init__(self, secret: bytes, previous: bytes | None = None):
        self._keys = (secret,) if previous is None else (secret, previous)

    def seal_of(self, state: dict[str, Any], key: bytes | None = None) -> str:
        mac = hmac.new(key or self._keys[0], canonical(state), hashlib.sha256)
        return PREFIX + mac.hexdigest()

    def seal(self, state: dict[str, Any]) -> dict[str, Any]:
        """The state with its ``seal`` set (the dict is updated in place and returned)."""
        state.pop("seal", None)
        state["seal"] = self.seal_of(state)
        return state

    def check(self, state: dict[str, Any]) -> None:
        """Raise :class:`SealError` unless ``state`` carries a seal made under our secret."""
        given = state.get("seal")
        if given is None:
            raise SealError("seal_missing", "Sealing is on and the state carries no seal.")
        if not isinstance(given, str):
            raise SealError("seal_mismatch", "The state's seal does not match its content.")
        blob = canonical(state)
        for key in self._keys:
            expected = PREFIX + hmac.new(key, blob, hashlib.sha256).hexdigest()
            if hmac.compare_digest(expected.encode("ascii"), given.encode("utf-8", "replace")):
                return
        raise SealError("seal_mismatch", "The state's seal does not match its content.")
