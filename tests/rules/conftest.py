"""The rules tests: the meta-tests (test_every_rule_is_tested.py) run after all the others,
since they read what the others exercised (``positions.EXERCISED``, ``HANDLED``) and whether any failed.

The handlers declared with ``@rule(id)`` and no codes are probed: each is replaced, wherever an engine
module holds it, by a wrapper that records it in ``HANDLED`` while a rules test runs (the engine itself
wraps nothing).
"""

from __future__ import annotations

import functools
import sys

import referee.engine  # noqa: F401  (loads every declaring module)
from referee.engine.errors import DECLARED, Declaration

from .positions import FAILED

META = "test_every_rule_is_tested.py"


def pytest_collection_modifyitems(session, config, items):
    rules = [i for i, item in enumerate(items) if item.path.parent.name == "rules"]
    if rules:
        end = rules[-1] + 1
        block = items[rules[0]:end]
        items[rules[0]:end] = sorted(block, key=lambda item: item.path.name == META)


def pytest_runtest_logreport(report):
    if report.failed and "/rules/" in report.nodeid.replace("\\", "/") and META not in report.nodeid:
        FAILED.append(report.nodeid)


HANDLED: set[Declaration] = set()  # handler declarations a rules test ran
_IN_RULES_TEST = [False]


def _probe(declaration: Declaration):
    original = declaration.target

    @functools.wraps(original)
    def probe(*args, **kwargs):
        if _IN_RULES_TEST[0]:
            HANDLED.add(declaration)
        return original(*args, **kwargs)
    return probe


def _install_probes() -> None:
    modules = [m for name, m in list(sys.modules.items()) if name.startswith("referee.") and m is not None]
    for declaration in DECLARED:
        if declaration.codes:
            continue
        probe = _probe(declaration)
        for module in modules:
            for name, value in list(vars(module).items()):
                if value is declaration.target:
                    setattr(module, name, probe)


_install_probes()


def pytest_runtest_setup(item):
    _IN_RULES_TEST[0] = item.path.parent.name == "rules" and item.path.name != META


def pytest_runtest_teardown(item):
    _IN_RULES_TEST[0] = False
