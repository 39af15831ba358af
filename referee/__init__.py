"""The Ace File '99 rules referee: the engine (:mod:`referee.engine`), the HTTP service
(:mod:`referee.service`), the HTTP client (:mod:`referee.client`) and the ``referee`` command.

``__version__`` comes from the installed package's metadata (``pyproject.toml`` is the
one place it is written); ``referee --version``, ``GET /livez`` and the OpenAPI
document's ``info.version`` all show it.
"""

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "ace-file-referee"

try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
