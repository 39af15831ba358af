"""Scenario files: rule regression tests for users' CI (``referee check``, ``record``, ``replay``).

The format is documented in docs/scenarios.md and described by the JSON Schema
``referee/data/scenario.schema.json``. The modules, each short:

- :mod:`.source` — YAML/JSON with line numbers; :class:`ScenarioError`.
- :mod:`.model` — schema validation; :class:`Scenario`.
- :mod:`.refs` — card references (``p0.hand.AF-001``).
- :mod:`.build` — ``given``: decks with ``top``, filler, positions.
- :mod:`.backends` — in-process engine or HTTP service.
- :mod:`.runner` — run one scenario, judge it, explain failures.
- :mod:`.assertions` — ``then`` matching and readable state.
- :mod:`.invariants` — ``then.invariants``: what must hold at every step (``referee fuzz`` checks the same).
- :mod:`.check` — files, summary line, exit code; :mod:`.junit` — JUnit XML.
- :mod:`.record` — golden playthroughs and recorded games; :mod:`.fuzz` — ``referee fuzz``.

The subcommands themselves are :mod:`referee.cli`.

In Python::

    from referee.engine import Catalog
    from referee.scenarios import InProcess, load, run
    backend = InProcess(Catalog.builtin())
    for sc in load("examples/scenarios/8.2-voluntary-draw-from-empty-file.yaml"):
        print(run(sc, backend).status)
"""

from referee.scenarios.backends import Http, InProcess, Refusal
from referee.scenarios.model import Scenario, load, parse, schema
from referee.scenarios.runner import Result, run
from referee.scenarios.source import ScenarioError

__all__ = ["Http", "InProcess", "Refusal", "Result", "Scenario", "ScenarioError", "load", "parse", "run", "schema"]
