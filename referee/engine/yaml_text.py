"""The one YAML reader: YAML (or JSON) text into plain data, keeping where each field is written.

Catalogs (``catalog.py``, docs/api.md §8) and scenario files
(``referee/scenarios/source.py``) both read through :func:`parse_documents`.
It parses the text it is given; reading the file is the caller's business.

- Each :class:`YamlDocument` keeps a map from a field path (a tuple of keys
  and list indexes, ``("cards", 3, "cost")``) to the 1-based line where it is
  written, so an error found later can still name the line.
- Plain data only: strings, integers, floats, booleans, null, lists, and
  mappings with scalar keys (read as strings). A key written twice is refused
  (PyYAML would silently keep the last), and so are merge keys (``<<``) and
  list or mapping keys. Dates and other typed values stay as written.
- Every refusal is a :class:`YamlTextError` naming the file, the line and the
  column (``cards.yaml:12:5: ...``), on one line.
- Bounded: aliases may not expand the text into more values than it has
  characters (plus a few thousand), integers have at most 4,300 digits, and
  nesting is refused past 48 levels, so reading costs work and memory linear
  in the text whatever it holds.

Uses libyaml's C parser when PyYAML has it (it does on every usual platform).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

Path = tuple[str | int, ...]  # where a value is in a document: keys and list indexes from the top

try:  # the C parser where PyYAML was built with libyaml (the same documents, read in C)
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader

_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_MERGE = "tag:yaml.org,2002:merge"
_MAX_DEPTH = 48  # a recursive alias (&a [*a]) would never end
# An alias is a reference: nine levels of ``&a [*a, *a, ... ten times]`` are 332 bytes of text and
# a billion values once read. Each value read costs one of a budget the size of the text (no text
# writes more values than it has characters, without aliases), plus a little for short texts.
_SPARE_VALUES = 10_000
_MAX_DIGITS = 4300  # Python's own limit on reading an integer (sys.get_int_max_str_digits)


def dotted(path: Path) -> str:
    """A field path as text: ``when.3.card`` (the form the engine's errors use)."""
    return ".".join(str(p) for p in path) if path else "(top level)"


class YamlTextError(ValueError):
    """Text that is not YAML, or not plain data: names the file, the line and the column.

    ``problem`` is what is wrong; ``path`` the field it concerns (``None`` for
    a syntax error). ``str(err)`` is ``file:line:column: [field: ]problem``.
    """

    def __init__(
        self, file: str, problem: str, line: int | None = None, column: int | None = None, path: Path | None = None
    ):
        self.file = file
        self.problem = problem
        self.line = line
        self.column = column
        self.path = path
        where = ":".join(str(p) for p in (file, line, column) if p is not None)
        what = f"{dotted(path)}: {problem}" if path is not None else problem
        super().__init__(f"{where}: {what}")


@dataclass
class YamlDocument:
    """One YAML document: its data, the file it came from, and the line each field starts on."""

    data: Any
    file: str
    index: int = 0  # which document of the file (0-based)
    lines: dict[Path, int] = field(default_factory=dict)
    line: int = 1  # where the document starts

    def line_of(self, path: Path) -> int:
        """The line of ``path``, or of its nearest parent that has one."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.line


def parse_documents(text: str, file: str) -> list[YamlDocument]:
    """Every (non-empty) document of ``text``, ``---`` separating several; raises :class:`YamlTextError`."""
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except RecursionError:
        raise YamlTextError(
            file, f"nested too deep (more than {_MAX_DEPTH} levels are no part of any format)"
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(p for p in (exc.context, exc.problem) if p) or "not valid YAML"
        raise YamlTextError(file, f"not valid YAML: {problem}", *_position(mark)) from None
    except yaml.YAMLError as exc:
        raise YamlTextError(file, "not valid YAML: " + " ".join(str(exc).split())) from None
    docs = []
    budget = _Budget(len(text) + _SPARE_VALUES)
    for i, node in enumerate(n for n in nodes if n is not None):
        doc = YamlDocument(None, file, i, {}, node.start_mark.line + 1)
        doc.data = _build(node, (), doc, budget)
        docs.append(doc)
    return docs


class _Budget:
    """How many more values the text may still be read into (see ``_SPARE_VALUES``)."""

    __slots__ = ("left", "total")

    def __init__(self, total: int):
        self.total = self.left = total


def parse_document(text: str, file: str) -> YamlDocument:
    """The one document of ``text`` (data ``None`` when empty); more than one is refused."""
    docs = parse_documents(text, file)
    if len(docs) > 1:
        raise YamlTextError(file, "holds more than one YAML document (---)", docs[1].line, 1)
    return docs[0] if docs else YamlDocument(None, file)


def _position(mark: Any) -> tuple[int | None, int | None]:
    return (None, None) if mark is None else (mark.line + 1, mark.column + 1)


def _fail(doc: YamlDocument, node: yaml.Node, path: Path, problem: str) -> YamlTextError:
    return YamlTextError(doc.file, problem, *_position(node.start_mark), path=path)


def _build(node: yaml.Node, path: Path, doc: YamlDocument, budget: _Budget) -> Any:
    doc.lines[path] = node.start_mark.line + 1
    if len(path) > _MAX_DEPTH:
        raise _fail(doc, node, path, "nested too deep (a recursive YAML alias?)")
    budget.left -= 1
    if budget.left < 0:
        raise _fail(doc, node, path, f"its aliases (*name) expand to more than {budget.total} values (an alias bomb?)")
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node, path, doc)
    if isinstance(node, yaml.SequenceNode):
        return [_build(child, path + (i,), doc, budget) for i, child in enumerate(node.value)]
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise _fail(doc, key_node, path, "a key must be a plain string, not a list or mapping")
            if key_node.tag == _MERGE:
                raise _fail(doc, key_node, path, "YAML merge keys (<<) are not supported")
            key = key_node.value
            if key in out:
                raise _fail(doc, key_node, path + (key,), "this key appears twice")
            out[key] = _build(value_node, path + (key,), doc, budget)
            doc.lines[path + (key,)] = key_node.start_mark.line + 1  # where "key:" is written
        return out
    raise _fail(doc, node, path, "unsupported YAML node")  # pragma: no cover


def _scalar(node: yaml.ScalarNode, path: Path, doc: YamlDocument) -> Any:
    tag = node.tag
    if tag == _STR:
        return node.value
    if tag == _INT:
        if len(node.value) > _MAX_DIGITS:
            raise _fail(doc, node, path, f"an integer of more than {_MAX_DIGITS} digits")
        return _CONSTRUCTOR.construct_yaml_int(node)
    if tag == _NULL:
        return None
    if tag == _BOOL:
        return _CONSTRUCTOR.construct_yaml_bool(node)
    try:
        value = _CONSTRUCTOR.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError) as exc:
        raise _fail(doc, node, path, f"cannot read this value: {' '.join(str(exc).split())}") from None
    # Dates and the like are no part of either format: keep what was written.
    return value if isinstance(value, (int, float, bool, str)) or value is None else node.value
