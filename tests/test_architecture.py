"""docs/architecture.md, enforced: the engine's floors, no import circle, and what each folder may import.

Imports are read with ``ast`` from the source, so an import under ``if TYPE_CHECKING:``
or inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "referee" / "engine"
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def imported_modules(path: Path) -> list[tuple[str, bool]]:
    """Every module ``path`` imports, as a dotted name, and whether the import is at the module's top."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    found: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.extend((f"{node.module}.{alias.name}", id(node) in top) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend((alias.name, id(node) in top) for alias in node.names)
    return found


def engine_module(dotted: str) -> str | None:
    """The engine module a dotted import name lands in (``referee.engine.board.Board`` → ``board``)."""
    parts = dotted.split(".")
    if parts[:2] != ["referee", "engine"]:
        return None
    if len(parts) > 2 and (ENGINE / f"{parts[2]}.py").exists():
        return parts[2]
    return "__init__"


def engine_graph() -> dict[str, set[str]]:
    return {
        path.stem: {m for dotted, _ in imported_modules(path) if (m := engine_module(dotted)) not in (None, path.stem)}
        for path in ENGINE.glob("*.py")
    }


def floors() -> dict[str, int]:
    """The floor of each engine module, from the table between the ``floors`` markers of docs/architecture.md."""
    table = DOC.split("<!-- floors: read by tests/test_architecture.py -->")[1].split("<!-- /floors -->")[0]
    out: dict[str, int] = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0][:1].isdigit():
            for module in re.findall(r"`(\w+)`", cells[1]):
                out[module] = int(cells[0].split()[0])
    return out


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_given_the_circle_finder_when_two_modules_import_each_other_then_it_finds_them():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_given_the_engine_then_its_imports_have_no_circle():
    assert circles(engine_graph()) == []


def test_given_the_floors_table_then_it_names_every_engine_module_once():
    assert set(floors()) == {path.stem for path in ENGINE.glob("*.py")}


def test_given_the_engine_then_no_module_imports_from_a_higher_floor():
    floor = floors()
    upward = [
        f"{module} (floor {floor[module]}) imports {dep} (floor {floor[dep]})"
        for module, deps in engine_graph().items()
        for dep in deps
        if floor[dep] > floor[module]
    ]
    assert upward == []


def test_given_the_engine_then_every_import_is_at_the_top_of_its_module():
    lazy = [
        f"{path.name}: {dotted}"
        for path in ENGINE.glob("*.py")
        for dotted, at_top in imported_modules(path)
        if not at_top
    ]
    # ``if TYPE_CHECKING:`` blocks are not at the top either: the engine needs none.
    assert lazy == []


# -- the folders ---------------------------------------------------------------------------

# package (as imported) -> the dotted prefixes outside it that it may import (docs/architecture.md "Folders")
ALLOWED = {
    "referee.engine": (),
    "referee.events": (),
    "referee_schemas": ("referee.engine", "referee.events"),
    "referee.client": (),
    "referee.service": (
        "referee.engine",
        "referee_schemas",
        "referee.bots",
        "referee.private",
        "referee.events",
        "referee.__version__",
    ),
    "referee.scenarios": ("referee.engine", "referee.client", "referee.service"),
    "referee.bots": ("referee.engine",),
    "referee.private": ("referee.engine",),
}
FOLDER = {"referee_schemas": "schemas"}  # the one package whose folder is not its import name
FIRST_PARTY = ("referee", "referee_schemas", "benchmarks")


def folder_of(package: str) -> str:
    return FOLDER.get(package, package.replace(".", "/"))


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_given_a_folder_then_it_imports_only_what_the_architecture_allows(package):
    own = (package, *ALLOWED[package])
    wrong = [
        f"{path.relative_to(ROOT)}: {dotted}"
        for path in sorted((ROOT / folder_of(package)).rglob("*.py"))
        for dotted, _ in imported_modules(path)
        if dotted.split(".")[0] in FIRST_PARTY and not (dotted + ".").startswith(tuple(o + "." for o in own))
    ]
    assert wrong == []


def test_the_folders_allowed_imports_run_one_way():
    """No circle between folders: following what each may import never leads back to it."""

    def reaches(node: str, target: str, seen: frozenset[str]) -> bool:
        return any(
            n == target or (n in ALLOWED and n not in seen and reaches(n, target, seen | {n})) for n in ALLOWED[node]
        )

    assert not [package for package in ALLOWED if reaches(package, package, frozenset())]


