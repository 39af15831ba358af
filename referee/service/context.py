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
        ``referee_key_info``): the sealing secret, or private play's state key when that mode
        has one (getattr: the setting exists only in builds with private play)."""
        s = self.settings
        keys = {
            "current": getattr(s, "state_key", None) or s.secret,
            "previous": getattr(s, "previous_state_key", None) or s.previous_secret,
        }
        return {role: fingerprint(key) for role, key in keys.items() if key}
