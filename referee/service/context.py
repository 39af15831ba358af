"""The per-app context every part of the service reads: settings, catalog, the mode's codec, cached bodies."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee import engine
from referee.private.sealing import fingerprint
from referee.service.codecs import Codec
from referee.service.config import Settings
from referee.service.heavy import HeavyWork


@dataclass
class Referee:
    """Per-app state: settings, the catalog, the codec of the mode (plain, sealed, private), the drain flag."""

    settings: Settings
    catalog: engine.Catalog
    codec: Codec
    heavy: HeavyWork  # docs/api.md §16: suggestions, records from the ledger, pairings
    draining: bool = False
    cards_body: bytes = b""
    card_bodies: dict[str, bytes] = field(default_factory=dict)
    rules_body: bytes = b""
    formats_body: bytes = b""
    openapi_yaml: str | None = None

    def fingerprints(self) -> dict[str, str]:
        """The fingerprint of each configured key, ``current`` and ``previous`` (``/readyz``,
        ``referee_key_info``): private play's state key, else the sealing secret (never both)."""
        s = self.settings
        keys = {"current": s.state_key or s.secret, "previous": s.previous_state_key or s.previous_secret}
        return {role: fingerprint(key) for role, key in keys.items() if key}
