"""What a user installs: one version everywhere, the license, the types, the metadata, the changelog."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import metadata, version
from pathlib import Path

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


def test_the_image_build_copies_every_file_the_wheel_needs():
    """The build stage builds the wheel from what it copies: the license file (PEP 639 License-File)
    and the readme must be among them, or the image's wheel has no license."""
    dockerfile = (ROOT / "Dockerfile").read_text("utf-8")
    build = dockerfile.split("FROM ", 2)[1]  # the first stage
    copied = {name for line in build.splitlines() if line.startswith("COPY ") for name in line.split()[1:-1]}
    project = pyproject()["project"]
    assert set(project.get("license-files", ["LICENSE"])) <= copied
    assert project["readme"] in copied and "pyproject.toml" in copied
