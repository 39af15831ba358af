"""The fenced blocks of README.md and docs/*.md, as tests/test_docs_blocks.py runs them (docs that run).

Markdown is read with markdown-it-py (the CommonMark parser), so a block is exactly what a reader's renderer
shows. A block's info string says what it is:

- ``sh``: run by bash (``set -euo pipefail``) in the document's working directory; ``console``: each
  ``$ `` line run, and every other line (but ``...``) must appear in the output, in order;
- ``python``: run as a script by the project's Python;
- ``json``, ``yaml``: parsed (a document that does not parse fails);
- ``text``: shown, not run (an output, a synopsis, an excerpt): the runner says so.

An HTML comment just before a block (``<!-- docs: ... -->``), or the same words after the kind in the info
string (```` ```sh skip="needs docker" ````, which renderers do not show), tells the runner more:

- ``<!-- docs: skip REASON -->``: the block cannot run here (docker, kubectl, a server that runs until
  stopped); the runner skips it saying REASON;
- ``<!-- docs: file PATH -->``: the block's text is written to PATH in the working directory, for the
  blocks after it (a deck list, a scenario file);
- ``<!-- docs: server private -->``: the block talks to a private referee (REFEREE_STATE_KEY and a SQLite
  ledger) rather than a plain one.

Placeholders are explicit: a block that talks to a referee names it as the README does,
``localhost:8000`` or ``127.0.0.1:8000``, and the runner puts the address of the referee it serves there.
Each document's blocks run in order in one working directory that holds the repository's ``examples/``,
so a file an earlier block writes is there for a later one.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
RUN = frozenset({"sh", "console", "python"})
PARSED = frozenset({"json", "yaml"})
SHOWN = frozenset({"text"})
KINDS = RUN | PARSED | SHOWN
SERVED = re.compile(r"(?:https?://)?(?:localhost|127\.0\.0\.1):8000")
VERBS = ("skip", "file", "server")
MARKER = re.compile(rf"<!--\s*docs:\s*(?P<verb>{'|'.join(VERBS)})\b\s*(?P<arg>.*?)\s*-->", re.S)


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, what it is, and what the comment before it says."""

    doc: str  # path relative to the repository
    line: int  # 1-based line of the opening fence
    kind: str
    text: str
    skip: str | None = None
    file: str | None = None
    server: str | None = None  # "plain" or "private" when it talks to a referee

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path``, in order, with its marker."""
    source = path.read_text("utf-8")
    doc = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
    out: list[Block] = []
    marker: dict[str, str] = {}
    for token in MarkdownIt("commonmark").parse(source):
        if token.type == "html_block":
            for m in MARKER.finditer(token.content):
                marker[m["verb"]] = m["arg"]
            continue
        if token.type != "fence":
            marker = {}
            continue
        assert token.map is not None
        kind, *words = shlex.split(token.info) or [""]
        for word in words:
            verb, is_set, arg = word.partition("=")
            if is_set and verb in VERBS:
                marker[verb] = arg
        server = None
        if kind in RUN and SERVED.search(token.content):
            server = marker.get("server") or "plain"
        out.append(Block(doc, token.map[0] + 1, kind, token.content, marker.get("skip"), marker.get("file"), server))
        marker = {}
    return out


def served(text: str, url: str) -> str:
    """The block with the README's address replaced by the served referee's (``http://127.0.0.1:PORT``)."""
    host = url.removeprefix("http://")
    return SERVED.sub(lambda m: url if m[0].startswith("http") else host, text)


def console_script(text: str) -> tuple[str, list[str]]:
    """A ``console`` block as a script of its ``$`` lines, and the output lines it promises."""
    commands, expected = [], []
    for line in text.splitlines():
        if line.startswith("$ "):
            commands.append(line[2:])
        elif line.strip() and line.strip() != "...":
            expected.append(line.strip())
    return "\n".join(commands) + "\n", expected


def in_order(expected: list[str], output: str) -> list[str]:
    """The promised lines not found in ``output``, each looked for after the one before it."""
    lines = [line.strip() for line in output.splitlines()]
    at, missing = 0, []
    for want in expected:
        try:
            at = lines.index(want, at) + 1
        except ValueError:
            missing.append(want)
    return missing
