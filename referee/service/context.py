"""The per-app context every part of the service reads: settings, catalog, sealer, cached bodies."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee import engine
from referee.service.config import Settings
from referee.service.private import PrivatePlay
from referee.service.sealing import Sealer, fingerprint


@dataclass
class Referee:
    """Per-app state: settings, the catalog, the sealer and the drain flag."""

    settings: Settings
    catalog: engine.Catalog
    sealer: Sealer | None
    private: PrivatePlay | None = None  # private play (docs/api.md §10) when REFEREE_STATE_KEY is set
    draining: bool = False
    cards_body: bytes = b""
    card_bodies: dict[str, bytes] = field(default_factory=dict)
    rules_body: bytes = b""
    openapi_yaml: str | None = None

    def fingerprints(self) -> dict[str, str]:
        """The fingerprint of each configured key, ``current`` and ``previous`` (``/readyz``,
        ``referee_key_info``): private play's state key, else the sealing secret (never both)."""
        s = self.settings
        keys = {"current": s.state_key or s.secret, "previous": s.previous_state_key or s.previous_secret}
        return {role: fingerprint(key) for role, key in keys.items() if key}
