"""The engine's docstring examples run as tests, so they stay true, messages included.

Only modules that have examples are collected (a module without one would pass
vacuously), and exceptions are compared with their messages: the documented
message is the one a client reads.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import referee.engine

_FINDER = doctest.DocTestFinder()


def _examples(name: str) -> list[doctest.DocTest]:
    return [t for t in _FINDER.find(importlib.import_module(name)) if t.examples]


MODULES = sorted(m.name for m in pkgutil.iter_modules(referee.engine.__path__, "referee.engine.") if _examples(m.name))


def test_the_engine_documents_its_main_modules_with_examples():
    assert {"referee.engine.facts", "referee.engine.parse", "referee.engine.state"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in _examples(name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0
