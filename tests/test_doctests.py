"""The engine's docstring examples run as tests, so they stay true."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import referee.engine

MODULES = sorted(m.name for m in pkgutil.iter_modules(referee.engine.__path__, "referee.engine."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL)
    assert result.failed == 0
