"""The rules tests: the meta-tests (test_every_rule_is_tested.py) run after all the others,
since they read what the others exercised (``positions.EXERCISED``) and whether any failed."""

from __future__ import annotations

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
