"""Reading scenario files: YAML (or JSON) into plain data, keeping line numbers.

:func:`load_documents` returns one :class:`Document` per YAML document of a
file (``---`` separates several scenarios in one file). Each keeps a map from
a field path (a tuple of keys and list indexes) to the 1-based line where it
starts, so an error anywhere can name the file, the line and the field.

The parsing is the engine's one YAML reader (``referee.engine.yaml_text``),
which catalogs use too: libyaml's C parser, plain data only, and a key
written twice refused (PyYAML silently keeps the last).
"""

from __future__ import annotations

from pathlib import Path

from referee.engine.yaml_text import YamlDocument, YamlTextError, dotted, parse_documents

__all__ = ["Document", "ScenarioError", "dotted", "load_documents"]


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

    def __reduce__(self) -> tuple[object, ...]:  # results travel back from worker processes (check --jobs)
        return ScenarioError, (self.file, self.line, self.field, self.message)


class Document(YamlDocument):
    """One scenario document: its data, where each field starts, and which file it came from."""

    def error(self, path: tuple[str | int, ...], message: str) -> ScenarioError:
        return ScenarioError(self.file, self.line_of(path), dotted(path), message)


def read_text(path: str | Path) -> str:
    """A scenario file's text; raises :class:`ScenarioError` if it cannot be read or is not UTF-8."""
    try:
        return Path(path).read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(str(path), None, None, f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise ScenarioError(str(path), None, None, f"cannot read: {exc.strerror or exc}") from None


def load_documents(path: str | Path, text: str | None = None) -> list[Document]:
    """Every document of a YAML or JSON file; raises :class:`ScenarioError` (with the line) if it does not parse."""
    name = str(path)
    if text is None:
        text = read_text(path)
    try:
        parsed = parse_documents(text, name)
    except YamlTextError as exc:
        hint = ""
        if exc.path is None and ("'@'" in exc.problem or "cannot start any token" in exc.problem):
            hint = ' (a value starting with @ must be quoted: "@p0.hand.AF-001")'
        field = None if exc.path is None else dotted(exc.path)
        raise ScenarioError(name, exc.line, field, exc.problem + hint) from None
    return [Document(d.data, d.file, d.index, d.lines, d.line) for d in parsed]