def test_given_the_folders_table_then_it_says_what_the_test_allows():
    for package, allowed in ALLOWED.items():
        row = next(line for line in DOC.splitlines() if line.startswith(f"| `{folder_of(package)}/`"))
        named = set(re.findall(r"`([\w.]+)`", row.split("|")[3]))
        assert named == {a.split(".__")[0] for a in allowed} or (not allowed and "itself only" in row), row


# -- the benchmarks --------------------------------------------------------------------------
# benchmarks/ may import everything (it times the parts, private ones too), as referee/cli/ may; but no
# test runs a benchmark, so a module moved or a name renamed would break one unseen: every import of a
# first-party module (or of a sibling benchmark or test, by path) must name what exists.
BENCHMARKS = ROOT / "benchmarks"


def top_level_names(path: Path) -> set[str]:
    """The names a module file defines at its top (functions, classes, assignments, imports)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def missing(dotted: str) -> bool:
    """Whether ``dotted`` (a module, or a module's name) names nothing: a first-party one is imported to
    see, a sibling benchmark's or a test's is read from its file."""
    parts = dotted.split(".")
    if parts[0] in ("referee", "referee_schemas"):
        for cut in range(len(parts), 0, -1):
            try:
                found: object = importlib.import_module(".".join(parts[:cut]))
            except ModuleNotFoundError:
                continue
            for name in parts[cut:]:
                if not hasattr(found, name):
                    return True
                found = getattr(found, name)
            return False
        return True
    folder = {"benchmarks": BENCHMARKS, "tests": ROOT / "tests"}.get(parts[0])
    if folder is not None:
        parts = parts[1:]
    elif (BENCHMARKS / f"{parts[0]}.py").exists():  # a sibling, imported by name with benchmarks/ on the path
        folder = BENCHMARKS
    else:
        return False  # a third-party or standard module: not this test's matter
    if not parts or not (folder / f"{parts[0]}.py").exists():
        return True
    return len(parts) > 1 and parts[1] not in top_level_names(folder / f"{parts[0]}.py")


def test_given_the_name_checker_then_it_tells_what_exists_from_what_does_not():
    assert not missing("referee.private.tokens.Vault") and not missing("referee.engine.Catalog")
    assert missing("referee.service.private_tokens.Vault") and missing("referee.engine.NoSuchName")
    assert not missing("benchmarks.bodies.midgame_bodies") and not missing("http_load.midgame_bodies")
    assert missing("benchmarks.bodies.no_such_name") and missing("benchmarks.no_such_benchmark")
    assert not missing("orjson.dumps")


def test_given_the_benchmarks_then_every_import_names_what_exists():
    wrong = [
        f"{path.relative_to(ROOT)}: {dotted}"
        for path in sorted(BENCHMARKS.glob("*.py"))
        for dotted, _ in imported_modules(path)
        if missing(dotted)
    ]
    assert wrong == []


def test_given_the_folders_table_then_it_names_the_benchmarks_rule():
    row = next(line for line in DOC.splitlines() if line.startswith("| `benchmarks/`"))
    assert "everything" in row.split("|")[3], row


# -- "everyone outside the engine imports engine functions from referee.engine" -----------------------------

FACE = set(importlib.import_module("referee.engine").__all__)


def deeper_face_imports(path: Path) -> list[str]:
    """Each name ``path`` imports from an engine submodule although the package face carries it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path}:{node.lineno}: {alias.name} from {node.module}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("referee.engine.")
        for alias in node.names
        if alias.name in FACE
    ]


def test_given_the_face_rule_then_an_import_of_a_face_name_from_a_submodule_is_found(tmp_path):
    source = tmp_path / "deep.py"
    source.write_text("from referee.engine.errors import RuleViolation\nfrom referee.engine.facts import Player\n")
    assert deeper_face_imports(source) == [
        f"{source}:1: RuleViolation from referee.engine.errors"
    ]  # Player: not on the face


def test_given_the_code_outside_the_engine_then_it_imports_what_the_face_carries_from_the_face():
    """docs/architecture.md: a submodule is imported only for what the face does not carry."""
    outside = [p for folder in ("referee", "schemas", "benchmarks") for p in (ROOT / folder).rglob("*.py")]
    found = [line for path in outside if ENGINE not in path.parents for line in deeper_face_imports(path)]
    assert found == []
