"""The WSGI entry point: ``referee.service.wsgi:app``, configured from the environment.

Gunicorn (``referee serve``) imports it; so can any other WSGI server. A bad
setting or catalog ends the process with a one-line message, not a traceback.
"""

import encodings.idna  # noqa: F401 - werkzeug's URL map needs it on the first request: load it before forking
import sys

from referee.engine import CatalogError
from referee.service.app import create_app
from referee.service.config import ConfigError

try:
    app = create_app()
except (ConfigError, CatalogError) as exc:
    print(f"referee: error: {' '.join(str(exc).split())}", file=sys.stderr)
    raise SystemExit(2) from None
