"""referee/engine/state_types.py is generated from the model: it must not drift (``make state-types``)."""

from __future__ import annotations

from pathlib import Path

from referee.engine import model
from referee.engine.model_doc import TYPED_DICTS, typed_dicts_source

GENERATED = Path(__file__).resolve().parent.parent / "referee" / "engine" / "state_types.py"


def test_given_the_model_then_the_working_state_types_are_generated_from_it():
    import subprocess
    import sys

    formatted = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", "state_types.py", "-"],
        input=typed_dicts_source(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert GENERATED.read_text(encoding="utf-8") == formatted, "state_types.py drifted: run `make state-types`"


def test_given_every_struct_of_the_state_then_it_has_its_typed_dict():
    from referee.engine import state_types

    reachable = {model.State, model.PlayerState, model.Pending, model.Result, model.Options, model.CatalogRef}
    reachable |= {model.FormatRef}
    reachable |= {model.CaseEntry, model.FairyEntry, model.EvidenceEntry, model.Modifier, model.Used}
    reachable |= {model.Clock, model.Match}
    assert set(TYPED_DICTS) == reachable
    for struct, name in TYPED_DICTS.items():
        typed = getattr(state_types, name)
        assert set(typed.__annotations__) == {f.encode_name for f in model.fields(struct)}
