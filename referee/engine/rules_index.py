"""The rule index: every rule id of the project's rules reference with its text.

The reference is ``referee/data/rules.md`` (``docs/rules.md`` is a symlink to
it), shipped in the package and read through :mod:`importlib.resources`. A rule
is a list item whose text starts with its bold id::

    - **10.4** Power below the level: the investigation fails. The
      investigator's fairies ...

Its entry is ``{"id": "10.4", "text": "Power below the level: ..."}``: the
bold id is dropped, continuation lines are joined with single spaces, and
nested list items without an id of their own (9.4's ``auto`` / ``strict``)
become part of their parent's text. Nested items with an id (``10.6.1``) are
rules of their own. Headings, tables, paragraphs and the project's
``> Note:`` blockquotes are not rules and end the rule before them.

Pure Python: the service's ``GET /v1/rules`` and the tests use the same parser.

>>> rule_text("1.1")
'Two players. Three or more players are not supported.'
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

__all__ = ["load_rules", "parse_rules", "rule_ids", "rule_text"]

# "- **10.6.1** text", at any indent.
_RULE = re.compile(r"^(?P<indent>[ \t]*)[-*] \*\*(?P<id>\d+(?:\.\d+)+)\*\*(?:[ \t]+(?P<text>.*))?$")
# A nested list item without an id: "  - `auto` (default): ...".
_SUB_ITEM = re.compile(r"^[-*+][ \t]+")


def parse_rules(text: str) -> list[dict[str, str]]:
    """Every rule of a rules document, ``[{"id", "text"}, ...]`` in document order.

    Raises ``ValueError`` if one id appears twice.
    """
    rules: list[dict[str, str]] = []
    current: list[str] | None = None  # the text parts of the rule being read
    current_id = ""
    seen: set[str] = set()

    def close() -> None:
        nonlocal current
        if current is not None:
            rules.append({"id": current_id, "text": " ".join(p for p in current if p)})
        current = None

    for line in text.splitlines():
        match = _RULE.match(line)
        if match:
            close()
            current_id = match["id"]
            if current_id in seen:
                raise ValueError(f"rule {current_id} appears twice")
            seen.add(current_id)
            current = [(match["text"] or "").strip()]
            continue
        stripped = line.strip()
        if current is not None and stripped and line[:1] in (" ", "\t") and not stripped.startswith(">"):
            # A continuation line, or a nested item without an id of its own.
            current.append(_SUB_ITEM.sub("", stripped, count=1))
            continue
        # A blank line, heading, table row, paragraph or blockquote ends the rule.
        close()
    close()
    return rules


@lru_cache(maxsize=1)
def _packaged() -> tuple[tuple[str, str], ...]:
    text = resources.files("referee.data").joinpath("rules.md").read_text("utf-8")
    return tuple((r["id"], r["text"]) for r in parse_rules(text))


def load_rules() -> list[dict[str, str]]:
    """The rules of the packaged reference, ``[{"id": "10.4", "text": "..."}, ...]``.

    Parsed once; every call returns a fresh list the caller may change.
    """
    return [{"id": rule_id, "text": text} for rule_id, text in _packaged()]


def rule_ids() -> list[str]:
    """Every rule id, in document order."""
    return [rule_id for rule_id, _ in _packaged()]


def rule_text(rule_id: str) -> str:
    """The text of one rule; ``KeyError`` for an unknown id."""
    for known, text in _packaged():
        if known == rule_id:
            return text
    raise KeyError(rule_id)
