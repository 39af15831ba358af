"""The HTTP service (API.md §1): Flask app, sealing, metrics, logs, gunicorn config."""
