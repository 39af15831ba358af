"""Reading scenario files: YAML (or JSON) into plain data, keeping line numbers.

:func:`load_documents` returns one :class:`Document` per YAML document of a
file (``---`` separates several scenarios in one file). Each keeps a map from
a field path (a tuple of keys and list indexes) to the 1-based line where it
starts, so an error anywhere can name the file, the line and the field.

Uses libyaml's C parser when PyYAML has it (it does on every usual platform);
the values are built by a small walk over the node tree, which also rejects
duplicate keys (PyYAML silently keeps the last one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

try:  # the C parser: ~10x faster on large files
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"

Path_ = tuple  # a field path: ("when", 3, "card")


class ScenarioError(Exception):
    """A scenario file that cannot be used as written: names the file, line and field.

    ``str(err)`` is the one-line message the command prints, e.g.
    ``cases/x.yaml:12: when.3.card: must be a string``.
    """

    def __init__(self, file: str, line: int | None, field: str | None, message: str):
        self.file = file
        self.line = line
        self.field = field
        self.message = message
        where = file if line is None else f"{file}:{line}"
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")


def dotted(path: tuple) -> str:
    """A field path as text: ``when.3.card`` (the form the engine's errors use)."""
    return ".".join(str(p) for p in path) if path else "(top level)"


@dataclass
class Document:
    """One YAML document: its data, where each field starts, and which file it came from."""

    data: Any
    file: str
    index: int = 0  # which document of the file (0-based)
    lines: dict[tuple, int] = field(default_factory=dict)
    line: int = 1  # where the document starts

    def line_of(self, path: tuple) -> int:
        """The line of ``path``, or of its nearest parent that has one."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.line

    def error(self, path: tuple, message: str) -> ScenarioError:
        return ScenarioError(self.file, self.line_of(path), dotted(path), message)


def load_documents(path: str | Path, text: str | None = None) -> list[Document]:
    """Every document of a YAML or JSON file; raises :class:`ScenarioError` (with the line) if it does not parse."""
    name = str(path)
    if text is None:
        try:
            text = Path(path).read_text("utf-8")
        except UnicodeDecodeError as exc:
            raise ScenarioError(name, None, None, f"not UTF-8 text ({exc.reason})") from None
        except OSError as exc:
            raise ScenarioError(name, None, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(p for p in (exc.context, exc.problem) if p) or "not valid YAML"
        hint = ""
        if "'@'" in problem or "cannot start any token" in problem:
            hint = " (a value starting with @ must be quoted: \"@p0.hand.AF-001\")"
        raise ScenarioError(name, line, None, f"not valid YAML: {problem}{hint}") from None
    except yaml.YAMLError as exc:
        raise ScenarioError(name, None, None, f"not valid YAML: {exc}") from None
    docs = []
    for i, node in enumerate(n for n in nodes if n is not None):
        doc = Document(None, name, i, {}, node.start_mark.line + 1)
        doc.data = _build(node, (), doc)
        docs.append(doc)
    return docs


def _build(node: yaml.Node, path: tuple, doc: Document) -> Any:
    doc.lines[path] = node.start_mark.line + 1
    if len(path) > 48:  # a recursive alias (&a [*a]) would never end
        raise doc.error(path, "nested too deep (a recursive YAML alias?)")
    if isinstance(node, yaml.ScalarNode):
        tag = node.tag
        if tag == _STR:
            return node.value
        if tag == _INT:
            return _CONSTRUCTOR.construct_yaml_int(node)
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return _CONSTRUCTOR.construct_yaml_bool(node)
        try:
            value = _CONSTRUCTOR.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise doc.error(path, f"cannot read this value: {exc}") from None
        # Dates and the like are not part of the format: keep what was written.
        return value if isinstance(value, (int, float, bool, str)) or value is None else node.value
    if isinstance(node, yaml.SequenceNode):
        return [_build(child, path + (i,), doc) for i, child in enumerate(node.value)]
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise ScenarioError(doc.file, key_node.start_mark.line + 1, dotted(path),
                                    "a key must be a plain string, not a list or mapping")
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise ScenarioError(doc.file, key_node.start_mark.line + 1, dotted(path),
                                    "YAML merge keys (<<) are not supported")
            key = key_node.value
            if key in out:
                raise ScenarioError(doc.file, key_node.start_mark.line + 1, dotted(path + (key,)),
                                    "this key appears twice")
            out[key] = _build(value_node, path + (key,), doc)
            doc.lines[path + (key,)] = key_node.start_mark.line + 1  # where "key:" is written
        return out
    raise doc.error(path, "unsupported YAML node")  # pragma: no cover
