"""Private play (docs/api.md §10–§12, docs/ledger.md): what keeps a game's secrets and its line of play.

- :mod:`referee.private.tokens`: state tokens (AES-256-GCM) and seats (HMACs), under one state key;
- :mod:`referee.private.sealing`: the seal of a plain state (``REFEREE_SECRET``, docs/api.md §4);
- :mod:`referee.private.ledger`: the ledger of private games, in SQLite or Redis.

It imports the engine only: no Flask, no HTTP. The service (:mod:`referee.service.private`, the
codec of private mode) reads bodies, turns this package's refusals into problems and answers.
"""
