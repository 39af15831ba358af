"""JUnit XML for CI systems (the de facto schema Jenkins, GitLab and GitHub reporters read)."""

from __future__ import annotations

import socket
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from referee.scenarios.runner import Result


def classname(file: str) -> str:
    """``examples/scenarios/10.4-x.yaml`` → ``examples.scenarios.10_4-x`` (dots separate packages)."""
    path = Path(file)
    parts = [*path.parent.parts, path.stem.replace(".", "_")]
    return ".".join(p for p in parts if p not in ("", ".", "/")).lstrip(".") or "scenarios"


def to_xml(results: Iterable[Result], suite: str = "referee check", seconds: float | None = None) -> bytes:
    results = list(results)
    failures = sum(r.status == "failed" for r in results)
    errors = sum(r.status == "error" for r in results)
    total = seconds if seconds is not None else sum(r.seconds for r in results)
    root = ET.Element(
        "testsuites",
        name=suite,
        tests=str(len(results)),
        failures=str(failures),
        errors=str(errors),
        time=f"{total:.3f}",
    )
    ts = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(results)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time=f"{total:.3f}",
        timestamp=datetime.now(UTC).replace(microsecond=0).isoformat(),
        hostname=socket.gethostname(),
    )
    for r in results:
        name = r.name if r.label == r.file else f"{r.name} [{r.label.rsplit('#', 1)[-1]}]"
        tc = ET.SubElement(
            ts,
            "testcase",
            classname=classname(r.file),
            name=name,
            file=r.file,
            line=str(r.line),
            time=f"{r.seconds:.4f}",
        )
        if r.rule:
            props = ET.SubElement(tc, "properties")
            ET.SubElement(props, "property", name="rule", value=r.rule)
        if r.status == "failed":
            node = ET.SubElement(
                tc, "failure", message=(r.details[0] if r.details else "failed")[:500], type="ScenarioFailure"
            )
            node.text = "\n".join(r.details)
        elif r.status == "error":
            node = ET.SubElement(
                tc, "error", message=(r.details[0] if r.details else "error")[:500], type="MalformedScenario"
            )
            node.text = "\n".join(r.details)
    ET.indent(root)
    xml: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return xml + b"\n"
