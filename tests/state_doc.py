"""docs/state.md's state table against the model: read it, and rewrite it (``make state-doc``).

The field, type and default columns come from ``referee.engine.model_doc.state_table``;
the meaning column is the document's own prose, kept by field name.
"""

from __future__ import annotations

import re
from pathlib import Path

from referee.engine.model_doc import state_table

STATE_MD = Path(__file__).resolve().parent.parent / "docs" / "state.md"
HEADER = "| field | type | default | meaning |"


def split(text: str) -> tuple[list[str], list[str], list[str]]:
    """(lines before the table, the table's lines, lines after it)."""
    lines = text.split("\n")
    start = lines.index(HEADER)
    end = lines.index("", start)
    return lines[:start], lines[start:end], lines[end:]


def meanings(table: list[str]) -> dict[str, str]:
    """Each row's meaning, by field name."""
    out = {}
    for line in table[2:]:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        out[cells[0].strip("`")] = cells[3]
    return out


def rendered(text: str) -> str:
    """The document with its state table rendered from the model."""
    before, table, after = split(text)
    return "\n".join(before + state_table(meanings(table)) + after)


if __name__ == "__main__":
    STATE_MD.write_text(rendered(STATE_MD.read_text("utf-8")), "utf-8")
    print(f"wrote {STATE_MD}")
