"""What a user installs: one version everywhere, the license, the types, the metadata, the changelog, and what
the sdist and the wheel hold."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from importlib.metadata import metadata, version
from pathlib import Path

import pytest
import yaml

import referee

ROOT = Path(__file__).resolve().parent.parent
DIST = "ace-file-referee"


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))


def test_one_version_everywhere(app):
    # given the version written once, in pyproject.toml (installed as the package metadata)
    written = pyproject()["project"]["version"]
    assert version(DIST) == written, "the installed metadata is stale: reinstall (make venv)"
    # then --version (tests/test_service_cli.py), /livez, the OpenAPI document and the image tags agree
    assert referee.__version__ == written
    assert app.test_client().get("/livez").get_json()["version"] == written
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text("utf-8"))
    assert spec["info"]["version"] == written
    kustomize = yaml.safe_load((ROOT / "deploy" / "kubernetes" / "kustomization.yaml").read_text("utf-8"))
    assert [image["newTag"] for image in kustomize["images"]] == [written]
    compose = yaml.safe_load((ROOT / "deploy" / "compose" / "compose.yaml").read_text("utf-8"))
    assert compose["x-referee"]["image"] == f"ace-file-referee:{written}"
    documented_tags = re.findall(
        r"ace-file-referee:(\S+)",
        (ROOT / "Dockerfile").read_text("utf-8") + (ROOT / "docs" / "operations.md").read_text("utf-8"),
    )
    assert documented_tags and set(documented_tags) == {written}


def test_license_file_in_the_metadata():
    meta = metadata(DIST)
    assert meta["License-Expression"] == pyproject()["project"]["license"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text("utf-8").startswith("MIT License")


def test_typed_package_for_the_client_users():
    assert (ROOT / "referee" / "py.typed").is_file()
    assert "py.typed" in pyproject()["tool"]["setuptools"]["package-data"]["referee"]
    assert "Typing :: Typed" in metadata(DIST).get_all("Classifier")


def test_classifiers_and_urls():
    meta = metadata(DIST)
    classifiers = meta.get_all("Classifier")
    assert "Framework :: Flask" in classifiers
    python = {c.rsplit(" ", 1)[-1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)}
    assert min(python, key=lambda v: tuple(map(int, v.split(".")))) == meta["Requires-Python"].removeprefix(">=")
    assert not any(c.startswith("License ::") for c in classifiers)  # PEP 639: the SPDX expression only
    assert any(url.startswith("Homepage, https://") for url in meta.get_all("Project-URL"))


def test_changelog_keeps_an_unreleased_section_and_every_release():
    text = (ROOT / "CHANGELOG.md").read_text("utf-8")
    sections = re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
    assert sections[0] == "Unreleased"
    assert pyproject()["project"]["version"] in sections


# -- what the sdist and the wheel hold ---------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """The sdist, and the wheel built from it (``python -m build``, as a release does)."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (out / "build.log").write_text(done.stdout + done.stderr, "utf-8")
    [sdist] = out.glob("*.tar.gz")
    [wheel] = out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel, "log": out / "build.log"}


def test_the_build_warns_of_no_package_left_out_of_the_configuration(built):
    """``python -m build`` (and every install) prints none of setuptools' warnings that a folder of package
    data, such as the /table page's referee/service/table, is absent from the packages configuration."""
    log = built["log"].read_text("utf-8")
    assert "is absent from the `packages` configuration" not in log.replace("'", "`")
    assert not re.findall(r"Package '[\w.]+' is absent", log)


def wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as whl:
        return whl.namelist()


def sdist_names(sdist: Path) -> list[str]:
    with tarfile.open(sdist) as tar:
        return [name.split("/", 1)[1] for name in tar.getnames() if "/" in name]


def test_the_wheel_installs_no_top_level_schemas_package(built):
    """The repository's schemas/ installs as referee_schemas: ``import schemas`` of the PyPI project of that
    name is never shadowed by this wheel."""
    top = {name.split("/", 1)[0] for name in wheel_names(built["wheel"]) if "/" in name}
    assert "schemas" not in top
    assert {"referee", "referee_schemas"} <= top
    assert not [t for t in top if not t.startswith(("referee", "ace_file_referee-"))]


def test_the_wheel_holds_every_module_of_the_repository(built):
    """Every .py of referee/ and schemas/ (as referee_schemas/) is in the wheel, so a subpackage missing from
    pyproject.toml's package list fails here; the data files and the table page too."""
    names = set(wheel_names(built["wheel"]))
    wanted = {p.relative_to(ROOT).as_posix() for p in (ROOT / "referee").rglob("*.py")}
    wanted |= {
        "referee_schemas/" + p.relative_to(ROOT / "schemas").as_posix() for p in (ROOT / "schemas").rglob("*.py")
    }
    wanted |= {
        "referee/py.typed",
        "referee/data/af-ref.yaml",
        "referee/data/rules.md",
        "referee/service/table/index.html",
    }
    assert not sorted(wanted - names)


def test_the_sdist_ships_the_examples_its_tests_read(built):
    names = set(sdist_names(built["sdist"]))
    examples = {p.relative_to(ROOT).as_posix() for p in (ROOT / "examples").rglob("*") if p.is_file()}
    assert examples and not sorted(examples - names)
    assert {"tests/conftest.py", "tests/test_examples.py", "schemas/__init__.py", "pyproject.toml"} <= names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_the_typescript_client_has_the_projects_version():
    """One version everywhere: clients/typescript/package.json (and its lock file) say pyproject's version."""
    written = pyproject()["project"]["version"]
    client = ROOT / "clients" / "typescript"
    assert json.loads((client / "package.json").read_text("utf-8"))["version"] == written
    lock = json.loads((client / "package-lock.json").read_text("utf-8"))
    assert lock["version"] == lock["packages"][""]["version"] == written


def test_the_wheel_imports_on_its_own_outside_the_repository(built, tmp_path):
    """From a folder that is not the repository, with the wheel first on the path: the service's modules and
    referee_schemas import from the wheel (no import reaches for a top-level ``schemas``)."""
    probe = (
        "import referee_schemas, referee.service.routes, referee.service.openapi\n"
        "assert referee_schemas.__file__.startswith(WHEEL), referee_schemas.__file__\n"
        "assert referee.service.routes.__file__.startswith(WHEEL)\n"
        "import sys; assert 'schemas' not in sys.modules, 'a top-level schemas was imported'\n"
    )
    wheel = str(built["wheel"])
    done = subprocess.run(
        [sys.executable, "-c", f"WHEEL = {wheel!r}\n" + probe],
        cwd=tmp_path,
        env={"PYTHONPATH": wheel, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_image_build_copies_every_file_the_wheel_needs():
    """The build stage builds the wheel from what it copies: the license file (PEP 639 License-File)
    and the readme must be among them, or the image's wheel has no license."""
    dockerfile = (ROOT / "Dockerfile").read_text("utf-8")
    build = dockerfile.split("FROM ", 2)[1]  # the first stage
    copied = {name for line in build.splitlines() if line.startswith("COPY ") for name in line.split()[1:-1]}
    project = pyproject()["project"]
    assert set(project.get("license-files", ["LICENSE"])) <= copied
    assert project["readme"] in copied and "pyproject.toml" in copied
