"""The meta-tests: every rule id of the project's rules reference, and every violation code, has a test.

A violation code counts as tested when a passing rules test asserted it with
its rule id (``positions.assert_illegal`` / ``assert_violation`` record each
one they check): a probe of what ran, not a text match, so deleting the tests
of a rule fails it. Rule ids are declared with ``@rule(id, *codes)`` on the
checks that raise them (``referee.engine.registry.DECLARED``): every declaration
must be exercised, each of its codes asserted with the declared id. These meta-tests run after the other rules tests
(``tests/rules/conftest.py`` orders them last).

A rule id counts as tested when some test source under ``tests/`` cites it as
``RULES <id>`` (in a test's name comment or docstring) with the id not
followed by another digit or ``.digit``: ``RULES 10.2.1`` cites 10.2.1, not
10.2. (Rules that raise no violation of their own are still checked by citation.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import referee.engine  # noqa: F401  (loads every declaring module)
from referee.engine.messages import MESSAGES
from referee.engine.registry import DECLARED, RULE_OF
from referee.engine.rules_index import rule_ids

from .conftest import HANDLED
from .positions import EXERCISED, FAILED

TESTS = Path(__file__).resolve().parents[1]
RULES_TESTS = Path(__file__).resolve().parent
THIS = Path(__file__).resolve()

# Codes no action can produce with the engine as it is, each with the reason. Keep this short:
# an entry here is a question for the engine, not a permanent exemption.
UNREACHABLE: dict[str, str] = {}


def _sources(root: Path) -> dict[Path, str]:
    return {path: path.read_text("utf-8") for path in sorted(root.rglob("*.py")) if path.resolve() != THIS}


def cited_ids(text: str, rule_id: str) -> bool:
    """Whether ``text`` cites ``RULES <rule_id>`` exactly (not a longer id starting with it)."""
    pattern = r"RULES " + re.escape(rule_id) + r"(?!\d)(?!\.\d)"
    return re.search(pattern, text) is not None


def test_the_citation_pattern_does_not_count_a_sub_rule_for_its_parent():
    assert cited_ids("RULES 10.2.1: ...", "10.2.1")
    assert not cited_ids("RULES 10.2.1: ...", "10.2")
    assert not cited_ids("RULES 10.21", "10.2")
    assert cited_ids("RULES 10.2. Then", "10.2")
    assert cited_ids("(RULES 6.4)", "6.4")


def test_every_rule_id_is_cited_by_a_test():
    """Every id of ``referee.engine.rules_index.rule_ids()`` has a test citing ``RULES <id>``."""
    text = "\n".join(_sources(TESTS).values())
    ids = rule_ids()
    assert len(ids) >= 76
    missing = [rule_id for rule_id in ids if not cited_ids(text, rule_id)]
    assert not missing, f"rule ids no test cites as 'RULES <id>': {', '.join(missing)}"


def require_the_whole_rules_run(request) -> None:
    """The probes read what the other rules tests did: skip unless all of them ran and passed."""
    modules = {item.path.name for item in request.session.items}
    wanted = {p.name for p in RULES_TESTS.glob("test_*.py")} - {THIS.name}
    if not wanted <= modules or FAILED:
        pytest.skip("the probe needs every rules test to run and pass first (run tests/rules whole)")


def test_every_violation_code_is_triggered_with_its_rule_id(request):
    """Every code of messages.py was raised, with the rule id it must carry, by a rules test that ran."""
    require_the_whole_rules_run(request)
    missing = [
        f"{code} (RULES {rule})"
        for code, rule in RULE_OF.items()
        if code not in UNREACHABLE and (rule, code) not in EXERCISED
    ]
    assert not missing, f"violation codes no passing rules test raised: {', '.join(missing)}"


def test_every_declared_rule_is_exercised(request):
    """Every ``@rule`` declaration had each of its codes raised, with its rule id, by a passing rules test."""
    require_the_whole_rules_run(request)
    idle = [
        f"@rule({d.rule!r}) on {d.where}: {code}"
        for d in DECLARED
        for code in d.codes
        if code not in UNREACHABLE and (d.rule, code) not in EXERCISED
    ]
    assert not idle, f"declared rules no passing rules test exercised: {'; '.join(idle)}"


def test_every_declared_handler_ran_in_a_rules_test(request):
    """Every ``@rule(id)`` with no codes (a handler carrying the rule out) ran in a passing rules test."""
    require_the_whole_rules_run(request)
    handlers = [d for d in DECLARED if not d.codes]
    assert len(handlers) >= 35
    idle = [f"@rule({d.rule!r}) on {d.where}" for d in handlers if d not in HANDLED]
    assert not idle, f"declared handlers no rules test ran: {'; '.join(idle)}"


def test_every_violation_text_has_exactly_one_declared_rule():
    """messages.py holds texts only; each of its codes is declared by exactly one ``@rule``."""
    declared = [code for d in DECLARED for code in d.codes]
    assert sorted(declared) == sorted(MESSAGES), "a code of messages.py is undeclared, or declared twice"


def test_a_code_declared_twice_is_refused():
    from referee.engine.errors import rule

    with pytest.raises(AssertionError, match="declared twice"):
        rule("1.1", "file_empty")(lambda: None)


def test_the_unreachable_list_names_only_real_untested_codes():
    """An entry of UNREACHABLE must be a code of messages.py that no rules test triggers yet."""
    text = "\n".join(_sources(RULES_TESTS).values())
    for code in UNREACHABLE:
        assert code in MESSAGES, f"{code} is not a violation code any more"
        rule = RULE_OF[code]
        assert f'"{rule}", "{code}"' not in text, f"{code} is tested now: remove it from UNREACHABLE"
