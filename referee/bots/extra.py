"""The optional extra ``bots`` (numpy, gymnasium, pettingzoo): imported here once, with a clear error without it.

``referee.bots`` itself (the bots, determinization, ``/v1/suggest``, the arena) needs none of them; the
environment (:mod:`referee.bots.env`) and the observation encoders (:mod:`referee.bots.encoding`) do.
"""

from __future__ import annotations

INSTALL = (
    "referee.bots.env needs the extra 'bots' (numpy, gymnasium, pettingzoo): from a clone of the referee, "
    "pip install -e '.[bots]' (docs/bots.md)"
)

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:  # one clear line instead of "No module named 'numpy'"
    raise ImportError(f"{INSTALL}; missing: {exc.name}", name=exc.name) from None

__all__ = ["INSTALL", "AECEnv", "np", "spaces"]
