"""The HTTP service (docs/api.md §1): Flask app, sealing, metrics, logs, gunicorn config."""
