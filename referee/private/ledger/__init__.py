"""The ledger of private games (docs/api.md §11, docs/ledger.md)."""
