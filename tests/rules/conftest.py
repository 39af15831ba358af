"""The rules tests: the meta-tests (test_every_rule_is_tested.py) run after all the others,
since they read what the others exercised (``positions.EXERCISED``, ``HANDLED``) and whether any failed.

The handlers declared with ``@rule(id)`` and no codes are probed: each is replaced, wherever an engine
module or class holds it (a function, or a method such as ``Game.case_leaves``), by a wrapper that records
it in ``HANDLED`` while a rules test runs (the engine itself wraps nothing). Deselecting the tests that run a
handler fails the meta-test: ``pytest tests/rules -k "not test_4_1 and not test_4_4"`` names
``@rule('4.4') on visible_cards``.
"""

from __future__ import annotations

import functools
import sys

import referee.engine  # noqa: F401  (loads every declaring module)
from referee.engine.registry import DECLARED, Declaration

from .positions import FAILED

META = "test_every_rule_is_tested.py"


def pytest_collection_modifyitems(session, config, items):
    rules = [i for i, item in enumerate(items) if item.path.parent.name == "rules"]
    if rules:
        end = rules[-1] + 1
        block = items[rules[0] : end]
        items[rules[0] : end] = sorted(block, key=lambda item: item.path.name == META)


def pytest_runtest_logreport(report):
    if report.failed and "/rules/" in report.nodeid.replace("\\", "/") and META not in report.nodeid:
        FAILED.append(report.nodeid)


HANDLED: set[Declaration] = set()  # handler declarations a rules test ran
_IN_RULES_TEST = [False]


def _probe(original, declarations: list[Declaration]):
    @functools.wraps(original)
    def probe(*args, **kwargs):
        if _IN_RULES_TEST[0]:
            HANDLED.update(declarations)
        return original(*args, **kwargs)

    return probe


def _install_probes() -> None:
    """Wrap each declared handler wherever the engine holds it: a module's name for a function, a class's
    attribute for a method (several ``@rule`` on one handler share one probe)."""
    handlers: dict[int, list[Declaration]] = {}
    for declaration in DECLARED:
        if not declaration.codes:
            handlers.setdefault(id(declaration.target), []).append(declaration)
    modules = [m for name, m in list(sys.modules.items()) if name.startswith("referee.") and m is not None]
    namespaces = list(modules) + [
        value
        for m in modules
        for value in vars(m).values()
        if isinstance(value, type) and value.__module__.startswith("referee.")
    ]
    probes = {key: _probe(found[0].target, found) for key, found in handlers.items()}
    for namespace in namespaces:
        for name, value in list(vars(namespace).items()):
            if id(value) in probes and any(value is d.target for d in handlers[id(value)]):
                setattr(namespace, name, probes[id(value)])


_install_probes()


def pytest_runtest_setup(item):
    _IN_RULES_TEST[0] = item.path.parent.name == "rules" and item.path.name != META


def pytest_runtest_teardown(item):
    _IN_RULES_TEST[0] = False
