"""The per-app context every part of the service reads: settings, catalog, sealer, cached bodies."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee import engine
from referee.service.config import Settings
from referee.service.sealing import Sealer


@dataclass
class Referee:
    """Per-app state: settings, the catalog, the sealer and the drain flag."""

    settings: Settings
    catalog: engine.Catalog
    sealer: Sealer | None
    draining: bool = False
    cards_body: bytes = b""
    card_bodies: dict[str, bytes] = field(default_factory=dict)
    rules_body: bytes = b""
    openapi_yaml: str | None = None

    def fingerprints(self) -> dict[str, str]:
        """The fingerprint of each configured key, by role (``/readyz``, ``referee_key_info``)."""
        return dict(self.sealer.fingerprints) if self.sealer is not None else {}
