"""The schemas: meta-valid, stable ids, every field described; the generated code never drifts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = sorted((ROOT / "schemas").glob("*.json"))


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_schema_is_valid_draft_2020_12_with_stable_id(path: Path) -> None:
    schema = json.loads(path.read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://interlingua.dev/schemas/1.0/{path.name}"


def _properties(node: object, where: str):
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield f"{where}/properties/{name}", sub
        for key, sub in node.items():
            yield from _properties(sub, f"{where}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from _properties(sub, f"{where}/{i}")


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_every_field_has_a_description(path: Path) -> None:
    schema = json.loads(path.read_text())
    missing = [where for where, sub in _properties(schema, path.name) if "description" not in sub]
    assert missing == []


def test_packaged_schemas_match_sources() -> None:
    packaged = ROOT / "src" / "interlingua" / "schemas"
    assert sorted(p.name for p in packaged.glob("*.json")) == [p.name for p in SCHEMAS]
    for p in SCHEMAS:
        assert (packaged / p.name).read_bytes() == p.read_bytes()


def _copy_project(tmp: Path) -> Path:
    dest = tmp / "proj"
    for name in ("schemas", "tools"):
        shutil.copytree(ROOT / name, dest / name)
    shutil.copytree(ROOT / "src", dest / "src", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def test_drift_check_passes_on_the_committed_tree(tmp_path: Path) -> None:
    proj = _copy_project(tmp_path)
    run = subprocess.run([sys.executable, "tools/gen_models.py", "--check"], cwd=proj, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_drift_check_fails_when_a_schema_changes(tmp_path: Path) -> None:
    proj = _copy_project(tmp_path)
    refusal = proj / "schemas" / "refusal.json"
    schema = json.loads(refusal.read_text())
    schema["properties"]["category"] = {"type": "string", "description": "Why the model refused."}
    refusal.write_text(json.dumps(schema, indent=2) + "\n")
    run = subprocess.run([sys.executable, "tools/gen_models.py", "--check"], cwd=proj, capture_output=True, text=True)
    assert run.returncode == 1
    assert "category" in run.stdout
    assert "out of date" in run.stderr


def test_generated_module_is_marked_generated() -> None:
    head = (ROOT / "src" / "interlingua" / "items.py").read_text().splitlines()[0]
    assert head.startswith("# GENERATED FILE: DO NOT EDIT.")
