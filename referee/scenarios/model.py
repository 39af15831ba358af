"""A scenario: one checked YAML document of the format (docs/scenarios.md).

:func:`parse` validates a :class:`~referee.scenarios.source.Document` against
the JSON Schema shipped in the package (``referee/data/scenario.schema.json``),
then the few cross-field rules a schema says badly, and returns a
:class:`Scenario`. Everything wrong raises a
:class:`~referee.scenarios.source.ScenarioError` naming the file, the line and
the field.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema_rs

from referee.engine.rules_index import rule_ids
from referee.scenarios.refs import RefError, action_refs, looks_like_ref, parse_ref
from referee.scenarios.source import Document, ScenarioError, dotted, load_documents

Index = int | str  # an action index, "given" or "any"


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The scenario format's JSON Schema (Draft 2020-12)."""
    text = resources.files("referee.data").joinpath("scenario.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@lru_cache(maxsize=1)
def _validator() -> Any:
    return jsonschema_rs.validator_for(schema())


@lru_cache(maxsize=1)
def _rules() -> frozenset[str]:
    return frozenset(rule_ids())


@dataclass
class Scenario:
    doc: Document
    name: str
    rule: str | None
    given_kind: str  # "game", "state" or "position"
    given: Any
    when: list[Any]
    then: dict[str, Any]
    expect: str  # "legal", "violation" or "error"
    expect_index: Index  # for violation / error: the step that must be refused
    assertions: dict[str, Any] = field(default_factory=dict)
    invariants: dict[str, Any] = field(default_factory=dict)  # then.invariants (referee/scenarios/invariants.py)
    raw_game: bool = False  # a NewGame sent exactly as written (replay of an API body)

    @property
    def file(self) -> str:
        return self.doc.file

    @property
    def label(self) -> str:
        """``file`` or, for the second scenario of a file on, ``file#2`` (1-based)."""
        return self.doc.file if self.doc.index == 0 else f"{self.doc.file}#{self.doc.index + 1}"

    def line_of(self, *path: Any) -> int:
        return self.doc.line_of(tuple(path))

    def where(self, *path: Any) -> str:
        """``when.3 (line 12)``: a field and its line, for messages."""
        return f"{dotted(path)} (line {self.line_of(*path)})"


_EXPECT_KEYS = ("legal", "violation", "error")


def parse(doc: Document) -> Scenario:  # noqa: C901 (one branch per section of the scenario format; to be split)
    """A :class:`Scenario` from one document, or the :class:`ScenarioError` of its first problem."""
    data = doc.data
    if not isinstance(data, dict):
        raise doc.error((), "a scenario is a mapping with given, when and then")
    # An unknown key comes first: a misspelt one (``than:``) is why a required one (``then``) is missing.
    errors = sorted(
        _validator().iter_errors(data),
        key=lambda e: (not _unknown_keys(e), doc.line_of(tuple(e.instance_path))),
    )
    if errors:
        first = errors[0]
        path = tuple(first.instance_path)
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        unknown = _unknown_keys(first)
        if unknown:
            raise doc.error((*path, unknown[0]), _unknown_key_message(first, unknown) + more)
        raise doc.error(path, _message(first, data) + more)
    rule = data.get("rule")
    if rule is not None and rule not in _rules():
        raise doc.error(("rule",), f"{rule} is not a rule id of the rules reference")
    then = data["then"]
    present = [k for k in _EXPECT_KEYS if k in then]
    if "violation" in present and "error" in present:
        raise doc.error(("then",), "give violation or error, not both")
    if "legal" in present and len(present) > 1:
        raise doc.error(("then", "legal"), f"legal: true contradicts {present[1]}")
    expect = "violation" if "violation" in then else "error" if "error" in then else "legal"
    when = data.get("when") or []
    expect_index: Index = "given" if not when else len(when) - 1
    if expect != "legal":
        vrule = then[expect].get("rule")
        if vrule is not None and vrule not in _rules():
            raise doc.error(("then", expect, "rule"), f"{vrule} is not a rule id of the rules reference")
        index = then[expect].get("index", expect_index)
        if isinstance(index, int) and index >= len(when):
            raise doc.error(("then", expect, "index"), f"there is no action {index}: when has {len(when)} action(s)")
        expect_index = index
    invariants = then.get("invariants", {})
    if "ends_within" in invariants and expect != "legal":
        raise doc.error(("then", "invariants", "ends_within"), f"ends_within goes with a legal outcome, not {expect}")
    probes = [(("then", "invariants", "refusal", i), a) for i, a in enumerate(invariants.get("refusal", ()))]
    for path, action in [(("when", i), a) for i, a in enumerate(when)] + probes:
        for sub, text in action_refs(action):
            try:
                parse_ref(text)
            except RefError as exc:
                raise doc.error((*path, *sub), str(exc)) from None
    for key, _value in then.items():
        if looks_like_ref(key) and key.count(".") >= 2:
            try:
                parse_ref(key)
            except RefError as exc:
                raise doc.error(("then", key), str(exc)) from None
    assertions = {k: v for k, v in then.items() if k not in (*_EXPECT_KEYS, "invariants")}
    kind = next(iter(data["given"]))
    name = data.get("name") or Path(doc.file).stem
    return Scenario(
        doc, name, rule, kind, data["given"][kind], when, then, expect, expect_index, assertions, invariants
    )


def load(path: str | Path, text: str | None = None) -> list[Scenario]:
    """Every scenario of one file (raises :class:`ScenarioError` at the first malformed one)."""
    docs = load_documents(path, text)
    if not docs:
        raise ScenarioError(str(path), None, None, "the file holds no scenario")
    return [parse(d) for d in docs]


def _unknown_keys(err: Any) -> list[str]:
    """The keys a mapping may not hold, when that is the schema error (``additionalProperties``)."""
    unexpected = getattr(err.kind, "unexpected", None)
    return [str(key) for key in unexpected] if unexpected else []


def _unknown_key_message(err: Any, unknown: list[str]) -> str:
    """``unknown key 'than' (did you mean 'then'?)``: the first unknown key, the known one nearest to it."""
    node = _schema_node(list(err.schema_path)[:-1])
    known = sorted(node.get("properties", {})) if isinstance(node, dict) else []
    patterns = node.get("patternProperties", {}) if isinstance(node, dict) else {}
    spelt = [name for pattern in patterns for name in _pattern_keys(pattern)]
    suggestion = did_you_mean(unknown[0], known + spelt)
    text = f"unknown key {unknown[0]!r}" + suggestion
    if len(unknown) > 1:
        text += "; unknown too: " + ", ".join(map(repr, unknown[1:]))
    if known and not suggestion:
        text += " (the keys here: " + ", ".join(known) + (", and zone keys such as p0.hand" if spelt else "") + ")"
    return text


_ZONE_KEYS = re.compile(r"\^p\[01\]\\\.(?:\(([\w|]+)\)|(\w+))\$")


def _pattern_keys(pattern: str) -> list[str]:
    """The keys a ``patternProperties`` pattern of the form ``^p[01]\\.(hand|file)$`` allows, spelt out (for
    suggestions); none for any other pattern."""
    m = _ZONE_KEYS.fullmatch(pattern)
    if m is None:
        return []
    return [f"p{p}.{word}" for p in (0, 1) for word in (m[1] or m[2]).split("|")]


def did_you_mean(word: str, known: Any) -> str:
    """`` (did you mean 'then'?)`` for the known word nearest to ``word``, or ``""`` when none is near."""
    near = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _message(err: Any, data: Any) -> str:
    """A schema error in words; for ``anyOf`` the description of what was expected."""
    path = list(err.schema_path)
    if path and path[-1] in ("anyOf", "oneOf"):
        node = _schema_node(path[:-1])
        desc = node.get("description") if isinstance(node, dict) else None
        if desc:
            return f"must be {desc}"
    if path and path[-1] == "enum":
        options = _schema_node(path)
        if isinstance(options, list):
            return f"{json.dumps(err.instance, ensure_ascii=False)} is not one of: " + ", ".join(
                json.dumps(o, ensure_ascii=False) for o in options
            )
    if path and path[-1] in ("minProperties", "maxProperties") and list(err.instance_path) == ["given"]:
        return "give exactly one of game, state, position"
    if path and path[-1] == "const" and err.instance_path and err.instance_path[-1] == "legal":
        return "legal can only be true (expect a violation with violation: {rule: ...})"
    if path and path[-1] == "const" and len(err.instance_path) == 3 and err.instance_path[1] == "invariants":
        return f"{err.instance_path[-1]} can only be true (leave it out not to check it)"
    message: str = err.message
    return message


def _schema_node(path: list[Any]) -> Any:
    root = schema()
    node: Any = root
    for part in path:
        if isinstance(node, dict) and "$ref" in node and part not in node:
            node = _deref(root, node["$ref"])
        node = node[part] if isinstance(node, dict) else node[int(part)]
        if isinstance(node, dict) and "$ref" in node and len(node) == 1:
            node = _deref(root, node["$ref"])
    return node


def _deref(root: dict[str, Any], ref: str) -> Any:
    node: Any = root
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node
